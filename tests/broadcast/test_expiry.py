"""Auto-expiry: each copy deleted for everyone T after its own sent_at, by cron, once, never before its time."""
from __future__ import annotations

import threading
from datetime import timedelta
from types import SimpleNamespace

import pytest
from sqlalchemy import func, select

from app.extensions import db
from app.models import BroadcastJob, BroadcastJobItem
from app.models.broadcast import KIND_UNSEND, TOO_OLD
from app.repository.db_clock import db_utcnow
from app.services import audit
from app.services.broadcast.actions import expiry, unsend_edit
from app.services.broadcast.jobs.expiry_time import parse_after
from app.services.broadcast.reporting.expiry_view import expiry_line
from tests.broadcast.helpers import assert_consistent, at_once, create_text_job, create_users, engine_settings, reload
from tests.broadcast.test_actions import copies, counters, run, sent_job

I = BroadcastJobItem  # noqa: E741
J = BroadcastJob


def unsend_jobs(source: int) -> list[int]:
    """Return the ids of the unsend jobs of a broadcast."""
    ids = db.session.execute(select(J.id).where(J.source_job_id == source, J.kind == KIND_UNSEND)
                             .order_by(J.id)).scalars().all()
    db.session.commit()
    return list(ids)


def age(source: int, users: list[int], by: timedelta) -> None:
    """Make some copies older (as if sent `by` earlier)."""
    for item in db.session.execute(select(I).where(I.job_id == source, I.user_id.in_(users))).scalars():
        item.sent_at -= by  # in Python: date arithmetic in SQL differs between SQLite and MySQL
    db.session.commit()


def test_expiry_fires_on_time_and_deletes_every_copy_once(app, simulator):
    settings = engine_settings()
    users, source = sent_job(simulator, 12, settings)
    expiry.set_expiry(source, timedelta(hours=6), audit.ACTOR_CLI)
    now = db_utcnow()
    assert "⏳" in expiry_line(reload(source), now, "fa") and "(in 6 h 0 min)" in expiry_line(reload(source), now, "en")
    assert expiry.run_due(settings, now + timedelta(hours=5, minutes=58)) == []  # not yet: nothing deleted early
    assert unsend_jobs(source) == []
    [job_id] = expiry.run_due(settings, now + timedelta(hours=6, minutes=1))
    assert reload(source).expire_at is None  # every copy covered: no later pass
    run(job_id, settings)
    assert copies(simulator, users) == {}
    assert counters(job_id) == dict(total=12, sent=12, gone=0, too_old=0, skipped=0, failed=0, unknown=0, pending=0)
    assert expiry.run_due(settings, now + timedelta(hours=7)) == []
    assert [e["action"] for e in audit.entries(source)][-2:] == [audit.EXPIRY_SET, audit.EXPIRED]
    assert "done" in expiry_line(reload(source), db_utcnow(), "en")


def test_each_copy_expires_from_its_own_sent_at_never_before(app, simulator):
    settings = engine_settings()
    users, source = sent_job(simulator, 10, settings)
    early = users[:4]
    age(source, early, timedelta(hours=3))  # a long broadcast: these went three hours before the rest
    job = reload(source)
    job.started_at -= timedelta(hours=3)
    db.session.commit()
    expiry.set_expiry(source, timedelta(hours=6), audit.ACTOR_CLI)
    now = db_utcnow()
    [first] = expiry.run_due(settings, now + timedelta(hours=3, minutes=1))
    run(first, settings)
    assert sorted(copies(simulator, users)) == sorted(users[4:])  # only the early copies were T old
    assert reload(source).expire_at >= now + timedelta(hours=5, minutes=59)  # next: when the rest are T old
    assert expiry.run_due(settings, now + timedelta(hours=5)) == []
    [second] = expiry.run_due(settings, now + timedelta(hours=6, minutes=1))
    run(second, settings)
    assert copies(simulator, users) == {} and counters(second)["sent"] == 6
    assert sorted(a["chat_id"] for a in simulator.delete_attempts()) == sorted(users)  # each deleted once


def test_two_cron_calls_at_once_create_exactly_one_expiry_job(app, simulator):
    settings = engine_settings()
    users, source = sent_job(simulator, 8, settings)
    expiry.set_expiry(source, timedelta(hours=1), audit.ACTOR_CLI)
    due = db_utcnow() + timedelta(hours=1, minutes=1)
    made = [job_id for found in at_once(app, lambda: expiry.run_due(settings, due), 2) for job_id in found]
    assert len(made) == 1
    assert unsend_jobs(source) == made
    assert db.session.execute(select(func.count()).select_from(I).where(I.job_id == made[0])).scalar() == 8
    db.session.commit()


