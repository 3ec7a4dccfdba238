"""Item rows read back: a job's ledger page by page (its CSV lines on MySQL), counts by status, and the purge.

Nothing here writes an item but the purge, which deletes only the items of
jobs long finished.
"""
from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from sqlalchemy import delete, func, or_, select, text

from app.extensions import db
from app.models.broadcast import SENDING, TERMINAL, UNKNOWN, BroadcastJob, BroadcastJobItem
from app.models.user import User

I = BroadcastJobItem  # noqa: E741  (short alias keeps the SQL readable)
def variant_tallies(job_id: int) -> dict[str | None, dict[str, int]]:
    """Count a job's items per language variant and status ({code or None: {status: n}})."""
    rows = db.session.execute(select(I.variant, I.status, func.count()).where(I.job_id == job_id)
                              .group_by(I.variant, I.status))
    out: dict[str | None, dict[str, int]] = {}
    for code, status, n in rows:
        per = out.setdefault(code or None, {})
        per[status] = per.get(status, 0) + n
    return out


def count_status(job_ids: list[int], status: str) -> int:
    """Count the items of job_ids in one status."""
    return db.session.execute(select(func.count()).select_from(I)
                              .where(I.job_id.in_(job_ids), I.status == status)).scalar_one()


def in_flight(job_ids: list[int]) -> int:
    """Count the items of job_ids still in flight (sending): their copies may still arrive."""
    return count_status(job_ids, SENDING)


def unknown_since(job_ids: list[int], since: datetime) -> tuple[int, datetime | None]:
    """Return (items of job_ids settled unknown at or after since, the newest one's settling time)."""
    row = db.session.execute(select(func.count(), func.max(I.sent_at))
                             .where(I.job_id.in_(job_ids), I.status == UNKNOWN, I.sent_at >= since)).one()
    return row[0], row[1]


def last_item_id(job_id: int) -> int:
    """Return the job's highest item id (0 for none): the end of its ledger's id range."""
    return db.session.execute(select(func.max(I.id)).where(I.job_id == job_id)).scalar() or 0


def ledger_page(job_id: int, after_id: int, last_id: int, limit: int) -> list[tuple]:
    """Return up to limit ledger rows with after_id < id <= last_id, in id order (keyset pages).

    Rows: (item id, user id, username, status, error, sent_at, message_id, clicked_at, start_source, variant);
    a user row deleted since leaves the username and source empty. `job_id + 0` keeps
    both databases on the primary key's range: with the (job_id, user_id)
    index SQLite read and sorted the whole job for every page (quadratic).
    A job's items are inserted in a few large chunks, so the range holds little else.
    """
    rows = db.session.execute(
        select(I.id, I.user_id, User.username, I.status, I.error, I.sent_at, I.message_id, I.clicked_at,
               User.start_source, I.variant)
        .outerjoin(User, User.id == I.user_id)
        .where(I.id > after_id, I.id <= last_id, I.job_id + 0 == job_id).order_by(I.id).limit(limit))
    return [tuple(r) for r in rows]


# MySQL builds each CSV line itself (csv_ledger_page): PyMySQL decodes every column of every row in pure
# Python, 70 % of a 9-column export; one GROUP_CONCAT per page comes back as one value instead.
# Cells are handled as bytes (CAST AS BINARY): comparisons leave the collation out (utf8mb4_unicode_ci
# holds "，" = "," and INSTR there ignores case), and the tables' utf8mb4 bytes are the file's UTF-8.
GROUP_CONCAT_MAX = 64 << 20


class PageCut(ValueError):
    """MySQL returned a page's CSV lines cut short (group_concat_max_len or max_allowed_packet)."""


def _csv_cell(column: str, formula_codes: str) -> str:
    """Return SQL for one text cell as export.text_cell and the csv module write it (NULL as "")."""
    value = f"CAST(IFNULL({column}, '') AS BINARY)"
    # ASCII(): the first byte; a multi-byte UTF-8 character's is never an ASCII one.
    cell = f"IF(ASCII({value}) IN ({formula_codes}), CONCAT('''', {value}), {value})"
    # QUOTE_MINIMAL: quoted, its quotes doubled, only when it holds a comma, a quote, CR or LF.
    special = " OR ".join(f"INSTR({value}, {char}) > 0" for char in ("','", "'\"'", "CHAR(13)", "CHAR(10)"))
    return f"""IF({special}, CONCAT('"', REPLACE({cell}, '"', '""'), '"'), {cell})"""


