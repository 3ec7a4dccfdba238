"""A small crafted population for segment tests: users with tags, fields and a broadcast history."""
from __future__ import annotations

from datetime import timedelta

from sqlalchemy import insert

from app.clock import utcnow
from app.extensions import db
from app.models import BroadcastJob, BroadcastJobItem, User
from app.models.user_data import UserField, UserTag

U = 6_000_000_000  # user ids above 2^31
# user offset -> (tags, fields)
PEOPLE = {
    1: (("vip", "fa_news"), {"plan": "gold", "city": "تهران"}),
    2: (("vip",), {"plan": "free", "city": "شیراز"}),
    3: (("fa_news",), {"plan": "gold"}),
    4: ((), {"city": "تهران"}),
    5: (("خبر",), {}),
    6: ((), {}),
    7: (("vip",), {"plan": "gold"}),    # blocked: in no segment
    8: (("vip",), {"plan": "gold"}),    # opted out: in no segment
}
JOB, RETRY = 900, 901
# user offset -> (item status in JOB, clicked): 3 got it via the retry below
HISTORY = {1: ("sent", True), 2: ("sent", False), 4: ("failed", False), 7: ("sent", True)}


def uid(n: int) -> int:
    """Return the user id of offset n."""
    return U + n


def seed() -> None:
    """Insert PEOPLE with their tags and fields, and broadcast JOB (and a retry of it reaching user 3)."""
    now = utcnow()
    db.session.execute(insert(User), [
        dict(id=uid(n), first_name="u", language_code="fa", started_at=now, last_seen_at=now,
             is_blocked=n == 7, opted_out_at=now if n == 8 else None) for n in PEOPLE])
    db.session.execute(insert(UserTag), [dict(user_id=uid(n), tag=t, origin="cli", created_at=now)
                                         for n, (tags, _) in PEOPLE.items() for t in tags])
    db.session.execute(insert(UserField), [dict(user_id=uid(n), name=k, value=v, updated_at=now)
                                           for n, (_, f) in PEOPLE.items() for k, v in f.items()])
    for job_id, retry_of in ((JOB, None), (RETRY, JOB)):
        db.session.add(BroadcastJob(id=job_id, status="completed", audience="all", content_type="text", text="x",
                                    created_at=now - timedelta(days=1), retry_of=retry_of))
    db.session.flush()
    items = [dict(job_id=JOB, user_id=uid(n), status=s, clicked_at=now if c else None)
             for n, (s, c) in HISTORY.items()]
    items.append(dict(job_id=RETRY, user_id=uid(3), status="sent", clicked_at=now))
    db.session.execute(insert(BroadcastJobItem), items)
    db.session.commit()
