"""The SQL behind a broadcast's results picture: counts grouped in the database, never rows in Python.

Every query reads one job's items through the (job_id, status, id) index and
answers a handful of rows (one per status, per time bucket, per job), so a
100,000-recipient job costs a few index range scans and no memory in the app.
Reads only: nothing here takes a lock another writer waits on.
"""
from __future__ import annotations

from datetime import datetime

from sqlalchemy import text

from app.extensions import db
from app.models.broadcast import KIND_SEND, SENT

# Whole seconds since 1970 of a DATETIME column, per dialect (both are UTC-naive in this schema).
_EPOCH = {
    "sqlite": "CAST(strftime('%s', {col}) AS INTEGER)",
    # TIMESTAMPDIFF, not UNIX_TIMESTAMP: the latter reads the column in the session's time zone.
    "mysql": "TIMESTAMPDIFF(SECOND, '1970-01-01 00:00:00', {col})",
}
# Integer division per dialect: MySQL's / answers a decimal.
_DIV = {"sqlite": "({a}) / {b}", "mysql": "({a}) DIV {b}"}


def _dialect() -> str:
    """Return "mysql" for MySQL and MariaDB, else "sqlite"."""
    return "mysql" if db.engine.dialect.name in ("mysql", "mariadb") else "sqlite"


def epoch_sql(col: str) -> str:
    """Return the SQL of a column's whole seconds since 1970."""
    return _EPOCH[_dialect()].format(col=col)


def status_counts(job_id: int) -> dict[str, int]:
    """Return {item status: items} of one job."""
    rows = db.session.execute(text("SELECT status, COUNT(*) FROM broadcast_job_items WHERE job_id = :j "
                                   "GROUP BY status"), {"j": job_id})
    return {str(status): int(n) for status, n in rows}


def span(job_id: int, col: str) -> tuple[int | None, int | None]:
    """Return the first and last whole second (since 1970) of a time column over the job's delivered items."""
    epoch = epoch_sql(f"i.{col}")
    row = db.session.execute(text(f"SELECT MIN({epoch}), MAX({epoch}) FROM broadcast_job_items i "
                                  f"WHERE i.job_id = :j AND i.status = :sent AND i.{col} IS NOT NULL"),
                             {"j": job_id, "sent": SENT.value}).one()
    return (int(row[0]) if row[0] is not None else None, int(row[1]) if row[1] is not None else None)


def buckets(job_id: int, col: str, origin: int, size: int) -> dict[int, int]:
    """Return {bucket: delivered items} by a time column, bucket k covering [origin + k*size, origin + (k+1)*size)."""
    bucket = _DIV[_dialect()].format(a=f"{epoch_sql(f'i.{col}')} - :origin", b=":size")
    rows = db.session.execute(text(f"SELECT {bucket} AS b, COUNT(*) FROM broadcast_job_items i "
                                   f"WHERE i.job_id = :j AND i.status = :sent AND i.{col} IS NOT NULL "
                                   f"GROUP BY b"),
                              {"j": job_id, "sent": SENT.value, "origin": origin, "size": size})
    return {int(b): int(n) for b, n in rows}


def left_after(job_ids: list[int]) -> dict[int, tuple[int, int]]:
    """Return {job: (blocked after, opted out after)} among its delivered items.

    A recipient counts when they are blocked (or opted out) now and the bot
    recorded it at or after their own copy's sent_at.
    """
    if not job_ids:
        return {}
    marks = ", ".join(f":j{n}" for n in range(len(job_ids)))
    rows = db.session.execute(text(
        "SELECT i.job_id, "
        "SUM(CASE WHEN u.is_blocked = 1 AND u.blocked_at >= i.sent_at THEN 1 ELSE 0 END), "
        "SUM(CASE WHEN u.opted_out_at >= i.sent_at THEN 1 ELSE 0 END) "
        "FROM broadcast_job_items i JOIN users u ON u.id = i.user_id "
        f"WHERE i.job_id IN ({marks}) AND i.status = :sent GROUP BY i.job_id"),
        {"sent": SENT.value, **{f"j{n}": j for n, j in enumerate(job_ids)}})
    return {int(j): (int(b or 0), int(o or 0)) for j, b, o in rows}


def recent_sends(job_id: int, limit: int) -> list[dict]:
    """Return the job and up to `limit` broadcasts before it that delivered something, oldest first (counters)."""
    rows = db.session.execute(text(
        "SELECT id, sent_count, clicks_unique, button_url, created_at, links_tracked FROM broadcast_jobs "
        "WHERE kind = :kind AND id <= :j AND (sent_count > 0 OR id = :j) ORDER BY id DESC LIMIT :n"),
        {"kind": KIND_SEND, "j": job_id, "n": limit + 1})
    # Tracked: as the job recorded it (a keyboard's links too); a job made before it did, by its link button.
    return [{"id": int(r[0]), "delivered": int(r[1]), "clicks": int(r[2]),
             "tracked": bool(r[5] if r[5] is not None else r[3]) or int(r[2]) > 0,
             "created_at": r[4]} for r in reversed(rows.all())]


def audit_marks(job_id: int, actions: tuple[str, ...]) -> list[tuple[datetime, str, str | None]]:
    """Return the job's audit entries of these actions, oldest first: (at, action, detail)."""
    marks = ", ".join(f":a{n}" for n in range(len(actions)))
    rows = db.session.execute(text(f"SELECT at, action, detail FROM audit_log WHERE job_id = :j "
                                   f"AND action IN ({marks}) ORDER BY id"),
                              {"j": job_id, **{f"a{n}": a for n, a in enumerate(actions)}})
    return [(_as_datetime(at), str(action), detail) for at, action, detail in rows]


def _as_datetime(value) -> datetime:
    """Return a DATETIME read through text() as a datetime (SQLite hands back its text)."""
    return value if isinstance(value, datetime) else datetime.fromisoformat(str(value))
