"""Cron's side of quiet hours: jobs the engine paused for them go back to the queue once they end."""
from __future__ import annotations

import logging

from app.repository import sending_rules as rules_repo
from app.repository.db_clock import db_utcnow
from app.repository.deadlocks import in_transaction
from app.services import audit
from app.services.broadcast.schedule import quiet_hours

log = logging.getLogger(__name__)


def resume_after_quiet(settings: dict) -> list[int]:
    """Queue every job quiet hours paused, once they are over (or turned off); return the ids queued.

    Each is one guarded UPDATE on (paused, pause_kind 'quiet'): two cron calls
    queue a job once, and a job an admin paused is never matched.
    """
    if quiet_hours.quiet_until(quiet_hours.window(settings), db_utcnow()) is not None:
        return []
    resumed = []
    for job_id in in_transaction(rules_repo.quiet_paused_ids):
        if in_transaction(lambda job_id=job_id: _resume(job_id)):
            log.info("job %s: quiet hours are over; queued again", job_id)
            resumed.append(job_id)
    return resumed


def _resume(job_id: int) -> bool:
    """Queue one job with its audit row in the same transaction; False when it no longer waits for quiet hours."""
    if not rules_repo.resume_after_quiet(job_id):
        return False
    audit.record(audit.ACTOR_SYSTEM, audit.RESUMED, job_id, "quiet hours ended")
    return True
