"""INSERT that skips rows a unique key already holds, on both databases (MySQL's IGNORE, SQLite's OR IGNORE)."""
from __future__ import annotations

from sqlalchemy.sql.dml import Insert


def ignoring_duplicates(stmt: Insert) -> Insert:
    """Return stmt as an INSERT IGNORE (MySQL, MariaDB) / INSERT OR IGNORE (SQLite)."""
    return (stmt.prefix_with("IGNORE", dialect="mysql").prefix_with("IGNORE", dialect="mariadb")
            .prefix_with("OR IGNORE", dialect="sqlite"))
