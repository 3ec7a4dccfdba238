"""Scheduled jobs on the real database: due on the database's clock, missed ones asked about once."""
from datetime import timedelta, timezone

import pytest
from sqlalchemy import update

from app.extensions import db
from app.models import BroadcastJob
from app.repository import broadcast_schedule as repo
from app.repository.db_clock import db_utcnow
from app.services.broadcast.jobs import control
from app.services.broadcast.jobs.status import job_status
from app.services.broadcast.schedule import releases
from app.services.broadcast.schedule.send_time import SendTimeError
from app.services.broadcast.sending.drain import pump_all
from tests.broadcast.helpers import BASE_ID, assert_consistent, create_text_job, create_users, engine_settings, reload
from tests.conftest import ADMIN_ID

FAST = engine_settings(broadcast_rate_per_second=30)
GRACE = timedelta(minutes=FAST["schedule_grace_minutes"])


def now():
    value = db_utcnow()
    db.session.commit()
    return value


def set_send_at(job_id, when):
    """Move a job's send time directly, as if time had passed (or the site had been down)."""
    db.session.execute(update(BroadcastJob).where(BroadcastJob.id == job_id).values(send_at=when))
    db.session.commit()


def test_a_scheduled_job_is_populated_but_waits(app, simulator):
    create_users(3)
    send_at = (now() + timedelta(hours=1)).replace(microsecond=0)
    job = create_text_job(send_at=send_at)
    assert (job.status, job.total_count, job.send_at, job.missed_at) == ("scheduled", 3, send_at, None)
    assert control.start_next_if_idle() is None  # never promoted by the queue
    assert pump_all(2, settings=FAST) == []
    assert reload(job.id).status == "scheduled" and simulator.deliveries() == []
    status = job_status(reload(job.id))
    assert (status.status, status.pending, status.schedule_missed) == ("scheduled", 3, False)
    assert status.as_dict()["send_at"] == send_at.isoformat() + "Z"


def test_a_time_in_the_past_is_refused_and_nothing_is_created(app):
    create_users(1)
    with pytest.raises(SendTimeError) as err:
        create_text_job(send_at=now() - timedelta(seconds=1))
    assert err.value.key == "sched_err_past"
    assert control.list_jobs() == []


def test_due_job_is_queued_behind_a_running_one_then_sent(app, simulator):
    create_users(2)
    running = create_text_job(text="first")
    assert running.status == "running"
    later = create_text_job(text="second", send_at=now() + timedelta(hours=1))
    set_send_at(later.id, now() - timedelta(seconds=1))
    assert releases.start_due(FAST) == 1
    assert reload(later.id).status == "queued"  # the running job keeps the slot
    results = pump_all(20, settings=FAST)
    assert [r.job_id for r in results] == [running.id, later.id]
    assert (reload(running.id).status, reload(later.id).status) == ("completed", "completed")
    assert_consistent(later.id)
    copies = [d["text"] for d in simulator.deliveries("sendMessage") if d["chat_id"] >= BASE_ID]  # not alerts
    assert sorted(copies) == ["first"] * 2 + ["second"] * 2


def test_pump_all_waits_for_a_job_due_within_its_budget(app, simulator):
    create_users(2)
    job = create_text_job(send_at=now() + timedelta(hours=1))
    due = (now() + timedelta(seconds=2)).replace(microsecond=0)
    set_send_at(job.id, due)
    results = pump_all(15, settings=FAST)
    assert [r.stop for r in results] == ["done"]
    first = min(d["t"] for d in simulator.deliveries("sendMessage"))
    assert first >= due.replace(tzinfo=timezone.utc).timestamp()


def test_a_missed_job_is_flagged_once_and_never_sent_on_its_own(app, simulator):
    create_users(2)
    job = create_text_job(send_at=now() + timedelta(hours=1))
    set_send_at(job.id, now() - GRACE - timedelta(seconds=5))
    assert releases.start_due(FAST) == 0
    at = now()
    assert repo.mark_missed(job.id, at, GRACE) is True
    assert repo.mark_missed(job.id, at, GRACE) is False  # a second cron process: no second question
    db.session.commit()
    assert releases.ask_about_missed(FAST) == []
    pump_all(2, settings=FAST)
    row = reload(job.id)
    assert (row.status, row.missed_at is not None, row.sent_count) == ("scheduled", True, 0)
    assert simulator.deliveries() == []


