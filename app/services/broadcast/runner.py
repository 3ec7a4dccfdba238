"""Pumps run inside an admin's request: a small fixed number of bounded calls."""
from __future__ import annotations

import logging
import time

from app.extensions import db
from app.models.broadcast import QUEUED, TERMINAL, BroadcastJob
from app.models.pump_run import ADMIN
from app.services.broadcast import jobs, stops
from app.services.broadcast.cron_watch import run_recorded
from app.services.broadcast.drain import pump
from app.services.broadcast.progress import progress_keyboard, progress_text, refresh_progress
from app.services.broadcast.status import JobView, job_status
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
    message = future.result(timeout=0) if future.done() else None
    if message and message.get("message_id"):
        jobs.set_progress_message(job_id, chat_id, message["message_id"])


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