def _csv_time(column: str) -> str:
    """Return SQL for a time cell as export._time writes it."""
    return f"IFNULL(CAST(DATE_FORMAT({column}, '%Y-%m-%d %H:%i:%s') AS BINARY), '')"


def csv_ledger_page(job_id: int, after_id: int, last_id: int, limit: int, formula_starts: Iterable[str],
                    default_variant: str | None) -> tuple[int, int, bytes] | None:
    """MySQL only: return (rows, last item id, CSV lines in UTF-8) of a ledger_page; None when it has no rows.

    The lines are those export.csv_chunks writes for the same rows (CRLF after each; with the variant
    column when default_variant is given: the label of a NULL or empty variant). Raise PageCut when
    MySQL cut the page short (group_concat_max_len, max_allowed_packet): the caller reads it row by row.
    """
    codes = ", ".join(str(ord(c)) for c in formula_starts)
    cells = [
        "CAST(i.user_id AS BINARY)", _csv_cell("u.username", codes), _csv_cell("i.status", codes),
        _csv_cell("i.error", codes), _csv_time("i.sent_at"),
        "IF(i.message_id <> 0, CAST(i.message_id AS BINARY), '')",  # `message_id or ""`: NULL and 0 give ""
        _csv_time("i.clicked_at"), _csv_cell("u.start_source", codes)]
    if default_variant is not None:
        cells.append(_csv_cell("IF(LENGTH(i.variant) > 0, i.variant, :default_variant)", codes))
    line = "CONCAT(" + ", ',', ".join(cells) + ", CHAR(13, 10))"
    db.session.execute(text("SET SESSION group_concat_max_len = :n"), {"n": GROUP_CONCAT_MAX})
    count, whole, last, size, lines = db.session.execute(text(
        "SELECT COUNT(*), COUNT(p.line), MAX(p.id), SUM(LENGTH(p.line)), "
        "GROUP_CONCAT(p.line ORDER BY p.id SEPARATOR '') "
        f"FROM (SELECT i.id, {line} AS line FROM {I.__tablename__} i "
        f"LEFT OUTER JOIN {User.__tablename__} u ON u.id = i.user_id "
        "WHERE i.id > :after AND i.id <= :last AND i.job_id + 0 = :job ORDER BY i.id LIMIT :limit) p"),
        {"after": after_id, "last": last_id, "job": job_id, "limit": limit,
         "default_variant": default_variant}).one()
    if not count:
        return None
    if lines is None or len(lines) != size or whole != count:  # GROUP_CONCAT would skip a NULL line
        raise PageCut(f"page after item {after_id} cut: {0 if lines is None else len(lines)} of {size} bytes")
    return count, last, bytes(lines)


def tallies(job_id: int) -> dict[str, int]:
    """Count the job's items by status (the source of truth counters are checked against)."""
    rows = db.session.execute(select(I.status, func.count()).where(I.job_id == job_id).group_by(I.status))
    return {status: n for status, n in rows}


def purgeable_jobs(before: datetime) -> list[int]:
    """Return the ids of jobs that ended before a cutoff and still hold items not sent after it, oldest first."""
    old = or_(I.sent_at.is_(None), I.sent_at < before)
    has_old = select(I.id).where(I.job_id == BroadcastJob.id, old).exists()
    query = (select(BroadcastJob.id).where(BroadcastJob.status.in_(TERMINAL), BroadcastJob.finished_at < before,
                                           has_old).order_by(BroadcastJob.id))
    return [r[0] for r in db.session.execute(query)]


def delete_finished_some(job_id: int, before: datetime, limit: int) -> int:
    """Delete up to limit of a finished job's items not sent after the cutoff, in one short statement.

    A cancelled job's last in-flight sends may record after its finished_at:
    the sent_at guard keeps those until they too are older than the cutoff.
    """
    old = or_(I.sent_at.is_(None), I.sent_at < before)
    ids = [r[0] for r in db.session.execute(select(I.id).where(I.job_id == job_id, old).limit(limit))]
    if not ids:
        return 0
    return db.session.execute(delete(I).where(I.id.in_(ids)).execution_options(synchronize_session=False)).rowcount