def test_two_passes_that_both_read_the_due_expiry_make_one_unsend_job(app, simulator, monkeypatch):
    """Both cron passes list the job as due before either claims it: the one that locks second makes nothing."""
    settings = engine_settings()
    users, source = sent_job(simulator, 4, settings)
    expiry.set_expiry(source, timedelta(hours=1), audit.ACTOR_CLI)
    both_listed, lock = threading.Barrier(2, timeout=20), expiry.lineage.lock

    def lock_after_both_listed(job_id):
        both_listed.wait()  # each pass has read expire_at <= now
        return lock(job_id)

    monkeypatch.setattr(expiry.lineage, "lock", lock_after_both_listed)
    due = db_utcnow() + timedelta(hours=1, minutes=1)
    made = [job_id for found in at_once(app, lambda: expiry.run_due(settings, due), 2) for job_id in found]
    assert len(made) == 1 and unsend_jobs(source) == made
    assert sorted(db.session.execute(select(I.user_id).where(I.job_id == made[0])).scalars()) == users
    db.session.commit()
    assert reload(source).expire_at is None  # every copy is in that one job: this expiry is done


def test_a_pass_that_read_expire_at_before_the_winner_claimed_claims_nothing(app, simulator):
    """Break the lock on purpose: a pass still holding the expire_at it read matches nothing once another moved it."""
    settings = engine_settings()
    users, source = sent_job(simulator, 2, settings)
    expiry.set_expiry(source, timedelta(hours=1), audit.ACTOR_CLI)
    seen = SimpleNamespace(id=source, expire_at=reload(source).expire_at)  # what the losing pass read
    due = db_utcnow() + timedelta(hours=1, minutes=1)
    [made] = expiry.run_due(settings, due)
    assert expiry._claim(seen, due + expiry.PASS_GAP) is False
    db.session.rollback()
    assert reload(source).expire_at is None and unsend_jobs(source) == [made]


def test_cron_missing_then_returning_counts_copies_past_48_hours_too_old_and_never_tries_them(app, simulator):
    settings = engine_settings()
    users, source = sent_job(simulator, 10, settings)
    stale = users[:6]
    age(source, stale, timedelta(hours=47, minutes=55))  # cron was away for two days
    expiry.set_expiry(source, timedelta(hours=1), audit.ACTOR_CLI)
    [job_id] = expiry.run_due(settings, db_utcnow() + timedelta(hours=1, minutes=1))
    run(job_id, settings)
    assert counters(job_id) == dict(total=10, sent=4, gone=0, too_old=6, skipped=0, failed=0, unknown=0, pending=0)
    assert sorted(a["chat_id"] for a in simulator.delete_attempts()) == sorted(users[6:])  # never attempted
    errors = db.session.execute(select(I.error).where(I.job_id == job_id, I.status == TOO_OLD)).scalars().all()
    db.session.commit()
    assert len(errors) == 6 and all("48 hours" in e for e in errors)
    assert_consistent(job_id)


def test_cancel_before_due_deletes_nothing(app, simulator):
    settings = engine_settings()
    users, source = sent_job(simulator, 5, settings)
    expiry.set_expiry(source, timedelta(hours=2), audit.ACTOR_CLI)
    assert expiry.cancel_expiry(source, audit.ACTOR_CLI) is True
    assert expiry.cancel_expiry(source, audit.ACTOR_CLI) is False
    assert expiry.run_due(settings, db_utcnow() + timedelta(hours=3)) == []
    assert len(copies(simulator, users)) == 5


def test_refusals_and_a_job_still_sending_waits(app, simulator):
    settings = engine_settings()
    for text in ("48h", "3000m", "soon", "0m"):
        with pytest.raises(ValueError):
            parse_after(text)
    assert parse_after("47h") == timedelta(hours=47) and parse_after("90m") == timedelta(minutes=90)
    users, source = sent_job(simulator, 3, settings)
    unsend = unsend_edit.unsend_job(source, settings=settings)
    with pytest.raises(unsend_edit.NotActionable) as refused:
        expiry.set_expiry(unsend.id, timedelta(hours=1), audit.ACTOR_CLI)
    assert refused.value.key == "act_is_action"
    # Set before sending: the pass waits while the job still sends, then runs.
    create_users(2, start=9_000_000)
    job = create_text_job(settings=settings)
    expiry.set_expiry(job.id, timedelta(hours=1), audit.ACTOR_CLI)
    seen = reload(job.id).expire_at
    assert expiry.run_due(settings, db_utcnow() + timedelta(hours=2)) == []
    assert reload(job.id).expire_at == seen  # not claimed: the next cron looks again


def test_cli_expire_pin_and_create_expire_after(app, simulator):
    settings = engine_settings()
    users, source = sent_job(simulator, 3, settings)
    runner = app.test_cli_runner()
    refused = runner.invoke(args=["broadcast", "expire", str(source), "--after", "48h"])
    assert refused.exit_code == 2 and "47h" in refused.output
    result = runner.invoke(args=["broadcast", "expire", str(source), "--after", "6h", "--json"])
    assert result.exit_code == 0 and '"expire_after": 21600' in result.output
    result = runner.invoke(args=["broadcast", "pin", str(source), "--notify", "--json"])
    assert result.exit_code == 0 and '"notify": true' in result.output
    result = runner.invoke(args=["broadcast", "create", "--audience", "all", "--text", "hi", "--expire-after", "50h"])
    assert result.exit_code == 2 and "47h" in result.output
