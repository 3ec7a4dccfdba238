"""Quiet hours (Tehran): a broadcast pauses on reaching them and cron resumes it after; urgent ones go on."""
import json
from datetime import datetime, time, timedelta

import pytest
from sqlalchemy import select

from app.extensions import db
from app.models.audit import AuditEntry as AuditLog
from app.repository import sending_rules as rules_repo
from app.repository.db_clock import db_utcnow
from app.services.broadcast.jobs import control
from app.services.broadcast.schedule import quiet_hours
from app.services.broadcast.schedule.quiet_release import resume_after_quiet
from app.services.broadcast.sending.drain import pump, pump_all
from app.services.settings import load_settings, set_setting
from app.settings_schema import SettingError, parse_value
from tests.broadcast.helpers import BASE_ID, assert_consistent, create_text_job, create_users, reload
from tests.conftest import ADMIN_ID

REAL_WALL = quiet_hours._wall


class TehranClock:
    """Moves the Tehran wall time quiet hours read (the database's clock, shifted), nothing else."""

    def __init__(self):
        self.offset = timedelta(0)

    def wall(self, now_utc: datetime) -> datetime:
        return REAL_WALL(now_utc + self.offset)

    def set(self, hhmm: str, days: int = 0) -> None:
        real = REAL_WALL(db_utcnow())
        db.session.commit()
        target = datetime.combine(real.date() + timedelta(days=days), time.fromisoformat(hhmm))
        self.offset = target - real


@pytest.fixture
def tehran(monkeypatch):
    clock = TehranClock()
    monkeypatch.setattr(quiet_hours, "_wall", clock.wall)
    return clock


@pytest.fixture
def quiet(app):
    """Quiet hours 23:00-08:00 Tehran, stored as an operator sets them."""
    set_setting("broadcast_rate_per_second", "10")
    set_setting("quiet_hours_start", "23:00")
    set_setting("quiet_hours_end", "۰۸:۰۰")  # Persian digits are read too


def utc(text: str) -> datetime:
    return datetime.fromisoformat(text)


@pytest.mark.parametrize("now,until", [
    ("2026-01-01 19:29:59", None),                   # 22:59:59 Tehran
    ("2026-01-01 19:30:00", "2026-01-02 04:30:00"),  # 23:00 enters; ends 08:00 tomorrow
    ("2026-01-01 21:00:00", "2026-01-02 04:30:00"),  # 00:30, past midnight
    ("2026-01-02 04:29:59", "2026-01-02 04:30:00"),  # 07:59:59
    ("2026-01-02 04:30:00", None),                   # 08:00 leaves
    ("2026-06-21 19:30:00", "2026-06-22 04:30:00"),  # summer: Tehran keeps +03:30 (no DST)
])
def test_the_window_wraps_midnight_and_ends_on_time(now, until):
    w = quiet_hours.window({"quiet_hours_start": "23:00", "quiet_hours_end": "08:00"})
    assert quiet_hours.quiet_until(w, utc(now)) == (utc(until) if until else None)


def test_a_window_within_a_day_and_quiet_hours_off():
    w = quiet_hours.window({"quiet_hours_start": "13:00", "quiet_hours_end": "14:00"})
    assert quiet_hours.quiet_until(w, utc("2026-01-01 09:30:00")) == utc("2026-01-01 10:30:00")
    assert quiet_hours.quiet_until(w, utc("2026-01-01 10:30:00")) is None
    assert quiet_hours.window({"quiet_hours_start": "23:00", "quiet_hours_end": ""}) is None
    assert quiet_hours.tehran_day_start(utc("2026-01-01 20:29:59")) == utc("2025-12-31 20:30:00")
    assert quiet_hours.tehran_day_start(utc("2026-01-01 20:30:00")) == utc("2026-01-01 20:30:00")


@pytest.mark.parametrize("raw", ["24:00", "23:60", "11pm", "23", "23:0"])
def test_a_bad_time_is_refused_in_one_clear_line(raw):
    with pytest.raises(SettingError, match="expected a Tehran time such as 23:00"):
        parse_value("quiet_hours_start", raw)


