"""A delivered broadcast with a keyboard whose per-button counters are set: the results and views draw them."""
from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy import select, update

from app.extensions import db
from app.models import BroadcastJob, BroadcastJobItem
from app.models.broadcast_button import BroadcastButton
from app.services.broadcast.jobs import creation
from tests.broadcast.helpers import create_users, engine_settings

T0 = datetime(2026, 12, 1, 9, 0, 0)
# Two rows: links, a copy button (Telegram reports no copy), a tag and a menu button.
KB = {"rows": [[{"kind": "url", "text": "Shop", "url": "https://example.com/shop"},
                {"kind": "url", "text": "Blog", "url": "https://example.org/blog"},
                {"kind": "copy", "text": "Code", "copy": "SALE20"}],
               [{"kind": "tap", "text": "VIP", "tag": "vip"},
                {"kind": "menu", "text": "Hours", "answer": "9 to 17"}]]}
# position -> (clicks, first clicks, presses): the busiest are Hours (12), Shop (9), VIP (6), Blog (3).
COUNTERS = {1: (9, 4, 0), 2: (3, 2, 0), 4: (0, 0, 6), 5: (0, 0, 12)}


def big_keyboard(n: int = 100) -> dict:
    """Return the largest keyboard Telegram takes: n buttons of 64-character labels, 8 a row, every kind."""
    kinds = [{"kind": "url", "url": "https://example.com/p"}, {"kind": "tap", "tag": "t"},
             {"kind": "menu", "answer": "a"}, {"kind": "copy", "copy": "c"}]
    label = "دکمهٔ بسیار بلند با برچسبی شصت‌وچهار نویسه‌ای، Button with a long label "
    flat = [{"text": (f"{i:03d} " + label)[:64], **kinds[i % 4]} for i in range(1, n + 1)]
    assert all(len(b["text"]) == 64 for b in flat)
    return {"rows": [flat[i:i + 8] for i in range(0, n, 8)]}


def keyed_job(kb: dict = KB, counters: dict[int, tuple[int, int, int]] = COUNTERS, delivered: int = 20) -> int:
    """Create a completed broadcast of ``delivered`` copies with this keyboard and these counters; return its id.

    The recipients who clicked are the buttons' first clicks, a second apart.
    """
    create_users(delivered)
    job = creation.create_job(audience="all", created_by=1001, content={"type": "text", "text": "حراج"},
                              keyboard=kb, settings=engine_settings())
    ids = db.session.execute(select(BroadcastJobItem.id).where(BroadcastJobItem.job_id == job.id)
                             .order_by(BroadcastJobItem.id)).scalars().all()
    clicked = sum(first for _, first, _ in counters.values())
    for n, item_id in enumerate(ids):
        db.session.execute(update(BroadcastJobItem).where(BroadcastJobItem.id == item_id).values(
            status="sent", sent_at=T0 + timedelta(seconds=n), message_id=1000 + n,
            clicked_at=T0 + timedelta(minutes=5, seconds=n) if n < clicked else None))
    for position, (clicks, first, presses) in counters.items():
        db.session.execute(update(BroadcastButton).where(BroadcastButton.job_id == job.id,
                                                         BroadcastButton.position == position)
                           .values(clicks=clicks, first_clicks=first, presses=presses))
    db.session.execute(update(BroadcastJob).where(BroadcastJob.id == job.id).values(
        status="completed", sent_count=delivered, total_count=delivered, started_at=T0,
        finished_at=T0 + timedelta(minutes=10), clicks_total=sum(c for c, _, _ in counters.values()),
        clicks_unique=clicked))
    db.session.commit()
    return job.id


def counters_of(job_id: int) -> dict[int, tuple[int, int, int]]:
    """Return the job's per-button counters straight from broadcast_buttons."""
    rows = db.session.execute(select(BroadcastButton.position, BroadcastButton.clicks, BroadcastButton.first_clicks,
                                     BroadcastButton.presses).where(BroadcastButton.job_id == job_id)).all()
    db.session.commit()
    return {pos: (clicks, first, presses) for pos, clicks, first, presses in rows}
