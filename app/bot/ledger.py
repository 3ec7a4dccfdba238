"""A job's ledger from the bot: export it as CSV (sending again is app.bot.retry_screen)."""
from __future__ import annotations

import logging
import tempfile
import time

from app.bot.buttons import button
from app.bot.context import BotContext
from app.services import audit
from app.services.broadcast.reporting import export
from app.telegram.errors import TelegramError

log = logging.getLogger(__name__)
# The CSV is built in memory up to this size, then on disk: 200,000 rows (~10 MB) never sit in memory.
SPOOL_BYTES = 1 << 20
# The upload's own budget (a large ledger over a slow link); the webhook's replies wait for it.
UPLOAD_SECONDS = 30.0


@button("j.export")
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
