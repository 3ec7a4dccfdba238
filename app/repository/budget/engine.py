"""What the budget's statements share: the database's "now", Reservation, this process's engine, one statement run."""
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
