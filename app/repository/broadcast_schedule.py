"""Scheduled jobs: guarded transitions in and out of 'scheduled' (see app.models.broadcast).

Like app.repository.broadcast_jobs, every write is one conditional UPDATE:
under several cron processes the row lock (InnoDB) or SQLite's write lock
serialises them and the second re-evaluates its WHERE against the first's
committed row, so each transition happens once. "Now" is always the
database's clock, passed in, so every server agrees on what is due.
"""
from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy import func, select, update

from app.extensions import db
from app.models.broadcast import DRAFT, QUEUED, SCHEDULED, BroadcastJob
from app.repository.row_first import by_primary_key

J = BroadcastJob


def _update(*where, **values) -> int:
    """Run one guarded UPDATE on broadcast_jobs and return the matched rows."""
    stmt = update(J).where(*where).values(**values).execution_options(synchronize_session=False)
    return db.session.execute(stmt).rowcount


def _update_one(job_id: int, *where, **values) -> bool:
    """Run one guarded UPDATE of one job, found by its primary key (app.repository.row_first); True if it matched."""
    stmt = by_primary_key(update(J).where(J.id == job_id, *where).values(**values)
                 .execution_options(synchronize_session=False))
    return db.session.execute(stmt).rowcount == 1


def schedule_draft(job_id: int, send_at: datetime) -> bool:
    """draft -> scheduled, once the items exist."""
    return _update_one(job_id, J.status == DRAFT, status=SCHEDULED, send_at=send_at)


def retime(job_id: int, send_at: datetime) -> bool:
    """Move a scheduled job's send time; a missed job becomes an ordinary scheduled one again.

    Safe against cron starting it meanwhile: a job already released is no
    longer 'scheduled', so this matches nothing and the caller says so.
    """
    return _update_one(job_id, J.status == SCHEDULED, send_at=send_at, missed_at=None)


def release_due(now: datetime, grace: timedelta) -> int:
    """scheduled -> queued for every unmissed job due now and at most grace late; return how many.

    Two cron processes may both run it: each row moves once (the second's
    WHERE no longer matches a row the first made 'queued').
    """
    return _update(J.status == SCHEDULED, J.missed_at.is_(None), J.send_at <= now, J.send_at >= now - grace,
                   status=QUEUED)


def release_now(job_id: int) -> bool:
    """scheduled -> queued at an admin's word ("send now"), missed or not."""
    return _update_one(job_id, J.status == SCHEDULED, status=QUEUED)


def missed_ids(now: datetime, grace: timedelta) -> list[int]:
    """Return scheduled jobs more than grace late that nobody was asked about yet."""
    return list(db.session.execute(select(J.id).where(
        J.status == SCHEDULED, J.missed_at.is_(None), J.send_at < now - grace).order_by(J.id)).scalars())


def mark_missed(job_id: int, now: datetime, grace: timedelta) -> bool:
    """Flag a missed job as put to the admins; True for exactly one caller per missed schedule.

    Safe under several cron processes: the first UPDATE sets missed_at, and
    the others' WHERE (missed_at IS NULL) then matches nothing, so only the
    winner sends the question.
    """
    return _update_one(job_id, J.status == SCHEDULED, J.missed_at.is_(None), J.send_at < now - grace,
                       missed_at=now)


def next_send_at(not_before: datetime) -> datetime | None:
    """Return the earliest send time, from not_before on, of a scheduled job not yet missed."""
    return db.session.execute(select(func.min(J.send_at)).where(
        J.status == SCHEDULED, J.missed_at.is_(None), J.send_at >= not_before)).scalar()


def scheduled_jobs(limit: int = 20) -> list[BroadcastJob]:
    """Return scheduled jobs, soonest first."""
    return list(db.session.execute(
        select(J).where(J.status == SCHEDULED).order_by(J.send_at, J.id).limit(limit)).scalars())
