"""Item rows as the pump moves them: its claims, in-flight marks and outcomes, and the users found blocked.

A pump only touches items after fence() in the same transaction proved it
holds the job's lease, so no two pumps ever write the same job's items.
"""
from __future__ import annotations

import json
from collections.abc import Iterable
from datetime import datetime
from functools import lru_cache

from sqlalchemy import DateTime, bindparam, select, update

from app.extensions import db
from app.models.base import fit
from app.models.broadcast import ITEM_FAILED, PENDING, SENDING, SENT, UNKNOWN, BroadcastJobItem
from app.models.user import User
from app.repository.row_first import by_primary_key

I = BroadcastJobItem  # noqa: E741  (short alias keeps the SQL readable)
TABLE = BroadcastJobItem.__tablename__
_T = BroadcastJobItem.__table__
# The pump's claim read (a plain send's), built once: see _run_listed for why.
_NEXT_PENDING = (select(_T.c.id, _T.c.user_id)
                 .where(_T.c.job_id == bindparam("job_id"), _T.c.status == bindparam("pending"),
                        _T.c.id > bindparam("after"))
                 .order_by(_T.c.id).limit(bindparam("n")))


def _id_list(ids: Iterable[int]) -> str:
    """Return ids as an SQL list of integer literals (int() lets nothing else through)."""
    return ",".join(str(int(i)) for i in ids)


@lru_cache(maxsize=8)
def _datetime_processor(dialect):
    """Return how SQLAlchemy's DateTime binds a datetime for this dialect (SQLite: its text form), or None."""
    return DateTime().dialect_impl(dialect).bind_processor(dialect)


def _run_listed(sql: str, *values) -> int:
    """Run one UPDATE whose id lists are inlined integers, its values as ? markers; return the rows it matched.

    The pump's per-step writes name a different list of items each time (a
    paid broadcast runs ~70 steps a second): as SQLAlchemy expressions, building,
    cache-keying and compiling each one cost several times running it, so they
    go to the driver as SQL with the values bound by it, in the session's transaction.
    """
    conn = db.session.connection()
    dialect = conn.dialect
    if dialect.paramstyle != "qmark":  # PyMySQL: format / pyformat
        sql = sql.replace("?", "%s")
    to_db = _datetime_processor(dialect)
    if to_db is not None:
        values = tuple(to_db(v) if isinstance(v, datetime) else v for v in values)
    return conn.exec_driver_sql(sql, tuple(values)).rowcount


def next_pending_targets(job_id: int, after_id: int, limit: int) -> list[tuple]:
    """Like next_pending_named, with each item's copy: (item id, user id, message id, part ids, first name, language).

    The copy is what an action job deletes or edits; part ids (a list) only
    for an album, None for items sent before they were recorded. The name
    serves an edit with a personal greeting; one join, as for a send.
    """
    rows = db.session.execute(
        select(I.id, I.user_id, I.message_id, I.message_ids, User.first_name, User.language_code, I.variant)
        .outerjoin(User, User.id == I.user_id)
        .where(I.job_id == job_id, I.status == PENDING, I.id > after_id).order_by(I.id).limit(limit)
    )
    return [(r[0], r[1], r[2], json.loads(r[3]) if r[3] else None, r[4], r[5], r[6]) for r in rows]


def next_pending(job_id: int, after_id: int, limit: int) -> list[tuple[int, int]]:
    """Return up to limit (item id, user id) pending items after after_id, in id order."""
    rows = db.session.execute(_NEXT_PENDING, {"job_id": job_id, "pending": PENDING, "after": after_id, "n": limit})
    return [(r[0], r[1]) for r in rows]


def next_pending_variants(job_id: int, after_id: int, limit: int) -> list[tuple[int, int, str | None]]:
    """Like next_pending, with each item's language variant: (item id, user id, variant or None)."""
    rows = db.session.execute(
        select(I.id, I.user_id, I.variant).where(I.job_id == job_id, I.status == PENDING, I.id > after_id)
        .order_by(I.id).limit(limit)
    )
    return [(r[0], r[1], r[2] or None) for r in rows]


def next_pending_named(job_id: int, after_id: int, limit: int) -> list[tuple]:
    """Like next_pending, with each recipient's first name and language (personal greetings); one join.

    Rows are (item id, user id, first name, language code, variant).
    """
    rows = db.session.execute(
        select(I.id, I.user_id, User.first_name, User.language_code, I.variant).outerjoin(User, User.id == I.user_id)
        .where(I.job_id == job_id, I.status == PENDING, I.id > after_id).order_by(I.id).limit(limit)
    )
    return [(r[0], r[1], r[2], r[3], r[4]) for r in rows]


