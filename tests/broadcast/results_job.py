"""A crafted broadcast whose results are known to the second: sends, a failure, clicks, a pause, a 429, leavers."""
from __future__ import annotations

from datetime import datetime

from sqlalchemy import delete, select, update

from app.extensions import db
from app.models import BroadcastJob, BroadcastJobItem, User
from app.repository import audit_log
from app.services import audit
from tests.broadcast.helpers import BASE_ID, create_text_job, create_users

T0 = datetime(2026, 12, 1, 9, 0, 0)  # 12:30 in Tehran, 10 Azar 1405
# Per recipient: (status, sent_at, clicked_at, blocked_at, opted_out_at).
ROWS = [
    ("sent", datetime(2026, 12, 1, 9, 0, 5), datetime(2026, 12, 1, 9, 10, 0), None, None),
    ("sent", datetime(2026, 12, 1, 9, 0, 50), datetime(2026, 12, 1, 9, 25, 0), None,
     datetime(2026, 12, 1, 9, 40, 0)),                                                         # clicked, then left
    ("sent", datetime(2026, 12, 1, 9, 3, 10), None, datetime(2026, 12, 1, 10, 0, 0), None),   # blocked after
    ("sent", datetime(2026, 12, 1, 9, 3, 20), None, None, datetime(2026, 12, 1, 9, 30, 0)),   # opted out after
    ("sent", datetime(2026, 12, 1, 9, 1, 0), None, datetime(2026, 12, 1, 8, 0, 0),
     datetime(2026, 12, 1, 8, 0, 0)),                                                          # both before it
    ("failed", None, None, None, None),
    ("skipped", None, None, None, None),
]
EXPECTED = {
    "counts": {"sent": 5, "failed": 1, "skipped": 1}, "delivered": 5,
    # 10 s buckets from 09:00:00: 09:00:05, 09:00:50, 09:01:00, 09:03:10, 09:03:20.
    "sent": {"start": "2026-12-01T09:00:00Z", "seconds": 10,
             "counts": [1, 0, 0, 0, 0, 1, 1] + [0] * 12 + [1, 1]},
    # 30 s buckets from 09:10:00: 09:10:00 and 09:25:00.
    "clicks": {"start": "2026-12-01T09:10:00Z", "seconds": 30, "counts": [1] + [0] * 29 + [1]},
    "unique_clicks": 2, "ctr": 0.4, "blocked_after": 1, "opted_out_after": 2,
    "pauses": [{"at": "2026-12-01T09:01:30Z", "until": "2026-12-01T09:02:30Z", "reason": "lunch"}],
    "holds": [{"at": "2026-12-01T09:03:00Z", "seconds": 12.0}],
}


def craft_job(earlier: bool = True) -> int:
    """Write the crafted ledger (and an earlier broadcast of 2 delivered, 1 blocked after); return its id."""
    if earlier:
        _earlier_job()
    users = create_users(len(ROWS), start=BASE_ID + 100)
    job_id = create_text_job().id
    # Only the crafted recipients: the earlier broadcast's audience is not this one's.
    db.session.execute(delete(BroadcastJobItem).where(BroadcastJobItem.job_id == job_id,
                                                      BroadcastJobItem.user_id.not_in(users)))
    items = dict(db.session.execute(select(BroadcastJobItem.user_id, BroadcastJobItem.id)
                                    .where(BroadcastJobItem.job_id == job_id)).all())
    for user_id, (status, sent_at, clicked_at, blocked_at, opted_out_at) in zip(users, ROWS, strict=True):
        db.session.execute(update(BroadcastJobItem).where(BroadcastJobItem.id == items[user_id])
                           .values(status=status, sent_at=sent_at, clicked_at=clicked_at))
        db.session.execute(update(User).where(User.id == user_id).values(
            is_blocked=blocked_at is not None, blocked_at=blocked_at, opted_out_at=opted_out_at))
    db.session.execute(update(BroadcastJob).where(BroadcastJob.id == job_id).values(
        status="completed", total_count=7, sent_count=5, failed_count=1, skipped_count=1, clicks_total=3,
        clicks_unique=2,
        button_text="خرید بلیت", button_url="https://example.ir/tickets", started_at=T0,
        finished_at=datetime(2026, 12, 1, 9, 4, 0)))
    audit_log.insert(datetime(2026, 12, 1, 9, 1, 30), "admin:1001", audit.PAUSED, job_id, "lunch")
    audit_log.insert(datetime(2026, 12, 1, 9, 2, 30), "admin:1001", audit.RESUMED, job_id, None)
    audit_log.insert(datetime(2026, 12, 1, 9, 3, 0), audit.ACTOR_SYSTEM, audit.HELD, job_id, "429: 12 s")
    db.session.commit()
    return job_id


def _earlier_job() -> int:
    """An earlier broadcast: 2 delivered, one of whom blocked the bot an hour later."""
    users = create_users(2, start=BASE_ID)
    job_id = create_text_job().id
    db.session.execute(update(BroadcastJobItem).where(BroadcastJobItem.job_id == job_id)
                       .values(status="sent", sent_at=datetime(2026, 11, 30, 9, 0, 0)))
    db.session.execute(update(User).where(User.id == users[0])
                       .values(is_blocked=True, blocked_at=datetime(2026, 11, 30, 10, 0, 0)))
    db.session.execute(update(BroadcastJob).where(BroadcastJob.id == job_id)
                       .values(status="completed", sent_count=2))
    db.session.commit()
    return job_id
