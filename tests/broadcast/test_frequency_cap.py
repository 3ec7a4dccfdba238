"""The daily cap per user: checked per block at claim time, skipped with a reason, counters exact."""
from datetime import timedelta

import pytest
from sqlalchemy import select, update
from sqlalchemy.exc import OperationalError

from app.extensions import db
from app.models import BroadcastJobItem
from app.repository import sending_rules as rules_repo
from app.repository.db_clock import db_utcnow
from app.services.broadcast.actions import retry
from app.services.broadcast.jobs.status import job_status
from app.services.broadcast.schedule import quiet_hours
from app.services.broadcast.sending.drain import pump
from tests.broadcast.helpers import assert_consistent, create_text_job, create_users, engine_settings, reload

CAP2 = engine_settings(max_broadcasts_per_user_per_day=2)


def _items(job_id: int) -> dict[int, tuple[str, str | None]]:
    rows = db.session.execute(select(BroadcastJobItem.user_id, BroadcastJobItem.status, BroadcastJobItem.error)
                              .where(BroadcastJobItem.job_id == job_id)).all()
    db.session.commit()
    return {u: (s, e) for u, s, e in rows}


def _send(users, settings=CAP2, text="x"):
    job = create_text_job(text=text, settings=settings)
    assert pump(job.id, 30, settings=settings).stop == "done"
    return job


def test_a_third_broadcast_in_a_day_is_skipped_with_its_reason(app, simulator):
    users = create_users(5)
    first, second = _send(users), _send(users)
    assert reload(first.id).sent_count == reload(second.id).sent_count == 5
    third = _send(users, text="third")
    row = reload(third.id)
    assert (row.sent_count, row.skipped_count, row.capped_count) == (0, 5, 5)
    assert not [d for d in simulator.deliveries("sendMessage") if d["text"] == "third"]
    assert set(_items(third.id).values()) == {("skipped", "frequency_cap")}
    assert job_status(row).as_dict()["frequency_capped"] == 5
    assert_consistent(third.id)


def test_only_users_at_the_cap_are_skipped_and_yesterday_does_not_count(app, simulator):
    users = create_users(6)
    first = _send(users)
    # Three users' copy of the first broadcast was yesterday (Tehran): only today's count.
    start = quiet_hours.tehran_day_start(db_utcnow())
    db.session.execute(update(BroadcastJobItem).where(BroadcastJobItem.job_id == first.id,
                                                      BroadcastJobItem.user_id.in_(users[:3]))
                       .values(sent_at=start - timedelta(seconds=1)))
    db.session.commit()
    _send(users)
    third = _send(users, text="third")
    items = _items(third.id)
    assert sorted(d["chat_id"] for d in simulator.deliveries("sendMessage") if d["text"] == "third") == users[:3]
    assert {u for u, (s, _) in items.items() if s == "sent"} == set(users[:3])
    assert {u for u, (s, e) in items.items() if (s, e) == ("skipped", "frequency_cap")} == set(users[3:])
    row = reload(third.id)
    assert (row.sent_count, row.skipped_count, row.capped_count) == (3, 3, 3)
    assert_consistent(third.id)


def test_a_broadcast_still_sending_since_yesterday_counts_and_an_old_finished_one_is_never_read(app, simulator):
    """The cap reads only jobs open or finished since the day before: those are all that can have sent today."""
    from app.models import BroadcastJob

    users = create_users(4)
    long_running, old = _send(users), _send(users)
    start = quiet_hours.tehran_day_start(db_utcnow())
    # The first began yesterday and is still open (its copies today count); the second finished two days
    # ago (its copies' sent_at are pushed back with it: nothing of it is from today).
    db.session.execute(update(BroadcastJob).where(BroadcastJob.id == long_running.id)
                       .values(started_at=start - timedelta(hours=5), finished_at=None))
    db.session.execute(update(BroadcastJob).where(BroadcastJob.id == old.id)
                       .values(finished_at=start - timedelta(days=2)))
    db.session.execute(update(BroadcastJobItem).where(BroadcastJobItem.job_id == old.id)
                       .values(sent_at=start - timedelta(days=2)))
    db.session.commit()
    assert rules_repo.capped_users(0, users, start, 1) == set(users)  # the open job's copies today
    assert rules_repo.capped_users(0, users, start, 2) == set()  # the old job's never count
    # Had the old job's copies been sent today (they cannot: it finished before), they would still be left out.
    db.session.execute(update(BroadcastJobItem).where(BroadcastJobItem.job_id == old.id).values(sent_at=start))
    db.session.commit()
    assert rules_repo.capped_users(0, users, start, 2) == set()
    db.session.commit()


def test_cap_off_sends_everything(app, simulator):
    users = create_users(3)
    off = engine_settings(max_broadcasts_per_user_per_day=0)
    for _ in range(4):
        job = _send(users, settings=off)
    assert (reload(job.id).sent_count, reload(job.id).capped_count) == (3, 0)


def test_unsends_do_not_count_and_capped_users_are_never_retried(app, simulator):
    users = create_users(2)
    first = _send(users)
    from app.services.broadcast.actions import unsend_edit

    unsend = unsend_edit.unsend_job(first.id, created_by=1001, settings=CAP2)
    pump(unsend.id, 20, settings=CAP2)
    assert reload(unsend.id).sent_count == 2  # an unsend's items are 'sent' (deleted): not broadcasts
    second = _send(users)
    assert reload(second.id).sent_count == 2
    third = _send(users)
    assert reload(third.id).capped_count == 2
    with pytest.raises(retry.NothingToRetry):
        retry.retry_job(third.id, created_by=1001)  # capped users are skipped: never retried


def test_a_failed_step_moves_no_counter_and_the_replay_counts_once(app, simulator, monkeypatch):
    users = create_users(4)
    _send(users), _send(users)
    job = create_text_job(text="last", settings=CAP2)
    calls = {"n": 0}
    real = rules_repo.skip_capped

    def flaky(job_id, item_ids):
        n = real(job_id, item_ids)
        calls["n"] += 1
        if calls["n"] == 1:  # the database fails after the skip, before the step commits
            raise OperationalError("UPDATE", {}, Exception("server has gone away"))
        return n

    monkeypatch.setattr(rules_repo, "skip_capped", flaky)
    pump(job.id, 30, settings=CAP2)
    pump(job.id, 30, settings=CAP2)
    row = reload(job.id)
    assert (row.status, row.skipped_count, row.capped_count, row.sent_count) == ("completed", 4, 4, 0)
    assert_consistent(job.id)
    assert not [d for d in simulator.deliveries("sendMessage") if d["text"] == "last"]
