"""The database's clock: the one time source every app server shares.

Leases and Telegram's retry_after are compared across processes and
servers; each server's own clock may be off by seconds, the database's is
the same for all of them.
"""
from __future__ import annotations

import time
from collections.abc import Callable
from datetime import datetime, timedelta

from sqlalchemy import text

from app.extensions import db

_QUERY = {
    "mysql": "SELECT UTC_TIMESTAMP(6)",
    "mariadb": "SELECT UTC_TIMESTAMP(6)",
    "sqlite": "SELECT strftime('%Y-%m-%d %H:%M:%f', 'now')",
}


def db_utcnow() -> datetime:
    """Return the database server's current UTC time, naive, with sub-second precision."""
    name = db.session.get_bind().dialect.name
    value = db.session.execute(text(_QUERY.get(name, "SELECT CURRENT_TIMESTAMP"))).scalar_one()
    if isinstance(value, str):
        value = datetime.fromisoformat(value)
    return value.replace(tzinfo=None)


class DbClock:
    """The database's UTC time, read once and advanced by this process's monotonic clock.

    One SELECT per pump instead of one per statement; monotonic drift over a
    pump's minute is microseconds, far below any lease or retry_after margin.
    """

    def __init__(self, monotonic: Callable[[], float] = time.monotonic):
        self._monotonic = monotonic
        self._anchor = db_utcnow()
        self._anchor_mono = monotonic()

    def now(self) -> datetime:
        """Return the database's current UTC time (naive)."""
        return self._anchor + timedelta(seconds=self._monotonic() - self._anchor_mono)
