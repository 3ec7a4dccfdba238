"""A draft cancelled between population chunks stays cancelled, sends nothing, and its creator is told so."""
from __future__ import annotations

import json
from datetime import timedelta

import pytest

from app.models.broadcast import CANCELLED
from app.repository import broadcast_population as population
from app.repository.db_clock import db_utcnow
from app.services.broadcast.jobs import control, creation
from app.services.broadcast.jobs import population as jobs_population
from app.services.broadcast.jobs.status import job_status
from app.services.broadcast.sending.drain import pump
from app.texts import t
from tests.bot.wizard import all_jobs, press, send, texts_to
from tests.broadcast.helpers import create_text_job, create_users, engine_settings, reload
from tests.conftest import ADMIN_ID

USERS = 6
CHUNK = 2  # three chunks: the cancel comes after the first
FAST = engine_settings(broadcast_rate_per_second=28)


@pytest.fixture
def cancel_between_chunks(monkeypatch):
    """Population in chunks of CHUNK; after the first chunk an admin cancels the draft (as `broadcast cancel` does)."""
    monkeypatch.setattr(jobs_population, "POPULATE_CHUNK", CHUNK)
    monkeypatch.setattr(jobs_population, "POPULATE_CHUNK_MYSQL", CHUNK)
    cancelled = []
    real = population.populate

    def populate(job_id, *args, **kwargs):
        real(job_id, *args, **kwargs)
        if not cancelled:
            jobs_population.db.session.commit()  # the chunk, as populate_in_chunks commits it
            cancelled.append(control.cancel_job(job_id, actor="cli"))

    monkeypatch.setattr(population, "populate", populate)
    return cancelled


def _only_job():
    [job] = control.list_jobs()
    return job


def _assert_cancelled_and_honest(job_id: int) -> None:
    job = reload(job_id)
    assert job.status == CANCELLED
    status = job_status(job)
    assert (status.total, status.pending, status.not_sent, status.sent) == (USERS, 0, USERS, 0)
    assert population.count_items(job_id) == USERS


@pytest.mark.parametrize("scheduled", [False, True], ids=["now", "scheduled"])
def test_create_job_refuses_and_the_job_stays_cancelled(app, simulator, cancel_between_chunks, scheduled):
    create_users(USERS)
    send_at = db_utcnow() + timedelta(hours=1) if scheduled else None
    with pytest.raises(creation.CancelledWhilePreparing, match="cancelled while it was being prepared"):
        create_text_job(send_at=send_at)
    assert cancel_between_chunks == [True]
    job = _only_job()
    _assert_cancelled_and_honest(job.id)
    assert job.send_at is None
    pump(job.id, 10, settings=FAST)
    assert simulator.stats()["deliveries"] == 0
    _assert_cancelled_and_honest(job.id)


def test_cli_create_prints_one_line_and_status_shows_it_cancelled(runner, simulator, cancel_between_chunks):
    create_users(USERS)
    result = runner.invoke(args=["broadcast", "create", "--audience", "all", "--text", "hello"])
    assert result.exit_code == 1
    job = _only_job()
    assert result.output.strip() == (f"Error: job {job.id} was cancelled while it was being prepared; "
                                      f"nothing was sent ({USERS} recipients not sent)")
    shown = json.loads(runner.invoke(args=["broadcast", "status", str(job.id)]).output)
    assert (shown["status"], shown["total"], shown["pending"], shown["not_sent"]) == ("cancelled", USERS, 0, USERS)
    assert simulator.stats()["deliveries"] == 0


@pytest.mark.usefixtures("fast_telegram")
def test_wizard_confirm_tells_the_admin(client, simulator, cancel_between_chunks):
    create_users(USERS)
    send(client, simulator, "/broadcast")
    send(client, simulator, "hello")
    press(client, simulator, "w.no_button")
    press(client, simulator, "w.aud:all")
    press(client, simulator, "w.confirm")
    [job] = all_jobs()
    assert texts_to(simulator)[-1] == t("wiz_cancelled_preparing", id=job.id, count=USERS)
    _assert_cancelled_and_honest(job.id)
    assert [d for d in simulator.deliveries() if d.get("chat_id") != ADMIN_ID] == []


@pytest.mark.usefixtures("fast_telegram")
def test_wizard_schedule_tells_the_admin(client, simulator, cancel_between_chunks):
    from tests.bot.test_schedule_wizard import to_schedule_step

    create_users(USERS)
    to_schedule_step(client, simulator)
    press(client, simulator, "w.at:tomorrow")
    [job] = all_jobs()
    assert texts_to(simulator)[-1] == t("wiz_cancelled_preparing", id=job.id, count=USERS)
    _assert_cancelled_and_honest(job.id)
    assert reload(job.id).send_at is None
