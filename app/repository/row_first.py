"""Make an UPDATE of rows named by primary key find them by that key on MySQL/MariaDB.

A guarded UPDATE such as `id = ? AND status = ?` (a job) or `id IN (...) AND
is_blocked = 0` (users) can make MariaDB's optimizer choose the secondary
index on the guard's column, most of all on small tables. Found that way, the
UPDATE locks the row's entry in that index first and then asks for the row,
while a transaction that already holds the row (a pump's fence, a webhook's
write) and changes that column asks for the same entry: a deadlock. Forced
onto the primary key, every such UPDATE takes the row first, so two of them
wait in line instead. SQLite has one writer at a time and ignores the hint.
"""
from __future__ import annotations

ROW_FIRST = "FORCE INDEX (PRIMARY)"


def by_primary_key(stmt):
    """Return the UPDATE with the primary-key hint for MySQL and MariaDB (both dialect names)."""
    return stmt.with_hint(ROW_FIRST, dialect_name="mysql").with_hint(ROW_FIRST, dialect_name="mariadb")
