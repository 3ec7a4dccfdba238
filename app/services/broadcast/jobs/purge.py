"""Jobs' housekeeping: expire orphaned items and purge old jobs' per-recipient items."""
from __future__ import annotations

import logging
from datetime import datetime, timedelta

from app.extensions import db
from app.models.broadcast import REPEATABLE_KINDS, BroadcastJob
from app.repository import broadcast_claims as claims
from app.repository import broadcast_jobs as jobs_repo
from app.repository import broadcast_ledger as ledger
from app.repository.db_clock import db_utcnow
from app.repository.deadlocks import in_transaction
from app.services.broadcast.jobs import population

log = logging.getLogger(__name__)
# Purge never removes items younger than this: unsend and retry need them.
PURGE_FLOOR = timedelta(hours=48)


def expire_orphans(job_id: int, now: datetime) -> int:
    """Count items a dead pump left in flight as unknown, settled now (caller holds the job row and commits)."""
    job = db.session.get(BroadcastJob, job_id)
    if job is not None and job.kind in REPEATABLE_KINDS:
        # A delete, an edit or an unpin is safe to repeat: back to pending, done again by the next pump.
        # A pin is not (a second "pinned" notice): like a send's, its orphans are unknown, never pinned again.
        n = claims.expire_orphans(job_id, redo=True)
        if n:
            log.warning("job %s: %s actions left in flight by a stopped pump go again", job_id, n)
        return n
    n = claims.expire_orphans(job_id, now=now)
    if n:
        jobs_repo.add_counts(job_id, unknown=n)
        log.warning("job %s: %s items left in flight by a stopped pump are now 'unknown'", job_id, n)
    return n


def expire_stopped_orphans() -> int:
    """Expire in-flight items of cancelled/paused jobs whose pump died (cron runs this).

    acquire_lease() only runs for running jobs, so without this a job that
    was cancelled or paused after its pump died would keep 'sending' items
    forever and counters that never add up.
    """
    now = db_utcnow()
    job_ids = jobs_repo.stopped_with_orphans(now)
    db.session.commit()
    total = 0
    for job_id in job_ids:
        total += in_transaction(lambda job_id=job_id: expire_orphans(job_id, now)
                                if jobs_repo.claim_dead_lease(job_id, now) else 0)
    return total


def purge_items(older_than_days: int, now: datetime | None = None, max_items: int | None = None) -> dict:
    """Delete items of jobs finished more than N days (and at least 48 hours) ago; job rows and counters stay.

    Items younger than PURGE_FLOOR are always kept: unsend and retry read them.
    The items go population.DELETE_CHUNK at a time, each chunk its own short transaction,
    so a pump sending meanwhile is never held up; max_items bounds one call
    (cron's slice), the next call carries on. Returns what was removed:
    {"items": n, "jobs": {job id: items removed}, "before": cutoff, "done": nothing left to remove}.
    """
    if older_than_days < 0:
        raise ValueError("older_than_days must be >= 0")
    now = now or db_utcnow()
    before = min(now - timedelta(days=older_than_days), now - PURGE_FLOOR)
    removed: dict[int, int] = {}
    left = max_items
    job_ids = ledger.purgeable_jobs(before)
    db.session.commit()
    for job_id in job_ids:
        while left is None or left > 0:
            chunk = population.DELETE_CHUNK if left is None else min(population.DELETE_CHUNK, left)
            n = ledger.delete_finished_some(job_id, before, chunk)
            db.session.commit()
            if not n:
                break
            removed[job_id] = removed.get(job_id, 0) + n
            left = None if left is None else left - n
            population.let_writers_in()
        if left == 0:
            break
    done = left is None or left > 0
    return {"items": sum(removed.values()), "jobs": removed, "before": before, "done": done}
