"""Job rows: the lease, guarded state transitions and atomic counters.

Every write here is a single conditional UPDATE (the few reads are plain
SELECTs). Under two concurrent callers the row lock (InnoDB) or SQLite's
single write lock (taken by the transaction's first write and held until
commit) serialises them, and the second re-evaluates its WHERE clause against
the first one's committed row, so at most one of them matches. Callers
commit, except promote(), which must roll back a lost race; resume() rolls back
a lost race for the slot but leaves the winning change to its caller's commit.
"""
from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy import and_, bindparam, delete, exists, or_, select, update
from sqlalchemy.exc import IntegrityError

from app.extensions import db
from app.models.base import fit
from app.models.broadcast import (
    ACTIVE,
    CANCELLED,
    COMPLETED,
    DRAFT,
    FINAL_STATUSES,
    PAUSED,
    PENDING,
    QUEUED,
    RUNNING,
    SCHEDULED,
    SENDING,
    TERMINAL,
    BroadcastJob,
    BroadcastJobItem,
    ItemStatus,
)
from app.repository.row_first import by_primary_key

J = BroadcastJob
T = BroadcastJob.__table__
# A pump's per-step statements (a paid broadcast runs ~70 steps a second), built
# once with bound parameters: built per call as ORM expressions, their
# construction and cache keying cost several times their execution's CPU.
_FENCE = by_primary_key(update(T).where(T.c.id == bindparam("job_id"), T.c.lease_token == bindparam("token"))
                        .values(lease_expires_at=bindparam("expires")))
_FENCE_RUNNING = _FENCE.where(T.c.status == bindparam("running"))
_ADD_COUNTS: dict[tuple[str, ...], object] = {}  # the counters an add_counts moves -> its statement
_FENCES: dict[tuple[bool, tuple[str, ...]], object] = {}  # (require_running, counters) -> its fence


def _update(*where, **values) -> int:
    """Run one guarded UPDATE of one job (where names it by J.id) and return the matched rows."""
    stmt = by_primary_key(update(J).where(*where).values(**values).execution_options(synchronize_session=False))
    return db.session.execute(stmt).rowcount


def claim_progress_message(job_id: int, chat_id: int, message_id: int) -> bool:
    """Point the job at a progress message unless it already has one; True if this one is now the job's."""
    return _update(J.id == job_id, J.progress_message_id.is_(None), progress_chat_id=chat_id,
                   progress_message_id=message_id) == 1


def acquire_lease(job_id: int, token: str, now: datetime, ttl: int) -> bool:
    """Take the job's lease if it is free, expired, or already ours.

    Safe: two pumps racing here both run this UPDATE; the second sees the
    first's fresh token and unexpired time, so its WHERE matches nothing.
    """
    return _update(
        J.id == job_id,
        J.status == RUNNING,
        or_(J.lease_token.is_(None), J.lease_expires_at < now, J.lease_token == token),
        lease_token=token, lease_expires_at=now + timedelta(seconds=ttl),
    ) == 1


def fence(job_id: int, token: str, now: datetime, ttl: int, *, require_running: bool,
          counts: dict[str, int] | None = None) -> bool:
    """Renew our lease inside the current transaction, moving the counters by ``counts``; False if it is not ours.

    Run first in every write transaction of a pump: it locks the job row, so a
    pump whose lease expired and was taken over fails here and writes nothing.
    The counters of the transaction's outcomes ride along (corrected by add_counts if fewer rows changed).
    """
    values = _counter_values(counts or {})
    params = {"job_id": job_id, "token": token, "expires": now + timedelta(seconds=ttl),
              **{f"add_{c}": n for c, n in values.items()}}
    stmt = _FENCES.get((require_running, tuple(sorted(values))))
    if stmt is None:
        stmt = _FENCE_RUNNING if require_running else _FENCE
        if values:
            stmt = stmt.values({c: T.c[c] + bindparam(f"add_{c}") for c in sorted(values)})
        _FENCES[(require_running, tuple(sorted(values)))] = stmt
    if require_running:
        params["running"] = RUNNING
    return db.session.execute(stmt, params).rowcount == 1


def _counter_values(by_status: dict[str, int]) -> dict[str, int]:
    """Return {counter column: n} for final item statuses' moves (zero moves left out)."""
    counters = {status: ItemStatus(status).counter for status in by_status}
    if None in counters.values():
        raise ValueError(f"no counter for item status in {sorted(by_status)!r}")
    return {counters[status]: n for status, n in by_status.items() if n}