def test_a_window_of_no_length_is_refused_and_nothing_changes(app):
    set_setting("quiet_hours_start", "23:00")
    with pytest.raises(SettingError, match="start and end at 23:00"):
        set_setting("quiet_hours_end", "23:00")
    db.session.rollback()
    assert load_settings()["quiet_hours_end"] == ""
    assert set_setting("quiet_hours_start", "off") == ""


def _copies(simulator) -> list[int]:
    return [d["chat_id"] for d in simulator.deliveries("sendMessage") if d["chat_id"] >= BASE_ID]


def _alerts(simulator) -> list[str]:
    return [d["text"] for d in simulator.deliveries("sendMessage") if d["chat_id"] == ADMIN_ID]


def _audit(job_id: int) -> list[tuple[str, str, str | None]]:
    rows = db.session.execute(select(AuditLog.actor, AuditLog.action, AuditLog.detail)
                              .where(AuditLog.job_id == job_id).order_by(AuditLog.id)).all()
    db.session.commit()
    return [tuple(r) for r in rows]


def test_a_broadcast_pauses_on_reaching_quiet_hours_and_cron_resumes_it_after(quiet, tehran, simulator):
    create_users(30)
    tehran.set("22:58")
    job = create_text_job(settings=load_settings())
    pump(job.id, 1.0, settings=load_settings())  # a part goes before 23:00
    before = len(_copies(simulator))
    assert 0 < before < 30
    tehran.set("23:00")
    result = pump(job.id, 5, settings=load_settings())
    row = reload(job.id)
    assert (result.stop, row.status, row.pause_kind) == ("quiet_hours", "paused", "quiet")
    assert "08:00" in row.pause_reason or "۰۸:۰۰" in row.pause_reason
    assert_consistent(job.id, simulator)
    sent_at_pause = len(_copies(simulator))
    alerts = [a for a in _alerts(simulator) if "🌙" in a]
    assert len(alerts) == 1 and "۰۸:۰۰" in alerts[0]  # told once, with when it resumes
    for wall in ("23:30", "03:00"):  # past midnight: still quiet, cron does nothing
        tehran.set(wall, days=1 if wall < "12" else 0)
        pump_all(3)
        assert reload(job.id).status == "paused" and len(_copies(simulator)) == sent_at_pause
    tehran.set("08:00", days=1)
    pump_all(10)
    pump_all(10)  # a second cron call resumes nothing twice
    row = reload(job.id)
    assert (row.status, row.sent_count, row.pause_kind) == ("completed", 30, None)
    assert_consistent(job.id, simulator)
    assert [a for a in _audit(job.id) if a[1] == "resumed"] == [("system", "resumed", "quiet hours ended")]
    assert len([a for a in _alerts(simulator) if "🌙" in a]) == 1


def test_cron_missing_all_day_resumes_nothing_in_the_next_night(quiet, tehran, simulator):
    create_users(5)
    tehran.set("23:10")
    job = create_text_job(settings=load_settings(), urgent=False)
    assert reload(job.id).status == "queued"  # confirmed during quiet hours: it waits in the queue
    tehran.set("23:30", days=1)  # cron came back only the next night: quiet again
    pump_all(3)
    assert reload(job.id).status == "queued" and _copies(simulator) == []
    tehran.set("08:00", days=2)
    pump_all(10)
    assert reload(job.id).status == "completed"


def test_urgent_broadcasts_ignore_quiet_hours_and_go_first(quiet, tehran, simulator):
    create_users(4)
    tehran.set("01:00")
    waiting = create_text_job(settings=load_settings(), text="later")
    urgent = create_text_job(settings=load_settings(), text="now", urgent=True)
    assert (reload(waiting.id).status, reload(urgent.id).status) == ("queued", "running")
    pump_all(10)
    assert (reload(waiting.id).status, reload(urgent.id).status) == ("queued", "completed")
    assert_consistent(urgent.id, simulator)
    tehran.set("08:01")
    pump_all(10)
    assert reload(waiting.id).status == "completed"


