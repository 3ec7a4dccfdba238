"""The chats' statements (telegram_chat_pace): a chat's slot, a block's slots, a chat's hold, its read, pruning."""
from __future__ import annotations

from sqlalchemy import text
from sqlalchemy.engine import Engine

from app.repository.budget.engine import _NOW, _US, Reservation, _execute, _kind


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