def release_lease(job_id: int, token: str) -> None:
    """Give the lease back; does nothing if it was taken over meanwhile."""
    _update(J.id == job_id, J.lease_token == token, lease_token=None, lease_expires_at=None)


def add_counts(job_id: int, **by_status: int) -> None:
    """Move the counters of final item statuses (sent=3, failed=-1) by atomic increments, never read-modify-write."""
    values = _counter_values(by_status)
    if not values:
        return
    counters = tuple(sorted(values))
    stmt = _ADD_COUNTS.get(counters)
    if stmt is None:
        stmt = update(T).where(T.c.id == bindparam("job_id")).values(
            {c: T.c[c] + bindparam(f"add_{c}") for c in counters})
        _ADD_COUNTS[counters] = stmt
    db.session.execute(stmt, {"job_id": job_id, **{f"add_{c}": n for c, n in values.items()}})


def set_total(job_id: int, total: int) -> None:
    """Record the population size (a set, so populating twice is harmless)."""
    _update(J.id == job_id, total_count=total)


def set_not_before(job_id: int, token: str, when: datetime) -> None:
    """Make later pumps wait out a rate limit; fenced by our lease."""
    _update(J.id == job_id, J.lease_token == token, not_before=when)


def delete_draft(job_id: int) -> bool:
    """Delete a job row still in draft (never queued, so nothing refers to it)."""
    return db.session.execute(delete(J).where(J.id == job_id, J.status == DRAFT)).rowcount == 1


def drafts_created_before(cutoff: datetime) -> list[int]:
    """Return the ids of jobs still in draft created before cutoff."""
    return [r[0] for r in db.session.execute(select(J.id).where(J.status == DRAFT, J.created_at < cutoff))]


def queue_draft(job_id: int) -> bool:
    """draft -> queued, once the items exist."""
    return _update(J.id == job_id, J.status == DRAFT, status=QUEUED) == 1


def promote(job_id: int, now: datetime) -> bool:
    """queued -> running, taking the single active slot; commits or rolls back.

    Safe: active_slot is UNIQUE, so a second job cannot become running while
    one holds the slot; the loser gets an IntegrityError and stays queued.
    Call it at the start of a transaction: a loss rolls the whole one back.
    """
    try:
        n = _update(J.id == job_id, J.status == QUEUED, status=RUNNING, active_slot=1,
                    started_at=db.func.coalesce(J.started_at, now), not_before=None)
        db.session.commit()
    except IntegrityError:
        db.session.rollback()
        return False
    return n == 1


def resume(job_id: int, slot: bool = True) -> str | None:
    """paused -> running when the slot is free (and slot is asked for), else paused -> queued; the caller commits.

    Call it at the start of a transaction: losing the slot (UNIQUE active_slot)
    rolls the whole transaction back before the job is queued instead.
    """
    try:
        if slot and _update(J.id == job_id, J.status == PAUSED, status=RUNNING, active_slot=1,
                            pause_reason=None, pause_kind=None, not_before=None) == 1:
            return RUNNING
    except IntegrityError:
        db.session.rollback()
    n = _update(J.id == job_id, J.status == PAUSED, status=QUEUED, pause_reason=None, pause_kind=None)
    return QUEUED if n == 1 else None


def pause(job_id: int, reason: str) -> bool:
    """running|queued -> paused, freeing the slot (a quiet-hours pause becomes this one: never resumed on its own)."""
    quiet = and_(J.status == PAUSED, J.pause_kind.is_not(None))
    return _update(J.id == job_id, or_(J.status.in_((RUNNING, QUEUED)), quiet), status=PAUSED, active_slot=None,
                   pause_kind=None, pause_reason=fit(J.pause_reason, reason)) == 1


def cancel(job_id: int, now: datetime) -> bool:
    """draft|scheduled|queued|running|paused -> cancelled; in-flight sends still record."""
    return _update(J.id == job_id, J.status.in_((DRAFT, SCHEDULED) + ACTIVE), status=CANCELLED,
                   active_slot=None, finished_at=now) == 1