def test_a_pause_by_an_admin_is_never_resumed_by_quiet_hours(quiet, tehran, simulator):
    create_users(30)
    tehran.set("22:00")
    by_admin = create_text_job(settings=load_settings())
    assert control.pause_job(by_admin.id, "by an admin", actor="admin:1")
    tehran.set("08:30")
    pump_all(3)
    assert reload(by_admin.id).status == "paused"
    # A quiet-hours pause an admin pauses again becomes theirs: cron leaves it too.
    control.resume_job(by_admin.id)
    tehran.set("23:05")
    pump(by_admin.id, 3, settings=load_settings())
    assert reload(by_admin.id).pause_kind == "quiet"
    assert control.pause_job(by_admin.id, "by an admin", actor="admin:1")
    tehran.set("09:00", days=1)
    assert resume_after_quiet(load_settings()) == []
    assert (reload(by_admin.id).status, reload(by_admin.id).pause_kind) == ("paused", None)


def test_resume_by_an_admin_during_quiet_hours_queues_until_they_end(quiet, tehran, simulator):
    create_users(3)
    tehran.set("12:00")
    job = create_text_job(settings=load_settings())
    control.pause_job(job.id, "by an admin")
    tehran.set("02:00")
    assert control.resume_job(job.id) == "queued"
    pump_all(3)
    assert reload(job.id).status == "queued" and _copies(simulator) == []
    tehran.set("08:00")
    pump_all(10)
    assert reload(job.id).status == "completed"


def test_a_scheduled_job_due_in_quiet_hours_waits_unless_urgent(quiet, tehran, simulator):
    from tests.broadcast.test_schedule import now, set_send_at

    create_users(3)
    tehran.set("23:40")
    plain = create_text_job(settings=load_settings(), text="plain", send_at=now() + timedelta(hours=1))
    urgent = create_text_job(settings=load_settings(), text="urgent", send_at=now() + timedelta(hours=1),
                             urgent=True)
    for job in (plain, urgent):
        set_send_at(job.id, now() - timedelta(seconds=1))
    pump_all(10)
    assert (reload(plain.id).status, reload(urgent.id).status) == ("queued", "completed")
    assert reload(plain.id).missed_at is None  # released on time: never "missed" for waiting out the night
    tehran.set("08:00", days=1)
    pump_all(10)
    assert reload(plain.id).status == "completed"
    assert sorted(d["text"] for d in simulator.deliveries("sendMessage") if d["chat_id"] >= BASE_ID) == \
        ["plain"] * 3 + ["urgent"] * 3


def test_two_cron_calls_resume_a_job_once(quiet, tehran, simulator):
    create_users(3)
    tehran.set("23:30")
    job = create_text_job(settings=load_settings())
    assert reload(job.id).status == "queued"
    db.session.execute(db.update(type(job)).where(type(job).id == job.id)
                       .values(status="paused", pause_kind="quiet", pause_reason="quiet"))
    db.session.commit()
    assert rules_repo.resume_after_quiet(job.id) is True
    assert rules_repo.resume_after_quiet(job.id) is False  # the other cron process matches nothing
    db.session.commit()
    assert reload(job.id).status == "queued"


def test_each_quiet_pause_writes_one_system_paused_row_and_the_report_shows_it(quiet, tehran, simulator, runner):
    # In the pause's own transaction: the results picture shades pauses from the audit log.
    create_users(30)
    tehran.set("22:58")
    job = create_text_job(settings=load_settings())
    pump(job.id, 1.0, settings=load_settings())  # a part goes before 23:00
    tehran.set("23:00")
    assert pump(job.id, 5, settings=load_settings()).stop == "quiet_hours"
    reason = reload(job.id).pause_reason
    assert [a for a in _audit(job.id) if a[1] == "paused"] == [("system", "paused", reason)]
    pump(job.id, 5, settings=load_settings())  # paused: no second pause, no second row
    pump_all(3)  # still quiet: cron neither resumes nor pauses again
    assert len([a for a in _audit(job.id) if a[1] == "paused"]) == 1
    tehran.set("08:00", days=1)
    pump_all(10)
    assert reload(job.id).status == "completed"
    assert [a[1] for a in _audit(job.id) if a[1] in ("paused", "resumed")] == ["paused", "resumed"]
    report = runner.invoke(args=["broadcast", "report", str(job.id), "--json"])
    assert report.exit_code == 0, report.output
    [pause] = json.loads(report.stdout)["pauses"]
    assert pause["reason"] == reason and "۲۳:۰۰" in pause["reason"]
    assert pause["at"] <= pause["until"]  # ISO times in one zone: shaded from the pause to the resume
