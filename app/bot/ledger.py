"""A job's ledger from the bot: send again to whom it did not reach, and export it as CSV."""
from __future__ import annotations

import logging
import tempfile
import time

from app.bot import history
from app.bot.context import BotContext
from app.services import audit
from app.services.broadcast import export, jobs, retry, runner
from app.telegram.errors import TelegramError

log = logging.getLogger(__name__)
# The CSV is built in memory up to this size, then on disk: 200,000 rows (~10 MB) never sit in memory.
SPOOL_BYTES = 1 << 20
# The upload's own budget (a large ledger over a slow link); the webhook's replies wait for it.
UPLOAD_SECONDS = 30.0


def on_retry(ctx: BotContext, job_id: int) -> None:
    """Create the retry of a job for its failed and unsent items."""
    _retry(ctx, job_id, include_unknown=False)


def on_retry_unknown(ctx: BotContext, job_id: int) -> None:
    """Create the retry including unknown items (the view warned that some may get a second copy)."""
    _retry(ctx, job_id, include_unknown=True)


def _retry(ctx: BotContext, job_id: int, include_unknown: bool) -> None:
    """After commit: build the new job from the ledger, answer, re-render the view, run the new job's pumps."""
    if jobs.get_job(job_id) is None:
        ctx.answer("cb_unknown_job")
        return

    def run() -> None:
        try:
            job = retry.retry_job(job_id, include_unknown=include_unknown, actor=audit.admin_actor(ctx.user_id),
                                  created_by=ctx.user_id, progress_chat_id=ctx.chat_id, lang=ctx.lang,
                                  settings=ctx.settings)
        except retry.NotRetryable:
            ctx.end_transaction()
            ctx.answer("cb_retry_refused", alert=True)
            return
        except retry.NothingToRetry:
            ctx.end_transaction()
            ctx.answer("cb_retry_nothing", alert=True)
            return
        new_id, total = job.id, job.total_count
        ctx.end_transaction()
        ctx.answer("cb_retried", id=new_id, total=total)
        history.rerender(ctx, job_id)  # a paused job is cancelled by its retry: show it
        runner.run_interactive(new_id, settings=ctx.settings, outbox=ctx.outbox, chat_id=ctx.chat_id, lang=ctx.lang)

    ctx.after_commit(run)


def on_export(ctx: BotContext, job_id: int) -> None:
    """Send the job's ledger to the admin as a CSV document (its text cells neutralised against formulas)."""
    try:
        export.check_exportable(job_id)
    except export.NoSuchJob:
        ctx.answer("cb_unknown_job")
        return
    except export.LedgerPurged:
        ctx.answer("cb_export_purged", alert=True, id=job_id)
        return
    ctx.answer("cb_exporting")
    ctx.after_commit(lambda: _send_export(ctx, job_id))


def _send_export(ctx: BotContext, job_id: int) -> None:
    """Write the CSV to a spooled file page by page, upload it (multipart, streamed), then audit it."""
    with tempfile.SpooledTemporaryFile(max_size=SPOOL_BYTES) as csv_file:
        try:
            rows = export.export_csv(job_id, csv_file)
        except export.LedgerPurged:  # purged since the button was pressed
            ctx.end_transaction()
            ctx.reply("export_purged", id=job_id)
            return
        ctx.end_transaction()
        try:
            ctx.client.send_document(ctx.chat_id, export.file_name(job_id), csv_file,
                                     caption=ctx.text("export_caption", id=job_id, rows=rows),
                                     deadline=time.monotonic() + UPLOAD_SECONDS)
        except TelegramError as exc:
            log.warning("ledger of job %s not sent: %s", job_id, exc)
            ctx.reply("export_failed", id=job_id)
            return
    export.record_export(job_id, audit.admin_actor(ctx.user_id), rows, "Telegram")
