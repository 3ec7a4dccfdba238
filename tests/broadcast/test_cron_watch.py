"""Pump runs recorded bot-wide; late cron alerted once per outage, shown to admins, reported by /healthz."""
from __future__ import annotations

import threading
import time
from datetime import timedelta

import pytest
from sqlalchemy import update

from app.bot.history import _view
from app.extensions import db
from app.models import BroadcastJob, CronWatch, PumpRun
from app.repository import pump_runs as repo
from app.repository.db_clock import db_utcnow
from app.services.broadcast.reporting.progress import refresh_progress
from app.services.broadcast.schedule import cron_watch
from app.services.broadcast.sending import fallback
from app.services.broadcast.sending import runner as interactive
from app.services.settings import load_settings, set_setting
from app.services.telegram_factory import get_client, new_outbox
from app.settings_schema import SettingError, parse_value
from tests.broadcast.helpers import create_text_job, create_users, reload
from tests.conftest import ADMIN_ID, PUMP_TOKEN

AUTH = {"Authorization": f"Bearer {PUMP_TOKEN}"}


def runs() -> dict[str, PumpRun]:
    """Return the pump_runs rows by source, fresh."""
    db.session.expire_all()
    rows = {r.source: r for r in repo.all_runs()}
    db.session.commit()
    return rows


def age_job(job_id: int, minutes: float) -> None:
    """Make the job look as if it had been waiting for minutes."""
    when = db_utcnow() - timedelta(minutes=minutes)
    db.session.execute(update(BroadcastJob).where(BroadcastJob.id == job_id).values(created_at=when, started_at=when))
    db.session.commit()


def age_cron(minutes: float) -> None:
    """Move cron's last start minutes into the past (the watch row must exist)."""
    db.session.execute(update(CronWatch).values(last_cron_at=db_utcnow() - timedelta(minutes=minutes)))
    db.session.commit()


def cron_alerts(simulator, chat_id: int = ADMIN_ID) -> list[str]:
    """Return the cron alerts the chat received."""
    texts = (d.get("text") or "" for d in simulator.deliveries("sendMessage", chat_id))
    return [text for text in texts if "/internal/pump" in text]


def test_cron_the_cli_an_admin_and_the_fallback_are_each_recorded(app, client, runner, simulator, monkeypatch):
    monkeypatch.setattr(fallback, "FALLBACK_SLICE_SECONDS", 1.5)  # the runs are judged, not their length
    create_users(300)  # more than the four short runs below can send
    job = create_text_job()
    set_setting("webhook_pump_calls", 1)
    set_setting("webhook_pump_seconds", 1)
    outbox = new_outbox(get_client(load_settings()))
    runner_status = interactive.run_interactive(job.id, settings=load_settings(), outbox=outbox, chat_id=ADMIN_ID)
    admin = runs()["admin"]
    assert (admin.runs, admin.last_processed) == (1, 300 - runner_status.pending)
    assert client.post("/internal/pump", headers=AUTH, query_string={"seconds": "1"}).status_code == 200
    assert runner.invoke(args=["broadcast", "pump", "--seconds", "1"]).exit_code == 0
    age_job(job.id, 10)
    age_cron(10)
    assert fallback.drain_slice()
    rows = runs()
    assert set(rows) == {"admin", "cron", "cli", "fallback"}
    assert all(r.runs == 1 and r.last_started_at <= r.last_finished_at for r in rows.values())
    # Every item was processed by exactly one of the runs.
    assert sum(r.processed_total for r in rows.values()) == reload(job.id).processed_count
    assert all(r.processed_total > 0 for r in rows.values()), {s: r.processed_total for s, r in rows.items()}
    assert rows["cron"].ms_total == rows["cron"].last_ms >= 0


def test_no_alert_while_cron_is_on_time_or_nothing_waits(app, client, simulator):
    assert fallback.drain_slice() is None  # nothing waits: never late, even with no cron ever
    create_users(5)
    job = create_text_job()
    assert not cron_watch.cron_state(load_settings()).late  # waiting only just began
    assert client.post("/internal/pump", headers=AUTH).status_code == 200
    age_job(job.id, 10)
    create_text_job()
    assert not cron_watch.cron_state(load_settings()).late  # cron started moments ago
    assert fallback.drain_slice() is None
    assert cron_alerts(simulator) == []


@pytest.mark.slow  # real pumps and fallback slices: handed out first in the parallel phase
def test_one_alert_per_outage_and_a_new_one_after_cron_came_back(app, client, simulator, monkeypatch):
    # Slices of 1.5 s, not 4 s: what is judged is the alerts, not a slice's length (4 slices ran 16 s).
    monkeypatch.setattr(fallback, "FALLBACK_SLICE_SECONDS", 1.5)
    create_users(150)  # more than two 1.5 s slices send (~90 at 29/s): the job still waits at the second one
    set_setting("cron_alert_minutes", 5)
    job = create_text_job()
    age_job(job.id, 4)
    assert not cron_watch.cron_state(load_settings()).late  # 4 < 5 minutes
    age_job(job.id, 6)
    state = cron_watch.cron_state(load_settings())
    assert state.late and state.last_cron_at is None and [w[0] for w in state.waiting] == [job.id]
    fallback.drain_slice()
    assert fallback.drain_slice(), "the second slice found nothing waiting: the test needs more users"
    alerts = cron_alerts(simulator)
    assert len(alerts) == 1, alerts
    assert "cron" in alerts[0] and "/internal/pump" in alerts[0] and f"#{job.id}" in alerts[0]
    assert "A broadcast is not moving" not in alerts[0]  # Persian admin: the Persian guide's section
    assert "ارسال همگانی جلو نمی‌رود" in alerts[0] and "DEPLOY_CPANEL_FA.md" in alerts[0]
    # Cron comes back: the outage ends; goes missing again: one new alert.
    second = create_text_job()
    assert client.post("/internal/pump", headers=AUTH, query_string={"seconds": "1"}).status_code == 200
    assert db.session.get(CronWatch, 1, populate_existing=True).alerted_at is None
    db.session.commit()
    fallback.drain_slice()
    assert len(cron_alerts(simulator)) == 1
    age_cron(6)
    age_job(second.id, 6)
    fallback.drain_slice()
    fallback.drain_slice()
    assert len(cron_alerts(simulator)) == 2


