"""The database account's limits, as far as it may read them: connections at once, and the per-hour caps.

MariaDB/MySQL keep an account's caps in mysql.user (rarely readable on a
shared host) and print them in SHOW GRANTS (always readable for one's own
account); the session's max_user_connections is the account's cap when it has
one. Every read that is refused is left out (None), never raised. SQLite has none.
"""
from __future__ import annotations

import re

from sqlalchemy import text
from sqlalchemy.exc import SQLAlchemyError

from app.extensions import db

# SHOW GRANTS' resource options, and the mysql.user columns that hold them.
GRANT_OPTIONS = {"MAX_QUERIES_PER_HOUR": "max_questions", "MAX_UPDATES_PER_HOUR": "max_updates",
                 "MAX_CONNECTIONS_PER_HOUR": "max_connections_per_hour",
                 "MAX_USER_CONNECTIONS": "account_user_connections"}
_OPTION = re.compile(r"\b(" + "|".join(GRANT_OPTIONS) + r")\s+(\d+)", re.IGNORECASE)


def _try(sql: str, params: dict | None = None) -> list | None:
    """Run one read; None (and the transaction rolled back) when the account may not run it."""
    try:
        return list(db.session.execute(text(sql), params or {}))
    except SQLAlchemyError:
        db.session.rollback()
        return None


def _variable(name: str) -> int | None:
    """Return a numeric server variable as this session sees it, or None."""
    rows = _try("SHOW VARIABLES LIKE :name", {"name": name})
    return int(rows[0][1]) if rows and str(rows[0][1]).isdigit() else None


def parse_grants(lines: list[str]) -> dict[str, int]:
    """Return the resource options SHOW GRANTS' lines name; an option not named is 0 (no cap)."""
    found = {column: 0 for column in GRANT_OPTIONS.values()}
    for line in lines:
        for option, value in _OPTION.findall(line):
            found[GRANT_OPTIONS[option.upper()]] = int(value)
    return found


def _from_user_table() -> dict[str, int] | None:
    """Return this account's caps from mysql.user, or None when the table is not readable."""
    rows = _try("SELECT max_questions, max_updates, max_connections, max_user_connections FROM mysql.user "
                "WHERE CONCAT(user, '@', host) = CURRENT_USER()")
    if not rows:
        return None
    questions, updates, per_hour, user_connections = (int(v or 0) for v in rows[0])
    return {"max_questions": questions, "max_updates": updates, "max_connections_per_hour": per_hour,
            "account_user_connections": user_connections}


def account_limits() -> dict:
    """Return what the account may read of its limits (None: could not read), with where the caps came from."""
    dialect = db.session.get_bind().dialect.name
    if dialect == "sqlite":
        return {"dialect": dialect, "user_connections": 0, "max_connections": 0, "max_questions": 0,
                "max_updates": 0, "max_connections_per_hour": 0, "source": "sqlite"}
    caps, source = _from_user_table(), "mysql.user"
    if caps is None:
        grants = _try("SHOW GRANTS")
        caps, source = (parse_grants([str(row[0]) for row in grants]), "SHOW GRANTS") if grants else ({}, None)
    session_cap, server_cap = _variable("max_user_connections"), _variable("max_connections")
    # The session's max_user_connections is the account's own cap when set; 0 leaves only the server's.
    cap = session_cap or caps.get("account_user_connections") or server_cap
    db.session.commit()
    return {"dialect": dialect, "user_connections": cap, "max_connections": server_cap,
            "max_questions": caps.get("max_questions"), "max_updates": caps.get("max_updates"),
            "max_connections_per_hour": caps.get("max_connections_per_hour"), "source": source}
