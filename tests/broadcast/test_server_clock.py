"""A server whose own clock is off decides nothing bot-wide by it: job times come from the database's clock.

Several app servers share one database; their wall clocks may differ by
minutes or hours. A job's created/started/finished times are compared with
the database's clock by every server (the cron watch, the purge floor, the
48-hour delete window), so they are written from it too.
"""
from __future__ import annotations

import sys
from datetime import timedelta

import pytest

from app import clock
from app.extensions import db
from app.models.broadcast import CANCELLED
from app.repository.db_clock import db_utcnow
from app.services.broadcast.actions import unsend_edit
from app.services.broadcast.jobs import control
from app.services.broadcast.jobs.status import job_status
from app.services.broadcast.schedule import cron_watch
from app.services.settings import load_settings
from tests.broadcast.helpers import create_text_job, create_users, engine_settings, reload
from tests.broadcast.test_actions import sent_job

OFF = timedelta(hours=1)
CLOSE = timedelta(seconds=30)


def skew_this_server(monkeypatch, by: timedelta) -> None:
    """Make this process's own clock (every app module's utcnow) run `by` off the database's."""
    real = clock.utcnow
    for module in list(sys.modules.values()):
        if getattr(module, "__name__", "").startswith("app") and getattr(module, "utcnow", None) is real:
            monkeypatch.setattr(module, "utcnow", lambda: real() + by)


@pytest.mark.parametrize("off", [-OFF, OFF], ids=["behind", "ahead"])
def test_a_job_made_on_a_server_with_a_wrong_clock_carries_the_database_time(app, monkeypatch, off):
    create_users(3)
    skew_this_server(monkeypatch, off)
    job = reload(create_text_job().id)
    now = db_utcnow()
    assert abs(job.created_at - now) < CLOSE and abs(job.started_at - now) < CLOSE, (job.created_at, now)
    # Cron has never run, but the job has only just been queued: cron is not late yet (an hour-slow
    # server would otherwise have every server alert the admins at once, a fast one an hour late).
    assert cron_watch.cron_state(load_settings()).late is False
    assert control.cancel_job(job.id)
    finished = reload(job.id)
    assert finished.status == CANCELLED and abs(finished.finished_at - db_utcnow()) < CLOSE


def test_the_delete_window_is_judged_on_the_database_clock(app, simulator, monkeypatch):
    _, job_id = sent_job(simulator, 2, engine_settings())
    # This server's clock is two days ahead: the copies are minutes old by the database's clock.
    skew_this_server(monkeypatch, timedelta(hours=49))
    assert unsend_edit.check_source(reload(job_id), "unsend") == 2


def test_the_rate_and_eta_of_a_running_job_do_not_depend_on_this_servers_clock(app, monkeypatch):
    create_users(10)
    job = reload(create_text_job().id)
    job.sent_count, job.started_at = 4, db_utcnow() - timedelta(seconds=2)  # 4 copies in about 2 s
    db.session.commit()
    skew_this_server(monkeypatch, OFF)
    view = job_status(reload(job.id))
    assert 1.0 <= view.rate <= 2.0 and 3 <= view.eta <= 6, (view.rate, view.eta)
