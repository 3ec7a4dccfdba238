"""Recurring broadcasts: the guarded writes that make each occurrence happen once (see app.models.recurring).

Every change of a series is one conditional UPDATE. The one that matters is
advance(): it matches only while next_at still equals the occurrence the
caller saw, so of two cron processes (or servers) releasing the same
occurrence, the row lock (InnoDB) or SQLite's write lock lets one update and
the other re-evaluate its WHERE against the committed row and match nothing.
The occurrence's row, keyed (series, time), is written in the same
transaction: a second insert of it would fail even if the WHERE were wrong.
"""
from __future__ import annotations

from datetime import datetime

from sqlalchemy import insert, select, update

from app.extensions import db
from app.models.broadcast import DRAFT, BroadcastJob
from app.models.recurring import ACTIVE, ENDED, MADE, PAUSED, STOPPED, RecurringBroadcast, RecurringOccurrence
from app.repository.row_first import by_primary_key

R, Occ = RecurringBroadcast, RecurringOccurrence


def _update_one(series_id: int, *where, **values) -> bool:
    """Run one guarded UPDATE of one series, found by its primary key; True if it matched."""
    stmt = by_primary_key(update(R).where(R.id == series_id, *where).values(**values)
                          .execution_options(synchronize_session=False))
    return db.session.execute(stmt).rowcount == 1


def add(**columns) -> RecurringBroadcast:
    """Insert a series and flush it for its id."""
    series = RecurringBroadcast(**columns)
    db.session.add(series)
    db.session.flush()
    return series


def due(now: datetime) -> list[tuple[int, datetime]]:
    """Return (id, next_at) of every active series whose next occurrence has come, oldest first."""
    return list(db.session.execute(select(R.id, R.next_at).where(
        R.status == ACTIVE, R.next_at <= now).order_by(R.next_at, R.id)).all())


def advance(series_id: int, occurrence: datetime, next_at: datetime | None, used: int, made: int) -> bool:
    """Move a series past the occurrence it is at; True for exactly one caller per occurrence.

    Safe under two concurrent callers: the WHERE names the occurrence (next_at =
    occurrence), which the first caller's committed UPDATE changed, so the
    second matches nothing. A series paused or stopped meanwhile matches
    nothing either. next_at None ends the series.
    """
    return _update_one(series_id, R.status == ACTIVE, R.next_at == occurrence,
                       next_at=next_at, status=ACTIVE if next_at is not None else ENDED,
                       occurrences=R.occurrences + used, made_count=R.made_count + made)


def record(series_id: int, rows: list[tuple[datetime, str, int | None]], now: datetime) -> None:
    """Insert occurrences (time, outcome, job id) of a series; the primary key refuses one recorded twice."""
    if rows:
        db.session.execute(insert(Occ), [dict(recurring_id=series_id, occurs_at=at, outcome=outcome, job_id=job_id,
                                            recorded_at=now) for at, outcome, job_id in rows])


def set_outcome(series_id: int, occurs_at: datetime, outcome: str, job_id: int | None = None) -> None:
    """Change a made occurrence's outcome (its audience was empty: no job after all)."""
    db.session.execute(update(Occ).where(Occ.recurring_id == series_id, Occ.occurs_at == occurs_at)
                       .values(outcome=outcome, job_id=job_id).execution_options(synchronize_session=False))


def uncount_made(series_id: int) -> None:
    """Take back one made job from a series' tally (its occurrence found nobody to send to)."""
    db.session.execute(update(R).where(R.id == series_id).values(made_count=R.made_count - 1)
                       .execution_options(synchronize_session=False))


def pause(series_id: int) -> bool:
    """active -> paused (no occurrence while paused)."""
    return _update_one(series_id, R.status == ACTIVE, status=PAUSED)


def resume(series_id: int, next_at: datetime | None) -> bool:
    """paused -> active at next_at (the first occurrence after now), or ended when none is left."""
    return _update_one(series_id, R.status == PAUSED, next_at=next_at,
                       status=ACTIVE if next_at is not None else ENDED)


def stop(series_id: int) -> bool:
    """active|paused -> stopped; terminal."""
    return _update_one(series_id, R.status.in_((ACTIVE, PAUSED)), status=STOPPED, next_at=None)


def get(series_id: int) -> RecurringBroadcast | None:
    """Return a series, or None."""
    return db.session.get(R, series_id)


def newest(limit: int) -> list[RecurringBroadcast]:
    """Return the newest series first."""
    return list(db.session.execute(select(R).order_by(R.id.desc()).limit(limit)).scalars())


def occurrences_of(series_id: int, limit: int) -> list[RecurringOccurrence]:
    """Return a series' newest occurrences first."""
    return list(db.session.execute(select(Occ).where(Occ.recurring_id == series_id)
                                   .order_by(Occ.occurs_at.desc()).limit(limit)).scalars())


def occurrence_of_job(job_id: int) -> RecurringOccurrence | None:
    """Return the occurrence that made a job, or None for a job no series made."""
    return db.session.execute(select(Occ).where(Occ.job_id == job_id).limit(1)).scalars().first()


def stuck_drafts(created_before: datetime) -> list[tuple[int, datetime, int]]:
    """Return (series, occurrence, job) of occurrences whose job is still a draft made before the cutoff."""
    return list(db.session.execute(
        select(Occ.recurring_id, Occ.occurs_at, Occ.job_id).join(BroadcastJob, BroadcastJob.id == Occ.job_id)
        .where(Occ.outcome == MADE, BroadcastJob.status == DRAFT, BroadcastJob.created_at < created_before)).all())
