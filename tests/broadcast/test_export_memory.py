"""Export streams: a 200,000-item ledger goes out in bounded memory, whole and in order."""
from __future__ import annotations

import tracemalloc

import pytest
from sqlalchemy import DateTime, Integer, String, case, cast, false, insert, literal, select, text, update

from app.clock import utcnow
from app.extensions import db
from app.models import BroadcastJobItem, User
from app.services.broadcast.reporting.export import export_csv
from tests.broadcast.helpers import BASE_ID, create_text_job

ROWS = 200_000
# Measured peak: about 2.6 MB (docs/PERFORMANCE.md); the whole CSV alone is about 11 MB,
# and rows loaded at once would be several times that.
PEAK_LIMIT = 8 << 20


class CountingSink:
    """A binary file that keeps only what the check needs: size, lines, the first and last line."""

    def __init__(self) -> None:
        self.size = self.lines = 0
        self.head = self.tail = b""

    def write(self, chunk: bytes) -> int:
        if not self.head:
            self.head = chunk[:200]
        self.size += len(chunk)
        self.lines += chunk.count(b"\n")
        self.tail = (self.tail + chunk)[-200:]
        return len(chunk)


def seed(rows: int) -> int:
    """Insert rows users and a job over all of them, one item in ten failed; return its id.

    The users come from one INSERT ... SELECT the database numbers itself (digits cross-joined): building
    200,000 rows in Python took ~9 s of the test, none of which the export's bound depends on.
    """
    now = utcnow()
    digits = "(" + " UNION ALL ".join(f"SELECT {d} AS d" for d in range(10)) + ")"
    places = range(len(str(rows - 1)))
    numbers = text("SELECT " + " + ".join(f"p{k}.d * {10 ** k}" for k in places) + " AS n FROM "
                   + " CROSS JOIN ".join(f"{digits} p{k}" for k in places)).columns(n=Integer).subquery("numbers")
    db.session.execute(insert(User).from_select(
        ["id", "first_name", "username", "is_blocked", "main_channel_status", "started_at", "last_seen_at"],
        select(numbers.c.n + BASE_ID, literal("کاربر"), literal("user_") + cast(numbers.c.n, String),
               false(), literal("unknown"), literal(now, DateTime), literal(now, DateTime))
        .where(numbers.c.n < rows)))
    db.session.commit()
    job_id = create_text_job().id
    failed = (BroadcastJobItem.id % 10) == 0
    db.session.execute(update(BroadcastJobItem).where(BroadcastJobItem.job_id == job_id).values(
        status=case((failed, "failed"), else_="sent"), sent_at=case((failed, None), else_=now),
        message_id=case((failed, None), else_=BroadcastJobItem.id + 1000)))
    db.session.commit()
    return job_id


@pytest.mark.slow
def test_a_200000_item_export_streams_in_bounded_memory(app):
    job_id = seed(ROWS)
    sink = CountingSink()
    tracemalloc.start()
    try:
        written = export_csv(job_id, sink)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert written == ROWS and sink.lines == ROWS + 1  # the header, then one line per recipient
    assert sink.head.startswith("\ufeff".encode()), "a BOM, so spreadsheets read Persian names"
    assert f"{BASE_ID + ROWS - 1},user_{ROWS - 1},".encode() in sink.tail, "the last recipient comes last"
    assert peak < PEAK_LIMIT, f"export peaked at {peak / (1 << 20):.1f} MB for {sink.size / (1 << 20):.1f} MB of CSV"