def lock_for_retry(job_id: int, now: datetime) -> str | None:
    """Lock a job about to be retried; return its status then, None if it may not be retried.

    A paused job is cancelled here, in the retry's own transaction: its
    resume and this retry are guarded UPDATEs on status 'paused', so exactly
    one of them wins, and a retried job never sends its pending items again.
    An ended job gets a no-op UPDATE, which takes its row lock (the write lock
    on SQLite), so two retries of one job run one after the other.
    """
    if _update(J.id == job_id, J.status == PAUSED, status=CANCELLED, active_slot=None, finished_at=now) == 1:
        return PAUSED
    if _update(J.id == job_id, J.status.in_(TERMINAL), status=J.status) == 1:
        return db.session.execute(select(J.status).where(J.id == job_id)).scalar()
    return None


def complete_if_done(job_id: int, token: str, now: datetime) -> bool:
    """running -> completed when no item is pending or in flight; fenced by our lease."""
    unfinished = exists().where(
        BroadcastJobItem.job_id == job_id, BroadcastJobItem.status.in_((PENDING, SENDING))
    )
    return _update(J.id == job_id, J.status == RUNNING, J.lease_token == token, ~unfinished,
                   status=COMPLETED, active_slot=None, finished_at=now,
                   lease_token=None, lease_expires_at=None) == 1


def running_job_id() -> int | None:
    """Return the job holding the active slot, if any."""
    return db.session.execute(select(J.id).where(J.status == RUNNING).order_by(J.id).limit(1)).scalar()


def pending_ahead() -> list[tuple[bool, str, str, str | None, str | None, int]]:
    """Return (paid, kind, content_type, source_message_ids, keyboard, items left) of each queued and running job.

    Items left are what processed_count does not count yet (an action job's
    gone and too_old items are done too): a new job waits for them.
    """
    left = J.total_count - sum(getattr(J, s.counter) for s in FINAL_STATUSES)
    rows = db.session.execute(select(J.paid, J.kind, J.content_type, J.source_message_ids, J.keyboard, left)
                              .where(J.status.in_((QUEUED, RUNNING))))
    return [(bool(paid), kind, content_type, ids, kb, max(int(n or 0), 0))
            for paid, kind, content_type, ids, kb, n in rows]


def stopped_with_orphans(now: datetime) -> list[int]:
    """Return jobs no longer running whose lease is dead but which still have items in flight."""
    in_flight = exists().where(BroadcastJobItem.job_id == J.id, BroadcastJobItem.status == SENDING)
    return list(db.session.execute(
        select(J.id).where(J.status.in_((PAUSED, QUEUED, CANCELLED)), _lease_dead(now), in_flight)
    ).scalars())


def claim_dead_lease(job_id: int, now: datetime) -> bool:
    """Lock a stopped job whose lease is dead, clearing it, so its orphans are expired once.

    Safe: the row lock serialises this with resume() and acquire_lease(); a
    job that became running, or whose pump still holds a live lease (it will
    record its own in-flight sends), does not match.
    """
    return _update(J.id == job_id, J.status != RUNNING, _lease_dead(now),
                   lease_token=None, lease_expires_at=None) == 1


def _lease_dead(now: datetime):
    """Return the condition 'no pump holds a live lease'."""
    return or_(J.lease_token.is_(None), J.lease_expires_at.is_(None), J.lease_expires_at < now)


def retries_of(job_ids: list[int]) -> list[int]:
    """Return the jobs that retry any of job_ids (one level down the retry_of chain)."""
    if not job_ids:
        return []
    return list(db.session.execute(select(J.id).where(J.retry_of.in_(job_ids)).order_by(J.id)).scalars())


def retry_parent(job_id: int) -> int | None:
    """Return the job this one retries, if any."""
    return db.session.execute(select(J.retry_of).where(J.id == job_id)).scalar()


def statuses(job_ids: list[int]) -> dict[int, str]:
    """Return {job id: status} for job_ids."""
    return dict(db.session.execute(select(J.id, J.status).where(J.id.in_(job_ids))).all())


def actions_on(source_ids: list[int], kind: str | None = None, open_only: bool = True) -> list[tuple[int, str, str]]:
    """Return (id, kind, status) of the action jobs acting on any of source_ids (not ended ones, unless asked)."""
    where = [J.source_job_id.in_(source_ids)]
    if kind is not None:
        where.append(J.kind == kind)
    if open_only:
        where.append(J.status.not_in(TERMINAL))
    return [tuple(r) for r in db.session.execute(select(J.id, J.kind, J.status).where(*where).order_by(J.id))]


def lock_row(job_id: int) -> bool:
    """Take a job's row lock (a no-op UPDATE; the write lock on SQLite) whatever its status; False if none."""
    return _update(J.id == job_id, status=J.status) == 1
