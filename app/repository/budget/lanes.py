"""The lanes' statements (telegram_budget): slots booked, who else is busy, 429 holds, a lane read, the clock."""
from __future__ import annotations

from sqlalchemy.engine import Engine

from app.repository.budget.engine import _NOW, _US, Reservation, _execute, _kind


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
    ``busy_us``: as the lane's owner (it owned it, or its window reaches
    later than the owner's, see _activity) that extends owner_until_us, else
    others_until_us. The reservation's ``others`` is False only when ``me``
    owns the lane and nobody else's window is open (its own, from before it
    owned the lane, does not count): then no other process can have a call in
    flight that could draw a 429 before this reservation's slots (any later
    booking starts after them), so the hold need not be read again for them.
    """
    kind = _kind(engine)
    now = _NOW[kind]
    params = {"lane": lane, "span": n * interval_us, "limit": max_wait_us, "me": me, "busy": busy_us}
    if kind == "mysql":
        return _reserve_mysql(engine, now, params, n * interval_us)
    start = f"MAX(next_us, hold_until_us, {now})"
    busy_until = f"{start} + :span + :busy"
    rows, _ = _execute(engine, (
        f"INSERT INTO {_COLUMNS} VALUES (:lane, {now} + :span, 0, :me, {now} + :span + :busy, 0, 0) "
        "ON CONFLICT(lane) DO UPDATE SET "
        f"{_activity(now, busy_until, 'MAX', 'CASE WHEN {c} THEN {a} ELSE {b} END')}, "
        f"next_us = {start} + :span WHERE {start} <= {now} + :limit "
        f"RETURNING next_us, {now}, hold_until_us, {_OTHERS.format(now=now)}"), params)
    if not rows:
        return None
    next_us, now_value, hold_us, others = (int(v) for v in rows[0])
    return Reservation(next_us - n * interval_us, now_value, hold_us > now_value, bool(others))


# The row as reserve() inserts it, and who else is busy for booker :me, read from the row it leaves.
_COLUMNS = "telegram_budget (lane, next_us, hold_until_us, owner_id, owner_until_us, others_id, others_until_us)"
_OTHERS = "(owner_id <> :me OR (others_until_us > {now} AND others_id <> :me))"


def _activity(now: str, busy_until: str, greatest: str, when: str, ok: str = "1") -> str:
    """The SET list of reserve()'s activity columns (others_id, others_until_us, owner_id, owner_until_us).

    Booker :me becomes the owner when its window (``busy_until``) reaches
    later than the owner's (a pump beside replies, or the owner's window ran
    out); a displaced owner whose window is still open moves into the others'
    window. Else :me joins the others' window. So whatever of :me's own window
    lies in the others' window ends before some other booker's window does:
    once every other booker's window has ended, :me is alone. ``when`` is the
    dialect's conditional with {c}, {a}, {b}; ``ok``: whether the booking is
    granted (MySQL, which has no WHERE on its upsert). Written in the order
    MySQL assigns them: each reads the old owner columns.
    """
    def iff(c: str, a: str, b: str) -> str:
        return when.format(c=c, a=a, b=b)

    took = f"({ok} AND owner_id <> :me AND owner_until_us < {busy_until})"  # :me takes the lane from its owner
    joins = f"({ok} AND owner_id <> :me AND owner_until_us >= {busy_until})"  # :me books beside the owner
    moved = f"({took} AND owner_until_us >= {now})"  # the displaced owner may still have calls unanswered
    # The others' window keeps one id while it holds one booker's calls (0: several).
    joined_id = iff(f"others_until_us < {now} OR others_id = :me", ":me", "0")
    moved_id = iff(f"others_until_us < {now} OR others_id = owner_id", "owner_id", "0")
    others_id = iff(joins, joined_id, iff(moved, moved_id, "others_id"))
    others_until = iff(joins, f"{greatest}(others_until_us, {busy_until})",
                       iff(moved, f"{greatest}(others_until_us, owner_until_us)", "others_until_us"))
    # SQLite reads the old owner_id here, MySQL the new one: either way a taken lane's window is :me's alone.
    owner_until = iff(f"({took} OR ({ok} AND owner_id = :me))",
                      f"{greatest}({iff(took, '0', 'owner_until_us')}, {busy_until})", "owner_until_us")
    return (f"others_id = {others_id}, others_until_us = {others_until}, owner_id = {iff(took, ':me', 'owner_id')}, "
            f"owner_until_us = {owner_until}")


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
    new = f"{start} + :span"
    answer = f"({new}) * 4 + (hold_until_us > {now}) * 2 + {_OTHERS.format(now=now)}"
    activity = _activity(now, f"{start} + :span + :busy", "GREATEST", "IF({c}, {a}, {b})", ok)
    _, value = _execute(engine, (
        f"INSERT INTO {_COLUMNS} VALUES (:lane, {now} + :span + 0 * LAST_INSERT_ID(({now} + :span) * 4), 0, :me, "
        f"{now} + :span + :busy, 0, 0) ON DUPLICATE KEY UPDATE {activity}, "
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