def test_the_alert_is_claimed_once_and_cron_seen_releases_it(app):
    now = db_utcnow()
    assert repo.claim_alert(now, now - timedelta(minutes=3))
    assert not repo.claim_alert(now, now - timedelta(minutes=3))
    repo.cron_seen(now)
    assert not repo.claim_alert(now, now - timedelta(minutes=3))  # cron ran after the cutoff
    assert repo.claim_alert(now + timedelta(minutes=4), now + timedelta(minutes=1))
    db.session.commit()


def test_one_slice_lease_bot_wide(app):
    now = db_utcnow()
    assert repo.take_slice("a", now, now + timedelta(seconds=20))
    assert not repo.take_slice("b", now, now + timedelta(seconds=20))
    repo.release_slice("b")  # not its lease: no effect
    assert not repo.take_slice("b", now + timedelta(seconds=5), now + timedelta(seconds=25))
    assert repo.take_slice("b", now + timedelta(seconds=21), now + timedelta(seconds=41))  # a's expired
    repo.release_slice("b")
    assert repo.take_slice("c", now, now + timedelta(seconds=20))
    db.session.commit()


def test_the_job_view_and_progress_message_say_when_cron_last_ran(app, client, simulator):
    create_users(5)
    assert client.post("/internal/pump", headers=AUTH, query_string={"seconds": "1"}).status_code == 200
    job = create_text_job()
    age_job(job.id, 20)
    age_cron(7)
    line = cron_watch.late_line(load_settings(), "en")
    assert line == "\n\n⏰ Last cron run 7 min ago (check the cron job)"
    assert "7 دقیقه پیش" in cron_watch.late_line(load_settings(), "fa")
    outbox = new_outbox(get_client(load_settings()))
    interactive.ensure_progress_message(job.id, outbox=outbox, chat_id=ADMIN_ID, lang="en")
    refresh_progress(job.id, outbox=outbox, lang="en")
    outbox.close(deadline=time.monotonic() + 5)
    edited = [m["text"] for m in simulator.bot_messages(ADMIN_ID)]
    assert len(edited) == 1 and edited[0].endswith(line.strip()), edited
    text, _ = _view(reload(job.id), "en")
    assert text.endswith(line)
    # Once cron runs again the line goes away.
    age_cron(0)
    assert cron_watch.late_line(load_settings(), "en") == ""
    assert not _view(reload(job.id), "en")[0].endswith(line)
    # A paused job waits for an admin, not for cron: no line even while cron is late.
    age_cron(7)
    assert cron_watch.late_line(load_settings(), "en", "paused") == ""


def test_healthz_reports_the_last_cron_run_and_the_strict_form_is_503_while_late(app, client):
    body = client.get("/healthz").get_json()
    assert body["cron"] == {"last_run": None, "minutes_ago": None, "late": False, "waiting_jobs": []}
    assert client.get("/healthz?cron=1").status_code == 200
    create_users(3)
    job = create_text_job()
    age_job(job.id, 10)
    late = client.get("/healthz?cron=1")
    assert late.status_code == 503
    assert late.get_json()["cron"]["late"] is True and late.get_json()["cron"]["waiting_jobs"] == [job.id]
    assert "cron is late" in late.get_json()["error"]
    assert client.get("/healthz").status_code == 200  # the plain form stays 200: the database is fine
    assert client.post("/internal/pump", headers=AUTH, query_string={"seconds": "1"}).status_code == 200
    fine = client.get("/healthz?cron=1")
    assert fine.status_code == 200 and fine.get_json()["cron"]["minutes_ago"] == 0
    assert fine.get_json()["cron"]["last_run"].endswith("Z")


@pytest.mark.parametrize("raw", ["0", "61", "2.5"])
def test_cron_alert_minutes_is_1_to_60(raw):
    with pytest.raises(SettingError):
        parse_value("cron_alert_minutes", raw)
    assert parse_value("cron_alert_minutes", "60") == 60


def test_of_many_processes_seeing_the_outage_at_once_one_claims_the_alert(app):
    now = db_utcnow()
    repo.cron_seen(now - timedelta(minutes=10))
    db.session.commit()
    barrier, won = threading.Barrier(6), []

    def claim() -> None:
        with app.app_context():
            barrier.wait()
            won.append(repo.claim_alert(now, now - timedelta(minutes=3)))
            db.session.commit()
            db.session.remove()

    threads = [threading.Thread(target=claim) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert sorted(won) == [False] * 5 + [True]
