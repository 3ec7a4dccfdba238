"""Name what went wrong with the database, in one line an operator can act on."""
from __future__ import annotations

import sqlite3

from sqlalchemy.exc import DBAPIError

ACCESS_DENIED = "access denied"
UNKNOWN_DATABASE = "unknown database"
UNREACHABLE = "unreachable"
CONNECTION_LOST = "connection lost"
MISSING_TABLES = "missing tables"
OUTDATED_SCHEMA = "schema out of date"
CANNOT_OPEN = "cannot open the SQLite file"
READ_ONLY = "read-only"
BUSY = "busy"
TOO_MANY_CONNECTIONS = "too many connections"
UNAVAILABLE = "unavailable"

UPGRADE = "run `flask --app wsgi db upgrade`"
FIXES = {
    ACCESS_DENIED: "check the user name and password in DATABASE_URL (percent-encoded) and that the user "
                   "has ALL PRIVILEGES on the database (cPanel > MySQL Databases)",
    UNKNOWN_DATABASE: "create the database (cPanel > MySQL Databases) or fix its name in DATABASE_URL",
    UNREACHABLE: "check the host and port in DATABASE_URL and that the database server is running",
    CONNECTION_LOST: "the server closed the connection (a restart or a short wait_timeout); the next try reconnects",
    MISSING_TABLES: f"the schema has not been created: {UPGRADE}",
    OUTDATED_SCHEMA: f"the schema is older than the code: {UPGRADE}",
    CANNOT_OPEN: "check that the folder in DATABASE_URL exists and the app's user may write to it",
    READ_ONLY: "let the app's user write to the SQLite file and its folder",
    BUSY: "another connection held a lock too long; this passes by itself (Telegram and cron retry)",
    TOO_MANY_CONNECTIONS: "the database user's connection limit (max_user_connections) is reached: each process "
                          "of the bot holds 2 (Passenger processes x 2, plus 2 for cron's pump); raise the limit "
                          "or lower Passenger's process count (see docs/DEPLOY_CPANEL.md, Connections)",
    UNAVAILABLE: "check DATABASE_URL and that the database server is running, then retry",
}
# MySQL/MariaDB error numbers (server 1xxx, client 2xxx).
MYSQL_KINDS = {
    1044: ACCESS_DENIED, 1045: ACCESS_DENIED, 1698: ACCESS_DENIED,
    1049: UNKNOWN_DATABASE,
    2002: UNREACHABLE, 2003: UNREACHABLE, 2005: UNREACHABLE,
    2006: CONNECTION_LOST, 2013: CONNECTION_LOST,
    1146: MISSING_TABLES,
    1054: OUTDATED_SCHEMA,
    1205: BUSY, 1213: BUSY,
    1040: TOO_MANY_CONNECTIONS, 1203: TOO_MANY_CONNECTIONS, 1226: TOO_MANY_CONNECTIONS,
}
SQLITE_KINDS = (
    ("no such table", MISSING_TABLES),
    ("no such column", OUTDATED_SCHEMA),
    ("unable to open database file", CANNOT_OPEN),
    ("readonly database", READ_ONLY),
    ("database is locked", BUSY),
)


def _driver_error(exc: BaseException) -> BaseException:
    """Return the DBAPI exception inside SQLAlchemy's wrapper (or exc itself)."""
    return exc.orig if isinstance(exc, DBAPIError) and exc.orig is not None else exc


def mysql_code(exc: BaseException) -> int | None:
    """Return the MySQL/MariaDB error number of a database exception (None for other drivers)."""
    args = getattr(_driver_error(exc), "args", ())
    return args[0] if args and type(args[0]) is int else None


def classify(exc: BaseException) -> str:
    """Return one of the kinds above for a database exception."""
    orig = _driver_error(exc)
    code = mysql_code(exc)
    if code in MYSQL_KINDS:
        return MYSQL_KINDS[code]
    if isinstance(orig, sqlite3.Error):
        message = str(orig).lower()
        for fragment, kind in SQLITE_KINDS:
            if fragment in message:
                return kind
    return UNAVAILABLE


def detail(exc: BaseException, limit: int = 160) -> str:
    """Return the driver's own message on one line (MySQL and SQLite never echo a password)."""
    orig = _driver_error(exc)
    args = orig.args
    text = str(args[1]) if len(args) == 2 and isinstance(args[0], int) else str(orig)
    text = " ".join(text.split()) or type(orig).__name__
    return text if len(text) <= limit else text[:limit - 3] + "..."


def describe(exc: BaseException) -> str:
    """Return "database: <kind> (<driver message>); <fix>" as one line."""
    kind = classify(exc)
    return f"database: {kind} ({detail(exc)}); {FIXES[kind]}"
