"""The shared Telegram budget's SQL: one short autocommit statement per operation.

Times are integer microseconds since the Unix epoch on the DATABASE's clock,
read inside each statement, so every app server measures against one clock.

Why this is safe under concurrency: each write is ONE statement that reads
the row, computes the new value and writes it. InnoDB takes the row's
exclusive lock before evaluating the update (a locking, latest-committed
read), and SQLite runs the statement under its single write lock; either way
two processes reserving at once are serialised inside the statement, and the
second one computes from the first one's result, so their slots are
disjoint. Nothing is held across an HTTP call: each statement commits
(autocommit) on its own pooled connection, outside any ORM session, so worker
threads without a Flask app context can call these functions.
"""
from __future__ import annotations

import threading
from functools import lru_cache
from typing import NamedTuple

from sqlalchemy import create_engine, text
from sqlalchemy.engine import Engine, make_url
from sqlalchemy.exc import DBAPIError

from app.config import engine_options

# "Now" in µs, evaluated once per statement by the database itself. MySQL's
# UTC_TIMESTAMP(6) minus the epoch literal does no time zone conversion.
_NOW = {
    "mysql": "TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', UTC_TIMESTAMP(6))",
    "sqlite": "CAST((julianday('now') - 2440587.5) * 86400000000 AS INTEGER)",
}
NO_LIMIT_US = 10 ** 13  # ~116 days: "wait as long as it takes"
_US = 1_000_000  # microseconds per second
# One connection per process (engine_options: pool_size 1, no overflow): each
# statement holds it for one round trip and no caller holds it while waiting
# for anything else, so the send threads take turns on it instead of opening
# more (a shared host's max_user_connections counts every one).
_ENGINES: dict[str, Engine] = {}
_ENGINES_LOCK = threading.Lock()


class Reservation(NamedTuple):
    """Slots reserved on a lane: the first starts at ``start_us`` (database clock).

    ``now_us`` is the database's "now" inside the statement on SQLite; MySQL
    returns one value per statement (LAST_INSERT_ID), so it is None there and
    callers use an anchored clock (``now_us()`` once, then monotonic time).
    ``held`` says a 429 hold was running at that "now": when False, the
    booking doubles as a fresh read of the hold (nothing holds the lane).
    ``others`` says another process's calls on the lane may still be
    unanswered (see reserve): False only for the lane's owner, alone on it.
    """

    start_us: int
    now_us: int | None
    held: bool = False
    others: bool = True


def _kind(engine: Engine) -> str:
    """Return 'mysql' (MySQL and MariaDB) or 'sqlite'."""
    name = engine.dialect.name
    if name in ("mysql", "mariadb"):
        return "mysql"
    if name == "sqlite":
        return "sqlite"
    raise NotImplementedError(f"telegram budget: unsupported database {name!r}")


def budget_engine(source: Engine | str) -> Engine:
    """Return this process's autocommit engine for the budget, on the same database as ``source``.

    With the app's engine each statement costs 7 MySQL round trips (ping,
    SET AUTOCOMMIT on and off, ROLLBACK, isolation level, COMMIT); a pool
    whose connections stay in autocommit, with no ping and no rollback on
    return, sends the statement alone. One engine per URL per process.
    """
    url = source.url if isinstance(source, Engine) else make_url(source)
    if url.get_backend_name() == "sqlite" and url.database in (None, "", ":memory:"):
        return source if isinstance(source, Engine) else create_engine(url)  # a second pool would be another database
    key = url.render_as_string(hide_password=False)
    with _ENGINES_LOCK:
        if key not in _ENGINES:
            options = dict(engine_options(key), isolation_level="AUTOCOMMIT", skip_autocommit_rollback=True,
                           pool_pre_ping=False)
            _ENGINES[key] = create_engine(url, **options)
        return _ENGINES[key]


@lru_cache(maxsize=64)
def _statement(sql: str):
    """Return the text() of one of this module's statements, built once (a paid broadcast books ~70 times a second)."""
    return text(sql)


def _execute(engine: Engine, sql: str, params: dict):
    """Run one statement in autocommit on its own connection; return (rows, MySQL lastrowid or rowcount).

    Retried once on a dropped connection (no ping before use): a repeated
    reservation only wastes slots, it never hands one out twice.
    """
    for attempt in (1, 2):
        try:
            with engine.connect() as conn:
                conn = conn.execution_options(isolation_level="AUTOCOMMIT")
                result = conn.execute(_statement(sql), params)
                rows = result.fetchall() if result.returns_rows else []
                return rows, (result.lastrowid if _kind(engine) == "mysql" else result.rowcount)
        except DBAPIError as exc:
            if attempt == 2 or not exc.connection_invalidated:
                raise