def test_a_late_job_within_grace_still_starts(app, simulator):
    create_users(1)
    job = create_text_job(send_at=now() + timedelta(hours=1))
    set_send_at(job.id, now() - GRACE + timedelta(seconds=30))
    pump_all(10, settings=FAST)
    assert reload(job.id).status == "completed"


def test_cron_asks_every_admin_once_per_missed_job(app, simulator):
    from tests.factories import create_user

    create_user(ADMIN_ID, language_code="en")
    create_user(2002, is_admin=True)  # an admin by the users table, Persian
    create_users(2)
    job = create_text_job(send_at=now() + timedelta(hours=1))
    set_send_at(job.id, now() - GRACE - timedelta(minutes=1))
    assert releases.ask_about_missed(FAST) == [job.id]
    assert releases.ask_about_missed(FAST) == []
    [to_admin] = simulator.deliveries("sendMessage", ADMIN_ID)
    [to_other] = simulator.deliveries("sendMessage", 2002)
    assert to_admin["text"].startswith(f"⚠️ Scheduled broadcast #{job.id} did not go out")
    assert to_other["text"].startswith(f"⚠️ ارسال زمان‌بندی‌شده‌ی #{job.id}")
    data = [b["callback_data"] for row in to_admin["reply_markup"]["inline_keyboard"] for b in row]
    assert data == [f"w.send_now:{job.id}", f"w.cancel_job:{job.id}"]
    assert simulator.deliveries("sendMessage", 5_000_000_000) == []


def test_send_now_releases_a_missed_job_once(app, simulator):
    create_users(1)
    job = create_text_job(send_at=now() + timedelta(hours=1))
    set_send_at(job.id, now() - GRACE - timedelta(minutes=1))
    releases.ask_about_missed(FAST)
    assert releases.send_now(job.id) is True
    assert releases.send_now(job.id) is False
    assert reload(job.id).status == "running"


def test_reschedule_and_cancel_until_it_starts(app, simulator):
    create_users(1)
    job = create_text_job(send_at=now() + timedelta(hours=1))
    set_send_at(job.id, now() - GRACE - timedelta(minutes=1))
    releases.ask_about_missed(FAST)
    new_time = (now() + timedelta(hours=2)).replace(microsecond=0)
    assert releases.reschedule(job.id, new_time) is True
    row = reload(job.id)
    assert (row.status, row.send_at, row.missed_at) == ("scheduled", new_time, None)  # missed flag cleared
    with pytest.raises(SendTimeError):
        releases.reschedule(job.id, now() - timedelta(minutes=1))
    assert control.cancel_job(job.id) is True
    assert reload(job.id).status == "cancelled"
    assert releases.reschedule(job.id, new_time) is False
    assert releases.send_now(job.id) is False


def test_two_cron_processes_release_a_due_job_once(app, simulator):
    create_users(1)
    job = create_text_job(send_at=now() + timedelta(hours=1))
    set_send_at(job.id, now() - timedelta(seconds=1))
    assert repo.release_due(now(), GRACE) == 1
    assert repo.release_due(now(), GRACE) == 0
    db.session.commit()
    assert reload(job.id).status == "queued"


def test_the_grace_is_a_setting(app, simulator):
    from app.services.settings import load_settings, set_setting

    assert load_settings()["schedule_grace_minutes"] == 60
    create_users(1)
    job = create_text_job(send_at=now() + timedelta(hours=1))
    set_send_at(job.id, now() - timedelta(minutes=2))
    set_setting("schedule_grace_minutes", "1")
    tight = load_settings()
    assert releases.start_due(tight) == 0
    assert releases.ask_about_missed(tight) == [job.id]
    assert reload(job.id).status == "scheduled"
