"""An album job through pump(): copyMessages per recipient, every part taking a slot of the rate."""
import time

import pytest

from app.extensions import db
from app.models import BroadcastJobItem
from app.services.broadcast.content.methods import message_params
from app.services.broadcast.jobs import creation
from app.services.broadcast.sending.drain import pump
from tests.broadcast.helpers import BASE_ID, assert_consistent, create_users, engine_settings, reload

FAST = engine_settings(broadcast_rate_per_second=28)


def album_job(simulator, n_parts: int = 3, **kw):
    """Store an admin's album in the simulator and create a job for it."""
    ids = [simulator.add_message(1001, photo=f"p{i}", caption="آلبوم" if i == 0 else None) for i in range(n_parts)]
    job = creation.create_job(audience="all", created_by=1001, settings=kw.pop("settings", FAST),
                              content={"type": "album", "from_chat_id": 1001, "message_ids": list(reversed(ids))}, **kw)
    return job, ids


def test_every_part_counts_against_the_rate_and_each_user_gets_one_album(app, simulator):
    users = create_users(30)
    job, ids = album_job(simulator)
    assert message_params(job, False) == ("copyMessages", {"from_chat_id": 1001, "message_ids": ids})
    started = time.monotonic()
    assert pump(job.id, 30, settings=FAST).stop == "done"
    elapsed = time.monotonic() - started
    job = reload(job.id)
    assert (job.status, job.sent_count, job.total_count) == ("completed", 30, 30)
    assert_consistent(job.id)
    stored = dict(db.session.execute(db.select(BroadcastJobItem.user_id, BroadcastJobItem.message_id)
                                     .where(BroadcastJobItem.job_id == job.id)).all())
    db.session.commit()
    for user_id in users:
        parts = simulator.deliveries("copyMessages", user_id)
        assert [p["source_message_id"] for p in parts] == ids and len({p["album"] for p in parts}) == 1
        assert stored[user_id] == parts[0]["message_id"], "an album's item keeps its first part's message id"
    stats = simulator.stats()
    # 90 parts at 28/s: a pump counting one slot per album would send 84 parts a second and meet 429s.
    assert stats["429_total"] == 0 and stats["busiest_second"] <= 30, stats
    assert elapsed >= (90 - 30) / 30, elapsed
    assert [d for d in simulator.deliveries() if d["chat_id"] >= BASE_ID and d["method"] != "copyMessages"] == []


def test_album_content_is_checked(app, simulator):
    create_users(1)
    for bad, error in [({"message_ids": []}, "1 to 10 "), ({"message_ids": list(range(1, 12))}, "1 to 10 "),
                       ({"message_ids": ["x"]}, "integer"), ({"message_ids": [0, 1]}, "positive")]:
        with pytest.raises(ValueError, match=error):
            creation.create_job(audience="all", created_by=1, settings=FAST,
                                content={"type": "album", "from_chat_id": 1001, **bad})
    with pytest.raises(ValueError, match="no button"):
        creation.create_job(audience="all", created_by=1, settings=FAST, button_text="Go", button_url="https://x.org",
                            content={"type": "album", "from_chat_id": 1001, "message_ids": [1, 2]})


def test_an_album_never_goes_paid(app, simulator):
    create_users(2)
    paid = engine_settings(broadcast_paid_enabled=True)
    job, ids = album_job(simulator, 2, settings=paid)
    assert not job.paid and job.paid_limit is None
    assert pump(job.id, 10, settings=paid).stop == "done"
    assert simulator.stats()["paid_deliveries"] == 0 and len(simulator.deliveries("copyMessages")) == 4