def now_us(engine: Engine) -> int:
    """Return the database's current time in µs since the epoch."""
    rows, _ = _execute(engine, f"SELECT {_NOW[_kind(engine)]}", {})
    return int(rows[0][0])


def reserve(engine: Engine, lane: str, n: int, interval_us: int, max_wait_us: int, *, me: int = 0,
            busy_us: int = 0) -> Reservation | None:
    """Reserve ``n`` consecutive slots on ``lane``; None (reserving nothing) if the first is too late.

    The first slot starts at GREATEST(next_us, hold_until_us, now): never
    before the previous reservation's last slot plus one interval (no catch-up
    credit: an idle lane restarts at "now"), never inside a 429 hold. The lane
    row is created by the same statement if it is missing (an upsert). Safe
    under concurrency: the upsert locks the row (InnoDB) or runs under
    SQLite's write lock, so the read of next_us and its advance by n*interval
    are one step; a concurrent reservation starts where this one ended.

    The same statement says who else is busy on the lane. Booker ``me`` (a
    process's random id) may have calls unanswered until its last slot plus
    ``busy_us``: as the lane's owner (it owned it, or the owner's window ran
    out) that extends owner_until_us, else others_until_us. The reservation's
    ``others`` is False only when ``me`` owns the lane and nobody else's
    window is open (its own, from before it owned the lane, does not count):
    then no other process can have a call in flight that could draw a 429
    before this reservation's slots (any later booking starts after them),
    so the hold need not be read again for them.
    """
    kind = _kind(engine)
    now = _NOW[kind]
    params = {"lane": lane, "span": n * interval_us, "limit": max_wait_us, "me": me, "busy": busy_us}
    if kind == "mysql":
        return _reserve_mysql(engine, now, params, n * interval_us)
    start = f"MAX(next_us, hold_until_us, {now})"
    busy_until = f"{start} + :span + :busy"
    mine = f"(owner_id = :me OR owner_until_us < {now})"
    rows, _ = _execute(engine, (
        f"INSERT INTO {_COLUMNS} VALUES (:lane, {now} + :span, 0, :me, {now} + :span + :busy, 0, 0) "
        "ON CONFLICT(lane) DO UPDATE SET "
        f"others_id = CASE WHEN {mine} THEN others_id WHEN others_until_us < {now} OR others_id = :me THEN :me "
        "ELSE 0 END, "
        f"others_until_us = CASE WHEN {mine} THEN others_until_us ELSE MAX(others_until_us, {busy_until}) END, "
        f"owner_id = CASE WHEN {mine} THEN :me ELSE owner_id END, "
        f"owner_until_us = CASE WHEN {mine} THEN MAX(CASE WHEN owner_id = :me THEN owner_until_us ELSE 0 END, "
        f"{busy_until}) ELSE owner_until_us END, "
        f"next_us = {start} + :span WHERE {start} <= {now} + :limit "
        f"RETURNING next_us, {now}, hold_until_us, {_OTHERS.format(now=now)}"), params)
    if not rows:
        return None
    next_us, now_value, hold_us, others = (int(v) for v in rows[0])
    return Reservation(next_us - n * interval_us, now_value, hold_us > now_value, bool(others))


# The row as reserve() inserts it, and who else is busy for booker :me, read from the row it leaves.
_COLUMNS = "telegram_budget (lane, next_us, hold_until_us, owner_id, owner_until_us, others_id, others_until_us)"
_OTHERS = "(owner_id <> :me OR (others_until_us > {now} AND others_id <> :me))"


