"""Per-connection database settings: SQLite WAL and busy wait, MySQL UTC."""
from sqlalchemy import event
from sqlalchemy.engine import Engine

# A second SQLite writer waits this long for the first to commit. Every write
# transaction here is short (one update, one batch): a writer still waiting
# after this long is behind a stalled process, and fails instead of hanging.
SQLITE_BUSY_SECONDS = 30
_installed = False


def install_engine_hooks() -> None:
    """Register connection hooks once per process for every engine."""
    global _installed
    if _installed:
        return
    _installed = True
    event.listen(Engine, "connect", _on_connect)


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
