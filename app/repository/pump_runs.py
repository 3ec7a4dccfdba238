"""Pump-run records and the cron watch row: guarded single-statement writes, times on the database's clock.

The watch row's decisions are each one conditional UPDATE (as in
app.repository.broadcast_jobs): under several processes InnoDB's row lock or
SQLite's write lock serialises them, and the second re-evaluates its WHERE
against the first's committed row, so an outage is alerted once and one
fallback slice runs at a time. Callers commit.
"""
from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy import func, or_, select, update
from sqlalchemy.exc import IntegrityError

from app.extensions import db
from app.models.broadcast import QUEUED, RUNNING, SCHEDULED, BroadcastJob
from app.models.pump_run import WATCH_ID, CronWatch, PumpRun

J = BroadcastJob
W = CronWatch


def _ensure(model, **key) -> None:
    """Insert the row with this key unless it exists; a concurrent insert of the same row is fine."""
    if db.session.get(model, tuple(key.values())[0]) is not None:
        return
    try:
        with db.session.begin_nested():
            db.session.add(model(**key))
    except IntegrityError:
        pass  # another process created it first


def _update(model, *where, **values) -> int:
    """Run one guarded UPDATE and return the matched rows."""
    stmt = update(model).where(*where).values(**values).execution_options(synchronize_session=False)
    return db.session.execute(stmt).rowcount


def record(source: str, started_at: datetime, finished_at: datetime, processed: int) -> None:
    """Add one run to its source's row: last run in place, totals summed (one row per source)."""
    _ensure(PumpRun, source=source)
    ms = max(int((finished_at - started_at).total_seconds() * 1000), 0)
    R = PumpRun
    _update(R, R.source == source, runs=R.runs + 1, processed_total=R.processed_total + processed,
            ms_total=R.ms_total + ms, last_started_at=started_at, last_finished_at=finished_at,
            last_ms=ms, last_processed=processed)


def all_runs() -> list[PumpRun]:
    """Return every source's row."""
    return list(db.session.execute(select(PumpRun).order_by(PumpRun.source)).scalars())


def watch() -> CronWatch | None:
    """Return the watch row, or None before anything created it."""
    return db.session.get(W, WATCH_ID, populate_existing=True)


def cron_seen(now: datetime) -> None:
    """Cron (or a CLI pump) runs now: move last_cron_at and end the outage, so a later one is alerted anew."""
    _ensure(W, id=WATCH_ID)
    _update(W, W.id == WATCH_ID, last_cron_at=now, alerted_at=None)


def claim_alert(now: datetime, cutoff: datetime) -> bool:
    """True for exactly one caller per outage: cron not seen since cutoff, and this outage not alerted yet."""
    _ensure(W, id=WATCH_ID)
    return _update(W, W.id == WATCH_ID, W.alerted_at.is_(None),
                   or_(W.last_cron_at.is_(None), W.last_cron_at < cutoff), alerted_at=now) == 1


def take_slice(token: str, now: datetime, until: datetime) -> bool:
    """Take the fallback's bot-wide lease if it is free or expired (a crashed slice frees it by time)."""
    _ensure(W, id=WATCH_ID)
    return _update(W, W.id == WATCH_ID, or_(W.slice_until.is_(None), W.slice_until < now),
                   slice_token=token, slice_until=until) == 1


def release_slice(token: str) -> None:
    """Give the fallback's lease back (no-op if it expired and another slice took it)."""
    _update(W, W.id == WATCH_ID, W.slice_token == token, slice_token=None, slice_until=None)


def waiting_jobs(now: datetime, grace: timedelta) -> list[tuple[int, str, datetime, int, int]]:
    """Return (id, status, waiting since, total, processed) of work cron should drain.

    Queued and running jobs wait since they were created (or started); a
    scheduled job waits once due and within grace (a missed one waits for the
    admins, not for cron).
    """
    processed = J.sent_count + J.failed_count + J.skipped_count + J.unknown_count + J.gone_count + J.too_old_count
    since = func.coalesce(J.started_at, J.created_at)
    active = select(J.id, J.status, since, J.total_count, processed).where(J.status.in_((QUEUED, RUNNING)))
    due = select(J.id, J.status, J.send_at, J.total_count, processed).where(
        J.status == SCHEDULED, J.missed_at.is_(None), J.send_at <= now, J.send_at >= now - grace)
    rows = list(db.session.execute(active.union_all(due)).all())
    return sorted((r[0], str(r[1]), r[2], r[3], r[4]) for r in rows)
