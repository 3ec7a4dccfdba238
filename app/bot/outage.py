"""Tell a database outage (answer 503: Telegram retries) from an error one update caused (answer 200).

Only a database that cannot be reached or used right now is an outage: lost
or refused connections, a locked SQLite file, lock timeouts and deadlocks, a
server that refuses every write, a schema the code does not match. Anything
else the database refuses (MariaDB's 1364 "no default", 1366/1292 bad values,
1048 NULL, duplicate keys...) comes from this one update; redelivering it
would fail the same way for ever, so it is recorded and answered 200.
"""
from __future__ import annotations

from sqlalchemy.exc import DBAPIError, DisconnectionError, InterfaceError
from sqlalchemy.exc import TimeoutError as PoolTimeout

from app.db_errors import mysql_code

# MySQL/MariaDB server errors that mean "not now", not "not this update". Client errors (2xxx) all do.
MYSQL_OUTAGE_CODES = frozenset({
    1021, 1114,              # disk full, table full
    1037, 1038, 1041,        # out of memory
    1040, 1203,              # too many connections
    1044, 1045, 1698, 1049,  # access denied, unknown database (configuration)
    1053, 1077, 1927, 4031,  # server shutting down, connection killed / disconnected
    1054, 1146,              # unknown column / table: the schema is older than the code
    1129, 1130,              # host blocked / not allowed
    1152, 1154, 1155, 1156, 1157, 1158, 1159, 1160, 1161,  # network read/write aborted
    1205, 1213,              # lock wait timeout, deadlock: a retry succeeds
    1290, 1792, 1836,        # read-only server
    1317, 1969, 3024,        # query interrupted, statement time limit
})
MYSQL_CLIENT_CODES = range(2000, 3000)  # can't connect, gone away, lost connection...
# Messages of drivers that give no error number (SQLite) or of wrapped connection failures.
OUTAGE_PHRASES = (
    "unable to open database", "database is locked", "database table is locked", "disk i/o error",
    "database or disk is full", "readonly database", "malformed", "no such table", "no such column",
    "gone away", "lost connection", "can't connect", "connection refused", "too many connections",
)


def is_outage(exc: BaseException) -> bool:
    """Tell whether exc means the database is unavailable rather than refusing this update's data."""
    if isinstance(exc, (InterfaceError, PoolTimeout, DisconnectionError)):
        return True
    if not isinstance(exc, DBAPIError):
        return False
    if exc.connection_invalidated:
        return True
    orig = exc.orig
    code = mysql_code(exc)
    if code is not None:
        # A numbered error is judged by its number only: its text may quote the update's own data.
        return code in MYSQL_OUTAGE_CODES or code in MYSQL_CLIENT_CODES
    message = str(orig).lower()
    return any(phrase in message for phrase in OUTAGE_PHRASES)


def error_code(exc: BaseException) -> str:
    """Return a short, secret-free name for a database error: "OperationalError 1364" or the class name."""
    orig = getattr(exc, "orig", None) or exc
    code = mysql_code(exc)
    return type(orig).__name__ + ("" if code is None else f" {code}")
