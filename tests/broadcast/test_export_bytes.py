"""The export's bytes are the csv module's for the same rows, whoever writes them (Python, or MySQL's own lines)."""
from __future__ import annotations

import csv
import io
from datetime import datetime

import pytest
from sqlalchemy import delete, select, update

from app.extensions import db
from app.models import BroadcastJob, BroadcastJobItem, User
from app.repository import broadcast_ledger as ledger
from app.services.broadcast.reporting import export
from tests.broadcast.helpers import BASE_ID, create_text_job, create_users

FORMULA = ("=", "+", "-", "@", "\t", "\r")
# (username, start source, status, error, sent_at, message_id, clicked_at, variant), one recipient each.
TRICKY = [
    ("کاربر_فارسی", "تبلیغ", "sent", None, datetime(2026, 12, 1, 9, 5, 7), 42, datetime(2026, 12, 1, 10, 0, 0), "fa"),
    ("emoji_🎉👋🏽", "🔥ads", "sent", None, datetime(2026, 1, 2, 3, 4, 5), 7, None, None),
    ('say "hi"', "a,b", "failed", 'Bad Request: "chat", not found', None, None, None, ""),
    ("line\nbreak", "cr\rhere", "failed", "two\r\nlines, سلام", None, 0, None, "en"),
    ("=HYPERLINK(\"x\")", "+98912", "unknown", "-1 @", None, None, None, "=cmd"),
    ("@handle", "-minus", "failed", "=SUM(A1)", None, None, None, "+x"),
    ("\ttab", "\rcr", "failed", "\t", None, None, None, "@v"),
    (None, None, "pending", None, None, None, None, None),
    ("", "", "skipped", "", None, None, None, ""),
    ("full，width＝comma", "＝", "sent", "＂quote", datetime(2026, 12, 2, 23, 59, 59), 10 ** 12, None, " "),
    (" lead space", "trail ", "gone", "semi;colon\x00nul", None, -5, None, "de"),
    ("'quoted'", "\\back\\slash", "sent", "%s %% _ ?", datetime(2026, 6, 30, 12, 0, 0), 1, None, "fa-IR"),
]


def build(with_variants: bool, *, deleted_user: bool = True) -> int:
    """Create a job over the tricky recipients (one of them deleted since); return its id."""
    users = create_users(len(TRICKY))
    for user_id, (username, source, *_) in zip(users, TRICKY, strict=True):
        db.session.execute(update(User).where(User.id == user_id).values(username=username, start_source=source))
    db.session.commit()
    job_id = create_text_job().id
    ids = db.session.execute(select(BroadcastJobItem.id, BroadcastJobItem.user_id)
                             .where(BroadcastJobItem.job_id == job_id)).all()
    item_of = {user_id: item_id for item_id, user_id in ids}
    for user_id, (_, _, status, error, sent_at, message_id, clicked_at, variant) in zip(users, TRICKY, strict=True):
        db.session.execute(update(BroadcastJobItem).where(BroadcastJobItem.id == item_of[user_id]).values(
            status=status, error=error, sent_at=sent_at, message_id=message_id, clicked_at=clicked_at,
            variant=variant))
    if with_variants:
        db.session.execute(update(BroadcastJob).where(BroadcastJob.id == job_id).values(variants='{"fa": "س"}'))
    if deleted_user:
        db.session.execute(delete(User).where(User.id == users[0]))
    db.session.commit()
    return job_id


def expected(job_id: int, with_variants: bool) -> bytes:
    """Write the job's rows with the csv module as the export promises, from a plain ORM read."""
    rows = db.session.execute(
        select(BroadcastJobItem, User.username, User.start_source)
        .outerjoin(User, User.id == BroadcastJobItem.user_id)
        .where(BroadcastJobItem.job_id == job_id).order_by(BroadcastJobItem.id)).all()
    db.session.commit()

    def cell(value):
        value = value or ""
        return "'" + value if value[:1] in FORMULA else value

    def when(value):
        return value.strftime("%Y-%m-%d %H:%M:%S") if value else ""

    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    header = ["user_id", "username", "status", "error", "time", "message_id", "clicked_at", "source"]
    writer.writerow(header + ["variant"] * with_variants)
    for item, username, source in rows:
        line = [item.user_id, cell(username), cell(item.status), cell(item.error), when(item.sent_at),
                item.message_id or "", when(item.clicked_at), cell(source)]
        writer.writerow(line + [cell(item.variant or "default")] * with_variants)
    return "\ufeff".encode() + out.getvalue().encode("utf-8")


def exported(job_id: int) -> bytes:
    out = io.BytesIO()
    rows = export.export_csv(job_id, out)
    assert rows == len(TRICKY)
    return out.getvalue()


@pytest.mark.parametrize("with_variants", [False, True])
def test_tricky_cells_export_byte_for_byte_as_the_csv_module_writes_them(app, with_variants):
    job_id = build(with_variants)
    got, want = exported(job_id), expected(job_id, with_variants)
    pairs = zip(got.split(b"\r\n"), want.split(b"\r\n"), strict=False)
    assert got == want, "\n".join(f"{g!r}\n{w!r}\n" for g, w in pairs if g != w)
    # Spot checks the reference itself must hold (so it cannot drift along with the export).
    text = got.decode("utf-8-sig")
    assert "'=HYPERLINK(\"\"x\"\")" in text and ",'@handle," in text and "'=SUM(A1)" in text
    assert '"say ""hi"""' in text and '"line\nbreak"' in text and "full，width＝comma" in text
    assert f"{BASE_ID + 1},emoji_🎉👋🏽,sent,,2026-01-02 03:04:05,7,,🔥ads" in text
    assert f"\r\n{BASE_ID},,sent,,2026-12-01 09:05:07,42,2026-12-01 10:00:00," in text  # the deleted user


@pytest.mark.parametrize("page_rows", [1, 5, 1000])
def test_every_page_size_gives_the_same_bytes(app, page_rows):
    job_id = build(True)
    whole = b"".join(chunk for chunk, _ in export.csv_chunks(job_id, page_rows=page_rows))
    assert whole == expected(job_id, True)


def test_a_page_the_server_cuts_short_is_written_row_by_row(app, monkeypatch):
    job_id = build(True)
    if db.engine.dialect.name == "mysql":
        monkeypatch.setattr(ledger, "GROUP_CONCAT_MAX", 200)  # GROUP_CONCAT truncates (with a warning only)
        with pytest.raises(ledger.PageCut):
            ledger.csv_ledger_page(job_id, 0, ledger.last_item_id(job_id), 100, FORMULA, "default")
        db.session.rollback()
    assert exported(job_id) == expected(job_id, True)
