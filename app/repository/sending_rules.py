"""Job and item rows the sending rules move: quiet-hours pauses and resumes, frequency-cap skips.

Each write is one guarded UPDATE (see broadcast_jobs.py for why two callers
cannot both match); counters move by the rows an UPDATE really changed.
"""
from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy import bindparam, func, or_, select, update

from app.extensions import db
from app.models.base import fit
from app.models.broadcast import (
    FREQUENCY_CAP,
    KIND_SEND,
    PAUSED,
    PENDING,
    QUEUED,
    QUIET_PAUSE,
    RUNNING,
    SENT,
    SKIPPED,
    BroadcastJob,
    BroadcastJobItem,
)
from app.repository.row_first import by_primary_key

J, I = BroadcastJob, BroadcastJobItem  # noqa: E741
# A job that finished this long before the day began sent nothing since (a cancelled job's last sends are
# written within a lease of its end): the cap reads only the other send jobs open or finished after that.
FINISHED_BEFORE_DAY = timedelta(days=1)
# A block's recipients who already got `cap` copies of other broadcasts since the day began: two reads per
# block, the few send jobs that can have sent today, then each (job, user) pair by the items' unique key.
# Given as lists, MariaDB reads exactly those pairs; as a join or a subquery it read every sent copy of
# each job (5 s a block at 1M users). A user-led index would do it in one read, but every population and
# every send's outcome would write into an index spanning all of the bot's history.
_RECENT = select(J.id).where(J.kind == bindparam("kind"), J.id != bindparam("job_id"),
                             or_(J.finished_at.is_(None), J.finished_at >= bindparam("finished_after")))
# The same without chain steps' jobs: when steps are exempt from the cap they do not count toward it either.
_RECENT_BROADCASTS = _RECENT.where(J.chain_step_id.is_(None))
_CAPPED = (select(I.user_id)
           .where(I.job_id.in_(bindparam("jobs", expanding=True)), I.user_id.in_(bindparam("users", expanding=True)),
                  I.status == bindparam("sent"), I.sent_at >= bindparam("since"))
           .group_by(I.user_id).having(func.count() >= bindparam("cap")))


def _update_job(*where, **values) -> int:
    """Run one guarded UPDATE of one job and return the rows it matched."""
    stmt = by_primary_key(update(J).where(*where).values(**values).execution_options(synchronize_session=False))
    return db.session.execute(stmt).rowcount


def capped_users(job_id: int, user_ids: list[int], since: datetime, cap: int, *, steps_count: bool = True) -> set[int]:
    """Return which of user_ids got at least cap copies of other send jobs (retries too) since `since`.

    steps_count False leaves drip chain steps' copies out (steps exempt from the cap).
    """
    if not user_ids:
        return set()
    recent = _RECENT if steps_count else _RECENT_BROADCASTS
    jobs = list(db.session.execute(recent, {"kind": KIND_SEND, "job_id": job_id,
                                            "finished_after": since - FINISHED_BEFORE_DAY}).scalars())
    if not jobs:
        return set()
    rows = db.session.execute(_CAPPED, {"jobs": jobs, "users": user_ids, "sent": SENT, "since": since,
                                        "cap": cap})
    return {r[0] for r in rows}


def skip_capped(job_id: int, item_ids: list[int]) -> int:
    """pending -> skipped (error 'frequency_cap') under the caller's lease; both counters move by the rows changed.

    The status guard makes a replay change nothing, so the counters never move twice.
    """
    if not item_ids:
        return 0
    stmt = (update(I).where(I.id.in_(item_ids), I.status == PENDING).values(status=SKIPPED, error=FREQUENCY_CAP)
            .execution_options(synchronize_session=False))
    n = db.session.execute(stmt).rowcount
    if n:
        _update_job(J.id == job_id, skipped_count=J.skipped_count + n, capped_count=J.capped_count + n)
    return n


def pause_for_quiet(job_id: int, reason: str) -> bool:
    """running -> paused (pause_kind 'quiet'), freeing the slot; cron resumes it once quiet hours end."""
    return _update_job(J.id == job_id, J.status == RUNNING, status=PAUSED, active_slot=None,
                       pause_kind=QUIET_PAUSE, pause_reason=fit(J.pause_reason, reason)) == 1


def quiet_paused_ids() -> list[int]:
    """Return the jobs paused by quiet hours, oldest first."""
    return list(db.session.execute(select(J.id).where(J.status == PAUSED, J.pause_kind == QUIET_PAUSE)
                                   .order_by(J.id)).scalars())


def resume_after_quiet(job_id: int) -> bool:
    """paused (quiet) -> queued; a job an admin paused (or paused again meanwhile) does not match."""
    return _update_job(J.id == job_id, J.status == PAUSED, J.pause_kind == QUIET_PAUSE, status=QUEUED,
                       pause_kind=None, pause_reason=None, not_before=None) == 1


def oldest_queued_id(urgent_only: bool) -> int | None:
    """Return the queued job that waited longest; during quiet hours only urgent ones and unsends / edits."""
    where = [J.status == QUEUED]
    if urgent_only:
        where.append(or_(J.urgent.is_(True), J.kind != KIND_SEND))
    return db.session.execute(select(J.id).where(*where).order_by(J.id).limit(1)).scalar()
