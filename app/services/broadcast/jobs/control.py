"""Steer jobs: read and list them, cancel, pause, resume, and start the next queued one."""
from __future__ import annotations

import logging

from sqlalchemy import select

from app.extensions import db
from app.models.broadcast import KIND_SEND, BroadcastJob
from app.repository import broadcast_jobs as jobs_repo
from app.repository import sending_rules as rules_repo
from app.repository.db_clock import db_utcnow
from app.repository.deadlocks import in_transaction
from app.services import audit
from app.services.broadcast.schedule import quiet_hours
from app.services.settings import load_settings

log = logging.getLogger(__name__)


def start_next_if_idle() -> int | None:
    """Promote the oldest queued job when no job holds the active slot (during quiet hours: an urgent one)."""
    return in_transaction(_promote_next_if_idle)


def _promote_next_if_idle() -> int | None:
    """The promotion's transaction: the oldest queued job takes the free slot (None if none did)."""
    if jobs_repo.running_job_id() is not None:
        return None
    quiet = quiet_hours.quiet_until(quiet_hours.window(load_settings()), db_utcnow()) is not None
    job_id = rules_repo.oldest_queued_id(urgent_only=quiet)
    if job_id is None or not jobs_repo.promote(job_id, db_utcnow()):
        return None
    return job_id


def get_job(job_id: int) -> BroadcastJob | None:
    """Return a job by id."""
    return db.session.get(BroadcastJob, job_id)


def list_jobs(limit: int = 20) -> list[BroadcastJob]:
    """Return the newest jobs first."""
    return list(db.session.execute(select(BroadcastJob).order_by(BroadcastJob.id.desc()).limit(limit)).scalars())


def cancel_job(job_id: int, actor: str | None = None) -> bool:
    """Cancel now; in-flight sends finish and record, no new batch is claimed."""
    def cancel() -> bool:
        ok = jobs_repo.cancel(job_id, db_utcnow())
        if ok:
            audit.record(actor, audit.CANCELLED, job_id)
        return ok

    ok = in_transaction(cancel)
    if ok:
        start_next_if_idle()
    return ok


def pause_job(job_id: int, reason: str | None = None, actor: str | None = None) -> bool:
    """Pause a running or queued job, letting the next queued job run."""
    reason = reason or "paused by an admin"

    def pause() -> bool:
        ok = jobs_repo.pause(job_id, reason)
        if ok:
            audit.record(actor, audit.PAUSED, job_id, reason)
        return ok

    ok = in_transaction(pause)
    if ok:
        start_next_if_idle()
    return ok


def resume_job(job_id: int, actor: str | None = None) -> str | None:
    """Resume a paused job: running if the slot is free, else queued (so too in quiet hours, unless urgent).

    None if it was not paused.
    """
    job = get_job(job_id)
    held = job is not None and quiet_hours.holds(load_settings(), bool(job.urgent) or job.kind != KIND_SEND,
                                                 db_utcnow()) is not None
    db.session.commit()

    def resume() -> str | None:
        # resume() runs first in its transaction: a lost slot race rolls it back.
        new_status = jobs_repo.resume(job_id, slot=not held)
        if new_status:
            audit.record(actor, audit.RESUMED, job_id, new_status)
        return new_status

    return in_transaction(resume)


def set_progress_message(job_id: int, chat_id: int, message_id: int) -> None:
    """Point the job at the admin's progress message."""
    job = db.session.get(BroadcastJob, job_id)
    job.progress_chat_id, job.progress_message_id = chat_id, message_id
    db.session.commit()