def mark_sending(ids: list[int]) -> int:
    """pending -> sending for items about to be dispatched."""
    if not ids:
        return 0
    return _run_listed(f"UPDATE {TABLE} SET status = ? WHERE id IN ({_id_list(ids)}) AND status = ?", SENDING, PENDING)


def set_done(ids: list[int], now: datetime) -> int:
    """sending -> sent for an action job's items, keeping each item's message id (the copy acted on)."""
    if not ids:
        return 0
    stmt = update(I).where(I.id.in_(ids), I.status == SENDING).values(status=SENT, error=None, sent_at=now)
    return db.session.execute(stmt.execution_options(synchronize_session=False)).rowcount


def set_sent(sent: list[tuple[int, int | None]], now: datetime,
             parts: dict[int, Iterable[int]] | None = None, settled_since: datetime | None = None) -> int:
    """sending -> sent, each item with its own message id (an album: its parts' ids too), in one UPDATE.

    One statement per batch however wide the window (an executemany would be
    one round trip per item on PyMySQL): a CASE on the id per column, written
    as the driver's SQL (see _run_listed). The status guard makes a replay of
    the same plan change nothing, so counters move by the rows really changed.
    settled_since: a late answer instead; unknown -> sent for items settled
    unknown at or after it (a pump that lost its lease heard back after all).
    """
    if not sent:
        return 0
    guard, guard_values = ("status = ?", (SENDING,)) if settled_since is None else (
        "status = ? AND sent_at >= ?", (UNKNOWN, settled_since))
    known = [f"WHEN {int(item_id)} THEN {int(message_id)}" for item_id, message_id in sent if message_id is not None]
    message_id = f"CASE id {' '.join(known)} ELSE NULL END" if known else "NULL"
    albums = [(int(item_id), json.dumps(list(part_ids))) for item_id, part_ids in (parts or {}).items()]
    message_ids = f"CASE id {' '.join(f'WHEN {i} THEN ?' for i, _ in albums)} ELSE NULL END" if albums else "NULL"
    ids = _id_list(item_id for item_id, _ in sent)
    return _run_listed(f"UPDATE {TABLE} SET status = ?, error = NULL, sent_at = ?, message_id = {message_id}, "
                       f"message_ids = {message_ids} WHERE id IN ({ids}) AND {guard}",
                       SENT, now, *(part_ids for _, part_ids in albums), *guard_values)


def set_final(ids: list[int], status: str, now: datetime, error: str | None = None) -> int:
    """sending -> a final status (or back to pending) for items that share one outcome."""
    if not ids:
        return 0
    values = {"status": status, "error": fit(I.error, error or None)}
    if status in (SENT, UNKNOWN):
        values["sent_at"] = now  # unknown: when its answer was given up (a copy may still land after)
    stmt = update(I).where(I.id.in_(ids), I.status == SENDING).values(**values)
    return db.session.execute(stmt.execution_options(synchronize_session=False)).rowcount


def reopen_failed(ids: list[int]) -> int:
    """failed -> pending for items the circuit breaker judged not at fault."""
    if not ids:
        return 0
    stmt = update(I).where(I.id.in_(ids), I.status == ITEM_FAILED).values(status=PENDING, error=None)
    return db.session.execute(stmt.execution_options(synchronize_session=False)).rowcount


def expire_orphans(job_id: int, redo: bool = False, now: datetime | None = None) -> int:
    """sending -> unknown for items a dead pump left in flight, settled at now; never re-sent.

    Called by the new lease holder: any item still 'sending' belongs to a pump
    whose lease expired, and its request may or may not have reached Telegram.
    Its sent_at is when it was settled: a copy may still land a while after
    (app.services.broadcast.sending.landing).
    redo (action jobs): a delete or an edit is safe to repeat, so they go back to pending.
    """
    values = {"status": PENDING, "error": None} if redo else {
        "status": UNKNOWN, "error": "outcome unknown: the pump sending it stopped", "sent_at": now}
    stmt = update(I).where(I.job_id == job_id, I.status == SENDING).values(**values)
    return db.session.execute(stmt.execution_options(synchronize_session=False)).rowcount


def block_users(user_ids: Iterable[int], now: datetime) -> None:
    """Mark users who blocked the bot so no future audience includes them.

    The pump runs it before its lease fence: a user's row before a job's, the one lock order (presses.py).
    """
    ids = list(user_ids)
    if ids:
        stmt = by_primary_key(update(User).where(User.id.in_(ids), User.is_blocked.is_(False))
                              .values(is_blocked=True, blocked_at=now))
        db.session.execute(stmt.execution_options(synchronize_session=False))
