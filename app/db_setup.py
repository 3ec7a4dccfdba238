"""Per-connection database settings: SQLite locking and WAL, MySQL UTC."""
from sqlalchemy import event
from sqlalchemy.engine import Engine

_installed = False


def install_engine_hooks() -> None:
    """Register connection hooks once per process for every engine."""
    global _installed
    if _installed:
        return
    _installed = True
    event.listen(Engine, "connect", _on_connect)
    event.listen(Engine, "begin", _on_begin)


def _on_connect(dbapi_connection, connection_record) -> None:
    """Configure a new DBAPI connection for its backend."""
    module = type(dbapi_connection).__module__
    if module.startswith("sqlite3"):
        # Let SQLAlchemy's "begin" hook issue BEGIN IMMEDIATE itself.
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA busy_timeout=30000")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.close()
    elif module.startswith("pymysql"):
        cursor = dbapi_connection.cursor()
        cursor.execute("SET time_zone = '+00:00'")
        cursor.close()


def _on_begin(conn) -> None:
    """Take SQLite's write lock at BEGIN, so two writers wait instead of failing.

    A deferred transaction that reads and then writes gets SQLITE_BUSY at once
    (no busy wait) when another connection committed in between; IMMEDIATE
    makes the second writer queue on busy_timeout instead. Every transaction
    here is short, so serialising them costs little.
    """
    if conn.dialect.name == "sqlite":
        conn.exec_driver_sql("BEGIN IMMEDIATE")