def _reserve_mysql(engine: Engine, now: str, params: dict, span_us: int) -> Reservation | None:
    """reserve() on MySQL/MariaDB: its answer comes back through LAST_INSERT_ID in the OK packet.

    MySQL assigns ON DUPLICATE KEY UPDATE's columns left to right, each later
    one seeing the earlier ones' new values, so the order matters: the
    activity columns read the old next_us (whether the booking is granted,
    and its end) and the old owner, others_id before others_until_us, the
    owner's window after owner_id; next_us comes last, handing back its new
    value times 4, plus 2 if a hold is running, plus 1 if others are busy
    (read from the activity columns just written); 0 when refused.
    """
    start = f"GREATEST(next_us, hold_until_us, {now})"
    ok = f"({start} <= {now} + :limit)"
    busy_until = f"{start} + :span + :busy"
    mine = f"(owner_id = :me OR owner_until_us < {now})"
    new = f"{start} + :span"
    answer = f"({new}) * 4 + (hold_until_us > {now}) * 2 + {_OTHERS.format(now=now)}"
    _, value = _execute(engine, (
        f"INSERT INTO {_COLUMNS} VALUES (:lane, {now} + :span + 0 * LAST_INSERT_ID(({now} + :span) * 4), 0, :me, "
        f"{now} + :span + :busy, 0, 0) ON DUPLICATE KEY UPDATE "
        f"others_id = IF({ok} AND NOT {mine}, IF(others_until_us < {now} OR others_id = :me, :me, 0), others_id), "
        f"others_until_us = IF({ok} AND NOT {mine}, GREATEST(others_until_us, {busy_until}), others_until_us), "
        f"owner_id = IF({ok} AND {mine}, :me, owner_id), "
        f"owner_until_us = IF({ok} AND owner_id = :me, GREATEST(owner_until_us, {busy_until}), owner_until_us), "
        f"next_us = IF({ok}, {new} + 0 * LAST_INSERT_ID({answer}), next_us + LAST_INSERT_ID(0))"),
        params)
    if not value:
        return None
    value = int(value)
    return Reservation(value // 4 - span_us, None, bool(value & 2), bool(value & 1))


def release_owner(engine: Engine, lane: str, me: int, until_us: int) -> None:
    """End ``me``'s ownership window at ``until_us`` if it reaches later (its long calls are answered)."""
    least = "LEAST" if _kind(engine) == "mysql" else "MIN"
    _execute(engine, f"UPDATE telegram_budget SET owner_until_us = {least}(owner_until_us, :until) "
                     "WHERE lane = :lane AND owner_id = :me", {"lane": lane, "me": me, "until": until_us})


def hold(engine: Engine, lanes: tuple[str, ...], retry_after_s: float) -> None:
    """Hold ``lanes`` until now + retry_after (a 429): no slot on them starts earlier.

    GREATEST keeps the later of two holds, so two processes recording 429s at
    once (in either order) leave the longer one; the upsert's row lock makes
    each read-compare-write atomic.
    """
    kind = _kind(engine)
    until = f"{_NOW[kind]} + :delay"
    params = {"delay": max(0, int(retry_after_s * _US))}
    values = []
    for i, lane in enumerate(lanes):
        params[f"lane{i}"] = lane
        values.append(f"(:lane{i}, 0, {until})")
    if kind == "mysql":
        tail = f"ON DUPLICATE KEY UPDATE hold_until_us = GREATEST(hold_until_us, {until})"
    else:
        tail = "ON CONFLICT(lane) DO UPDATE SET hold_until_us = MAX(hold_until_us, excluded.hold_until_us)"
    _execute(engine, f"INSERT INTO telegram_budget (lane, next_us, hold_until_us) VALUES {', '.join(values)} {tail}",
             params)


def read_lane(engine: Engine, lane: str) -> tuple[int, int, int]:
    """Return (next_us, hold_until_us, now_us) for a lane; zeros for a lane never used."""
    kind = _kind(engine)
    rows, _ = _execute(engine, (
        f"SELECT t.next_us, t.hold_until_us, n.now_us FROM (SELECT {_NOW[kind]} AS now_us) AS n "
        "LEFT JOIN telegram_budget AS t ON t.lane = :lane"), {"lane": lane})
    next_us, hold_us, now = rows[0]
    return int(next_us or 0), int(hold_us or 0), int(now)


def reserve_chat(engine: Engine, chat_id: int, interval_us: int, max_wait_us: int,
                 not_before_us: int = 0) -> Reservation | None:
    """Reserve the chat's next slot, not before ``not_before_us``; None (nothing reserved) if past now + max_wait.

    Same shape and safety as reserve(): one upsert, serialised by the row
    lock or SQLite's write lock, so two processes writing to one chat (a
    progress edit and a reply) get slots at least ``interval`` apart.
    """
    kind = _kind(engine)
    now = _NOW[kind]
    params = {"chat": chat_id, "iv": interval_us, "limit": max_wait_us, "nb": not_before_us}
    if kind == "mysql":
        start = f"GREATEST(next_us, {now}, :nb)"
        _, value = _execute(engine, (
            f"INSERT INTO telegram_chat_pace (chat_id, next_us) "
            f"VALUES (:chat, LAST_INSERT_ID(GREATEST({now}, :nb) + :iv)) "
            f"ON DUPLICATE KEY UPDATE next_us = IF({start} <= {now} + :limit, "
            f"LAST_INSERT_ID({start} + :iv), next_us + LAST_INSERT_ID(0))"), params)
        return Reservation(int(value) - interval_us, None) if value else None  # LAST_INSERT_ID: the new next_us
    start = f"MAX(next_us, {now}, :nb)"
    rows, _ = _execute(engine, (
        f"INSERT INTO telegram_chat_pace (chat_id, next_us) VALUES (:chat, MAX({now}, :nb) + :iv) "
        f"ON CONFLICT(chat_id) DO UPDATE SET next_us = {start} + :iv WHERE {start} <= {now} + :limit "
        f"RETURNING next_us, {now}"), params)
    if not rows:
        return None
    return Reservation(int(rows[0][0]) - interval_us, int(rows[0][1]))


def reserve_chats(engine: Engine, slots: list[tuple[int, int]], interval_us: int) -> set[int]:
    """Book each chat at its own slot ((chat id, µs) pairs) if it is free by then; return the chats booked.

    One statement for a whole block of broadcast copies (two on MySQL, which
    reads the rows back): a chat whose next_us is past its slot (a reply or a
    429 booked it) is left as it is and is not in the answer, so its copy
    waits for a later block. A chat booked by someone else right after this
    statement reads back as not ours either: its copy waits too (the safe way).
    """
    if not slots:
        return set()
    values = ", ".join(f"({int(chat)}, {int(at) + interval_us})" for chat, at in slots)
    if _kind(engine) == "sqlite":
        rows, _ = _execute(engine, (
            f"INSERT INTO telegram_chat_pace (chat_id, next_us) VALUES {values} "
            "ON CONFLICT(chat_id) DO UPDATE SET next_us = excluded.next_us "
            "WHERE next_us <= excluded.next_us - :iv RETURNING chat_id"), {"iv": interval_us})
        return {int(r[0]) for r in rows}
    _execute(engine, (
        f"INSERT INTO telegram_chat_pace (chat_id, next_us) VALUES {values} ON DUPLICATE KEY UPDATE "
        "next_us = IF(next_us <= VALUES(next_us) - :iv, VALUES(next_us), next_us)"), {"iv": interval_us})
    ours = {int(chat): int(at) + interval_us for chat, at in slots}
    rows, _ = _execute(engine, f"SELECT chat_id, next_us FROM telegram_chat_pace WHERE chat_id IN "
                               f"({', '.join(str(c) for c in ours)})", {})
    return {int(chat) for chat, next_us in rows if ours.get(int(chat)) == int(next_us)}


def hold_chat(engine: Engine, chat_id: int, until_us: int) -> None:
    """Send nothing to the chat before ``until_us`` (a per-chat 429); keeps the later time."""
    greatest = "GREATEST" if _kind(engine) == "mysql" else "MAX"
    tail = (f"ON DUPLICATE KEY UPDATE next_us = {greatest}(next_us, :until)" if _kind(engine) == "mysql"
            else f"ON CONFLICT(chat_id) DO UPDATE SET next_us = {greatest}(next_us, excluded.next_us)")
    _execute(engine, f"INSERT INTO telegram_chat_pace (chat_id, next_us) VALUES (:chat, :until) {tail}",
             {"chat": chat_id, "until": until_us})


def chat_next_us(engine: Engine, chat_id: int) -> int | None:
    """Return when the chat may next receive a message (µs, database clock), or None if untracked."""
    rows, _ = _execute(engine, "SELECT next_us FROM telegram_chat_pace WHERE chat_id = :chat", {"chat": chat_id})
    return int(rows[0][0]) if rows else None


def prune_chats(engine: Engine, older_than_s: float) -> int:
    """Delete chats free for longer than ``older_than_s``; return how many.

    A broadcast touches each of 40k chats once; without pruning the table
    would keep all of them. A chat deleted here is free anyway, and a
    concurrent reservation either ran first (then its row is recent and not
    deleted) or recreates the row.
    """
    with engine.connect() as conn:
        conn = conn.execution_options(isolation_level="AUTOCOMMIT")
        result = conn.execute(text(f"DELETE FROM telegram_chat_pace WHERE next_us < {_NOW[_kind(engine)]} - :age"),
                              {"age": int(older_than_s * _US)})
        return result.rowcount
