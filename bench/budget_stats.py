"""Count the bot-wide budget's statements by kind (reservations, hold reads, chat pacing), for benchmarks.

Listens on the budget's own autocommit engine (app/repository/budget/engine.py
`budget_engine`), never changing what it runs. Kinds come from the SQL text and,
for reservations, the lane parameter.
"""
from __future__ import annotations

import threading
from collections import Counter


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
