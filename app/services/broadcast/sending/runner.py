"""Pumps run inside an admin's request: a small fixed number of bounded calls."""
from __future__ import annotations

import logging
import time
from concurrent.futures import Future

from flask import current_app

from app.extensions import db
from app.models.broadcast import QUEUED, TERMINAL, BroadcastJob
from app.models.pump_run import ADMIN
from app.repository import broadcast_jobs as jobs_repo
from app.services.broadcast.jobs.status import JobView, job_status
from app.services.broadcast.reporting.progress import progress_keyboard, progress_text, refresh_progress
from app.services.broadcast.schedule.cron_watch import run_recorded
from app.services.broadcast.sending import stops
from app.services.broadcast.sending.drain import pump
from app.texts import t

log = logging.getLogger(__name__)
# The progress message is written inside the admin's webhook request: a slow
# Telegram delays that request's answer by at most this long per flush.
REQUEST_FLUSH_SECONDS = 10.0


def ensure_progress_message(job_id: int, *, outbox, chat_id: int, lang: str) -> None:
    """Send the live progress message once and remember where it is."""
    job = db.session.get(BroadcastJob, job_id)
    if job is None or job.progress_message_id:
        db.session.commit()
        return
    status = job_status(job)
    db.session.commit()
    future = outbox.send(chat_id, progress_text(status, lang),
                         reply_markup=progress_keyboard(job_id, status.status, lang))
    outbox.flush(deadline=time.monotonic() + REQUEST_FLUSH_SECONDS)
    if not future.done():
        # Handed to the process's late outbox (the admin's chat was busy): it is recorded once
        # sent, or a later run would send a second progress message beside it.
        app = current_app._get_current_object()
        late = outbox.later  # still running once this request's outbox is done
        future.add_done_callback(lambda sent: _record_late_progress(app, job_id, chat_id, late, sent))
        return
    _record_progress(job_id, chat_id, outbox, future)


def _record_late_progress(app, job_id: int, chat_id: int, outbox, sent: Future) -> None:
    """Record a progress message the late outbox sent (its worker thread: an app context of its own)."""
    try:
        with app.app_context():
            _record_progress(job_id, chat_id, outbox, sent)
    except Exception:
        log.warning("job %s: the late progress message could not be recorded", job_id, exc_info=True)


def _record_progress(job_id: int, chat_id: int, outbox, sent: Future) -> None:
    """Make the sent progress message the job's; one sent after another was recorded is deleted, never left stale."""
    message = None if sent.cancelled() else sent.result(timeout=0)
    message_id = message.get("message_id") if isinstance(message, dict) else None
    if not message_id:
        return
    claimed = jobs_repo.claim_progress_message(job_id, chat_id, message_id)
    db.session.commit()
    if not claimed:
        log.info("job %s: a progress message came late after another was recorded; deleting it", job_id)
        outbox.delete(chat_id, message_id)


def run_interactive(job_id: int, *, settings: dict, outbox, chat_id: int, lang: str = "fa") -> JobView:
    """Run up to webhook_pump_calls bounded pumps, then leave 'remaining: N — tap continue'."""
    ensure_progress_message(job_id, outbox=outbox, chat_id=chat_id, lang=lang)

    def pumps() -> list:
        results = []
        for _ in range(settings["webhook_pump_calls"]):
            # No client passed: pump() takes the job's own (a paid job's paid client and rate).
            result = pump(job_id, settings["webhook_pump_seconds"], settings=settings, outbox=outbox)
            log.info("interactive pump of job %s: stop=%s processed=%s", job_id, result.stop, result.processed)
            results.append(result)
            if result.stop in stops.FINAL:
                break
        return results

    run_recorded(ADMIN, pumps)
    db.session.expire_all()
    job = db.session.get(BroadcastJob, job_id)
    status = job_status(job)
    db.session.commit()
    if status.status not in TERMINAL:
        extra = t("remaining", lang, pending=status.pending)
        if status.status == QUEUED:
            extra = t("wiz_queued", lang, id=job_id) + "\n" + extra
        refresh_progress(job_id, outbox=outbox, lang=lang, extra=extra)
    outbox.flush(deadline=time.monotonic() + REQUEST_FLUSH_SECONDS)
    return status
