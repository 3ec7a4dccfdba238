"""A job's ledger as CSV: streamed page by page, so memory stays bounded whatever its size."""
from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from typing import BinaryIO

from app.extensions import db
from app.models.broadcast import BroadcastJob
from app.repository import broadcast_ledger as ledger
from app.services import audit
from app.services.broadcast.content import variants

# source: the user's first /start payload (where they came from); empty when none.
HEADER = ("user_id", "username", "status", "error", "time", "message_id", "clicked_at", "source")
# A broadcast with language variants (and its unsend or edit) adds the variant each recipient got ("default":
# none matched their language); a file of a job without variants keeps the columns above.
VARIANT_COLUMN = "variant"
# Rows per keyset page: each page is one short read transaction.
PAGE_ROWS = 2000
# On MySQL the server writes a page's lines (broadcast_ledger.csv_ledger_page) and sends them as one value:
# 10,000 rows are about 0.6 MB and one short read; 1M rows took 7-12 s against 16-18 s in pages of 2,000.
SQL_PAGE_ROWS = 10_000
# Excel reads a CSV as UTF-8 (Persian names) only with a byte order mark.
BOM = "\ufeff".encode()
# A spreadsheet runs a cell starting with one of these as a formula (CSV injection, OWASP).
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


class NoSuchJob(LookupError):
    """The job does not exist."""


class LedgerPurged(LookupError):
    """The job's items were purged: its counters remain, its per-recipient ledger is gone."""


def check_exportable(job_id: int) -> None:
    """Raise NoSuchJob or LedgerPurged unless the job has a ledger to export (in the caller's transaction)."""
    job = db.session.get(BroadcastJob, job_id)
    if job is None:
        raise NoSuchJob(f"no broadcast job {job_id}")
    if job.total_count > 0 and ledger.last_item_id(job_id) == 0:
        raise LedgerPurged(f"the per-recipient ledger of job {job_id} was purged; nothing to export "
                           f"(its counters remain: broadcast status {job_id})")


def text_cell(value: str | None) -> str:
    """Return a text cell a spreadsheet shows as text: a leading formula character gets a ' before it."""
    value = value or ""
    return "'" + value if value.startswith(FORMULA_STARTS) else value


def has_variants(job_id: int) -> bool:
    """Tell whether a job's ledger records language variants: it has some, or acts on a broadcast that has."""
    job = db.session.get(BroadcastJob, job_id)
    if job is None:
        return False
    source = db.session.get(BroadcastJob, job.source_job_id) if job.source_job_id else None
    return bool(job.variants or (source is not None and source.variants))


def _time(value) -> str:
    """Render a ledger time (naive UTC) to the second, or "" when there is none."""
    return value.isoformat(sep=" ", timespec="seconds") if value else ""


def csv_chunks(job_id: int, page_rows: int | None = None) -> Iterator[tuple[bytes, int]]:
    """Yield the ledger as UTF-8 CSV with a BOM, one (chunk, rows in it) per page, in item id order."""
    in_sql = db.engine.dialect.name == "mysql"
    page_rows = page_rows or (SQL_PAGE_ROWS if in_sql else PAGE_ROWS)
    with_variant = has_variants(job_id)
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\r\n")
    writer.writerow((*HEADER, VARIANT_COLUMN) if with_variant else HEADER)
    yield BOM + buffer.getvalue().encode(), 0
    after, last = 0, ledger.last_item_id(job_id)
    default = variants.label(None) if with_variant else None
    while True:
        try:
            page = (ledger.csv_ledger_page(job_id, after, last, page_rows, FORMULA_STARTS, default) if in_sql
                    else _page(job_id, after, last, page_rows, with_variant, buffer, writer))
        except ledger.PageCut:  # MySQL cut this page's lines short: this one is written in Python
            page = _page(job_id, after, last, page_rows, with_variant, buffer, writer)
        db.session.commit()  # no transaction stays open while the caller writes the chunk
        if page is None:
            return
        rows, after, chunk = page
        yield chunk, rows


def _page(job_id: int, after: int, last: int, page_rows: int, with_variant: bool, buffer: io.StringIO,
          writer) -> tuple[int, int, bytes] | None:
    """Return (rows, last item id, CSV lines) of the page after item `after`, written in Python; None at the end."""
    rows = ledger.ledger_page(job_id, after, last, page_rows)
    if not rows:
        return None
    buffer.seek(0)
    buffer.truncate()
    for _, user_id, username, status, error, sent_at, message_id, clicked_at, source, variant in rows:
        # Ids stay numbers; every text cell is neutralised (a username or an error can start with "=").
        row = (user_id, text_cell(username), text_cell(status), text_cell(error), _time(sent_at),
               message_id or "", _time(clicked_at), text_cell(source))
        writer.writerow((*row, text_cell(variants.label(variant))) if with_variant else row)
    return len(rows), rows[-1][0], buffer.getvalue().encode()


def export_csv(job_id: int, out: BinaryIO) -> int:
    """Write a job's ledger to out; return the rows written. NoSuchJob or LedgerPurged before writing anything."""
    try:
        check_exportable(job_id)
    finally:
        db.session.commit()  # a read: nothing to keep, no transaction left open
    written = 0
    for chunk, rows in csv_chunks(job_id):
        out.write(chunk)
        written += rows
    return written


def record_export(job_id: int, actor: str, rows: int, where: str) -> None:
    """Audit an export once its file reached the admin (or the CLI's output)."""
    audit.record(actor, audit.EXPORTED, job_id, f"{rows} rows to {where}")
    db.session.commit()


def file_name(job_id: int) -> str:
    """Return the document's file name."""
    return f"broadcast-{job_id}-ledger.csv"
