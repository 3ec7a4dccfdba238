"""Per-connection database settings: SQLite WAL and busy wait, MySQL UTC; a wait at the connection limit."""
import logging
import time

from sqlalchemy import event
from sqlalchemy.engine import Engine

from app.db_errors import FIXES, TOO_MANY_CONNECTIONS, detail, mysql_code

log = logging.getLogger(__name__)

# A second SQLite writer waits this long for the first to commit. Every write
# transaction here is short (one update, one batch): a writer still waiting
# after this long is behind a stalled process, and fails instead of hanging.
SQLITE_BUSY_SECONDS = 30
# The server refuses a connection at a limit: "User ... already has more than
# 'max_user_connections' active connections" (1203, the server-wide setting), "User ...
# has exceeded the 'max_user_connections' resource" (1226, the user's own limit, as cPanel
# hosts set it) and "Too many connections" (1040). A slot frees when another process ends.
CONNECTION_LIMIT_ERRORS = (1040, 1203, 1226)
# A connection refused at the limit is asked for again after each of these waits (about
# 20 s in all, under POOL_TIMEOUT_SECONDS, so the process's other threads, queued for the
# same connection, hear the outcome rather than time out first); then the error is raised.
LIMIT_BACKOFF_SECONDS = (0.25, 0.5, 1, 2, 4, 4, 4, 4)
_installed = False


def install_engine_hooks() -> None:
    """Register connection hooks once per process for every engine."""
    global _installed
    if _installed:
        return
    _installed = True
    event.listen(Engine, "connect", _on_connect)
    event.listen(Engine, "do_connect", _connect_within_limit)


def _connect_within_limit(dialect, connection_record, cargs, cparams):
    """Open a MySQL connection, waiting and asking again while the server refuses it at its connection limit."""
    if dialect.name not in ("mysql", "mariadb"):
        return None  # the dialect connects as usual
    return connect_with_backoff(lambda: dialect.connect(*cargs, **cparams))


def connect_with_backoff(connect, backoff=LIMIT_BACKOFF_SECONDS, sleep=time.sleep):
    """Return connect()'s connection; at the connection limit log what to do, wait and try again, then raise."""
    started = time.monotonic()
    for attempt, wait in enumerate((*backoff, None)):
        try:
            connection = connect()
        except Exception as exc:
            if mysql_code(exc) not in CONNECTION_LIMIT_ERRORS:
                raise
            if wait is None:
                log.error("database: still refused after %.1f s at the connection limit (%s); giving up; %s",
                          time.monotonic() - started, detail(exc), FIXES[TOO_MANY_CONNECTIONS])
                raise
            if not attempt:
                log.warning("database: connection refused (%s); retrying for up to %.0f s; %s", detail(exc),
                            sum(backoff), FIXES[TOO_MANY_CONNECTIONS])
            sleep(wait)
            continue
        if attempt:
            log.info("database: connected after %.1f s at the connection limit", time.monotonic() - started)
        return connection


def _on_connect(dbapi_connection, connection_record) -> None:
    """Configure a new DBAPI connection for its backend.

    SQLite keeps pysqlite's own transaction handling on purpose: a transaction
    begins at its first INSERT/UPDATE/DELETE, so reads never hold a lock, and
    every coordinating transaction here starts with its write (the lease
    fence, the processed-update insert). A transaction that starts with a
    write never hits WAL's stale-snapshot error; a second writer simply waits
    on busy_timeout.
    """
    module = type(dbapi_connection).__module__
    if module.startswith("sqlite3"):
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_SECONDS * 1000}")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.close()
    elif module.startswith("pymysql"):
        cursor = dbapi_connection.cursor()
        cursor.execute("SET time_zone = '+00:00'")
        cursor.close()
