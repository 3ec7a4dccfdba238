"""Timers and counters wrapped around the engine (never changing what it does), for benchmarks.

SendTrace (Pump.send), StepTimer (Recorder.step), Connections (the most held at once),
DbClock (database time and statements), BudgetStatements (the bot-wide budget's statements by kind).
"""
from __future__ import annotations

import threading
import time
from collections import Counter


class SendTrace:
    """Time every Pump.send (a worker's HTTP call) and the pump thread's rate-slot waits.

    in_flight_avg = total send time / wall (Little's law): below the window
    means the pump thread does not keep the window full; call_ms is one send's
    HTTP round trip; slot_ms_item is the pump thread's wait for rate slots per
    item (Pump.take_slots, where the engine has it).
    """

    def __init__(self):
        from app.services.broadcast.sending.pump import Pump

        self.calls: list[float] = []
        self.slots = 0.0
        self._orig = {name: getattr(Pump, name) for name in ("send", "take_slots") if hasattr(Pump, name)}
        trace = self

        def send(pump, *args, **kwargs):
            t0 = time.perf_counter()
            try:
                return trace._orig["send"](pump, *args, **kwargs)
            finally:
                trace.calls.append(time.perf_counter() - t0)

        def take_slots(pump, *args, **kwargs):
            t0 = time.perf_counter()
            try:
                return trace._orig["take_slots"](pump, *args, **kwargs)
            finally:
                trace.slots += time.perf_counter() - t0

        Pump.send = send
        if "take_slots" in self._orig:
            Pump.take_slots = take_slots

    def close(self, wall: float) -> dict:
        from app.services.broadcast.sending.pump import Pump

        for name, fn in self._orig.items():
            setattr(Pump, name, fn)
        n = max(len(self.calls), 1)
        return {"call_ms": round(1000 * sum(self.calls) / n, 2),
                "in_flight_avg": round(sum(self.calls) / wall, 2) if wall else 0.0,
                "slot_ms_item": round(1000 * self.slots / n, 2)}


class StepTimer:
    """Wrap Recorder.step to sum its wall time (the pump thread's database transactions)."""

    def __init__(self):
        from app.services.broadcast.sending.recorder import Recorder

        self.seconds = 0.0
        self.calls = 0
        self._orig = Recorder.step
        timer = self

        def step(recorder, done, want, in_flight, stop=None):
            t = time.perf_counter()
            try:
                return timer._orig(recorder, done, want, in_flight, stop)
            finally:
                timer.seconds += time.perf_counter() - t
                timer.calls += 1

        Recorder.step = step

    def close(self):
        from app.services.broadcast.sending.recorder import Recorder

        Recorder.step = self._orig


class Connections:
    """The most database connections the engines held open at once (a host's max_user_connections counts these)."""

    def __init__(self, *engines):
        from sqlalchemy import event

        self.pools = [engine.pool for engine in engines]
        self.peak = self._open()
        self._lock = threading.Lock()
        for engine in engines:
            event.listen(engine, "connect", self._seen)
            event.listen(engine, "checkout", self._seen)

    def _open(self) -> int:
        """Return the connections the pools hold now (checked in and out); a pool that cannot say counts 1."""
        total = 0
        for pool in self.pools:
            try:
                total += pool.checkedin() + pool.checkedout()
            except (AttributeError, NotImplementedError):
                total += 1
        return total

    def _seen(self, *args) -> None:
        with self._lock:
            self.peak = max(self.peak, self._open())


class DbClock:
    """Sum the time spent in the database: every cursor execute plus every COMMIT/ROLLBACK."""

    def __init__(self, engine):
        from sqlalchemy import event

        self.engine = engine
        self._local = threading.local()
        self.reset()
        event.listen(engine, "before_cursor_execute", self._before)
        event.listen(engine, "after_cursor_execute", self._after)
        dialect = engine.dialect
        self._orig = (dialect.do_commit, dialect.do_rollback)
        dialect.do_commit = self._timed(self._orig[0], "commit")
        dialect.do_rollback = self._timed(self._orig[1], "rollback")

    def reset(self) -> None:
        self.statements = 0
        self.execute_s = 0.0
        self.commits = 0
        self.commit_s = 0.0

    def _before(self, conn, cursor, statement, parameters, context, executemany):
        self._local.t = time.perf_counter()

    def _after(self, conn, cursor, statement, parameters, context, executemany):
        self.execute_s += time.perf_counter() - self._local.t
        self.statements += 1

    def _timed(self, fn, kind):
        def wrapper(dbapi_connection):
            t = time.perf_counter()
            try:
                return fn(dbapi_connection)
            finally:
                if kind == "commit":
                    self.commits += 1
                    self.commit_s += time.perf_counter() - t
                else:
                    self.commit_s += time.perf_counter() - t
        return wrapper

    @property
    def total_s(self) -> float:
        return self.execute_s + self.commit_s

    def close(self) -> None:
        from sqlalchemy import event

        event.remove(self.engine, "before_cursor_execute", self._before)
        event.remove(self.engine, "after_cursor_execute", self._after)
        self.engine.dialect.do_commit, self.engine.dialect.do_rollback = self._orig


# -- the bot-wide budget's statements by kind ----------------------------------------------------


def kind_of(statement: str, parameters: dict) -> str:
    """Name one budget statement: reserve:<lane>, chat_reserve, read_lane, hold, chat_hold, chat_read, now, prune."""
    sql = " ".join(statement.split())
    if sql.startswith("INSERT INTO telegram_budget"):
        if "hold_until_us = GREATEST(hold_until_us" in sql or "hold_until_us = MAX(hold_until_us" in sql:
            return "hold"
        return f"reserve:{parameters.get('lane', '?')}"
    if sql.startswith("INSERT INTO telegram_chat_pace"):
        return "chat_reserve" if "LAST_INSERT_ID" in sql or "RETURNING" in sql else "chat_hold"
    if sql.startswith("SELECT t.next_us"):
        return "read_lane"
    if sql.startswith("SELECT next_us FROM telegram_chat_pace"):
        return "chat_read"
    if sql.startswith("DELETE FROM telegram_chat_pace"):
        return "prune"
    if sql.startswith("SELECT"):
        return "now"
    return "other"


class BudgetStatements:
    """Count statements on the budget engine, by kind, until close()."""

    def __init__(self, engine):
        from sqlalchemy import event

        self.engine = engine
        self.counts: Counter[str] = Counter()
        self._lock = threading.Lock()
        event.listen(engine, "before_cursor_execute", self._count)

    def _count(self, conn, cursor, statement, parameters, context, executemany):
        # The bound parameters by name (the cursor's own are a tuple on SQLite).
        params = (context.compiled_parameters or [{}])[0] if context is not None else {}
        with self._lock:
            self.counts[kind_of(statement, params)] += 1

    @property
    def total(self) -> int:
        return sum(self.counts.values())

    def per(self, n: int) -> dict:
        """Statements of each kind per n (items or slots), rounded."""
        return {k: round(v / max(n, 1), 3) for k, v in sorted(self.counts.items())}

    def close(self) -> None:
        from sqlalchemy import event

        event.remove(self.engine, "before_cursor_execute", self._count)
