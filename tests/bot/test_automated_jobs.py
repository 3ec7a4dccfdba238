"""Automated jobs in the admins' chat: a recurring occurrence's one short summary, /jobs apart from their own."""
from __future__ import annotations

from datetime import timedelta

import pytest

from app.extensions import db
from app.models import RecurringBroadcast
from app.models.audience import Audience
from app.services import audit
from app.services.broadcast.jobs import creation
from app.services.broadcast.jobs.draft import Draft
from app.services.broadcast.jobs.status import job_status
from app.services.broadcast.reporting import picture
from app.services.broadcast.reporting.occurrence_summary import occurrence_text
from app.services.broadcast.schedule import recurring, recurring_series
from app.services.broadcast.sending.drain import pump
from app.services.chains import due
from app.texts import t
from tests.bot.test_results_chart import decoded, photos
from tests.bot.wizard import buttons, send, tap
from tests.broadcast.helpers import engine_settings, reload
from tests.chains.helpers import BASE, T0, add_user, make_chain
from tests.conftest import ADMIN_ID
from tests.factories import create_user

pytestmark = pytest.mark.usefixtures("fast_telegram")
ENGLISH_ADMIN = 1002
DRAFT = Draft(content={"type": "text", "text": "خبر هفته"}).with_target(Audience("all"))


@pytest.fixture(autouse=True)
def _pictures_drawn():
    """No picture thread outlives its test (it reads the tables the next test cleans)."""
    yield
    assert picture.idle(60)


def occurrence_job() -> tuple[int, int]:
    """Make a daily series (by ADMIN_ID) and release its next occurrence; return (series, job)."""
    series_id = recurring_series.create(DRAFT, "daily 10:00", until=None, count=None, if_missed="send",
                                        created_by=ADMIN_ID, lang="fa", actor=audit.ACTOR_CLI).id
    row = db.session.get(RecurringBroadcast, series_id)
    due_at = row.next_at
    db.session.commit()
    [job_id] = recurring.release_due(engine_settings(), now=due_at + timedelta(seconds=1))
    return series_id, job_id


def test_an_occurrence_sends_each_admin_one_line_and_its_picture_only_when_asked(client, simulator, monkeypatch):
    monkeypatch.setitem(client.application.config, "RESULTS_PICTURE", True)
    create_user(ENGLISH_ADMIN, is_admin=True, language_code="en")
    for user_id in (7001, 7002):
        create_user(user_id)
    series_id, job_id = occurrence_job()
    assert pump(job_id, 10, settings=engine_settings()).stop == "done"
    assert picture.idle(30)
    status = job_status(reload(job_id))
    for chat_id, lang in ((ADMIN_ID, "fa"), (ENGLISH_ADMIN, "en")):
        # One message, and no photo (the English admin is a user too: its copy of the broadcast aside).
        [summary] = [d for d in simulator.deliveries(chat_id=chat_id) if d["text"] != "خبر هفته"]
        assert summary["method"] == "sendMessage"
        assert summary["text"] == occurrence_text(status, series_id, lang)
        assert buttons(summary)[0] == f"j.chart:{job_id}"
    assert simulator.deliveries("sendPhoto") == []
    tap(client, simulator, f"j.chart:{job_id}")  # the picture is drawn when asked for
    [photo] = photos(simulator, 1)
    assert photo["caption"] == t("chart_caption", id=job_id) and decoded(photo).shape[0] > 100
    assert simulator.deliveries("sendPhoto", ENGLISH_ADMIN) == []


def chain_jobs(n: int) -> list[int]:
    """Make n drip-chain step jobs, one sign-up each (a busy chain)."""
    make_chain("joined", "0|Welcome")
    made = []
    for i in range(n):
        add_user(BASE + i, started=T0 + timedelta(minutes=i + 1))
        made += due.run_due(engine_settings(), now=T0 + timedelta(minutes=i + 1, seconds=30))
    return made


def listed(delivery: dict) -> list[str]:
    return [b["callback_data"] for row in delivery["reply_markup"]["inline_keyboard"] for b in row]


def test_jobs_lists_the_admins_broadcasts_apart_from_automated_ones(client, simulator):
    create_user(7001)
    own = creation.create_job(audience="all", created_by=ADMIN_ID, content={"type": "text", "text": "خبر"},
                              settings=engine_settings(), actor=audit.admin_actor(ADMIN_ID)).id
    steps = chain_jobs(12)  # more than /jobs shows: before, they pushed the admin's broadcast out
    _series, occurrence = occurrence_job()
    send(client, simulator, t("menu_jobs"))
    listing = simulator.deliveries("sendMessage", ADMIN_ID)[-1]
    assert listing["text"] == t("jobs_title")
    assert listed(listing) == [f"j.view:{own}", "j.auto"]
    tap(client, simulator, "j.auto", message_id=listing["message_id"])
    automated = simulator.deliveries("sendMessage", ADMIN_ID)[-1]
    assert automated["text"] == t("jobs_automated_title")
    newest = sorted([*steps, occurrence], reverse=True)[:10]
    assert listed(automated) == [f"j.view:{job_id}" for job_id in newest] + ["j.list"]
    labels = [row[0]["text"] for row in automated["reply_markup"]["inline_keyboard"]]
    assert labels[0].startswith(f"🔁 #{occurrence}") and labels[1].startswith(f"💧 #{steps[-1]}")


def test_only_automated_jobs_still_list_their_button(client, simulator):
    chain_jobs(1)
    send(client, simulator, t("menu_jobs"))
    listing = simulator.deliveries("sendMessage", ADMIN_ID)[-1]
    assert listing["text"] == t("jobs_own_empty") and listed(listing) == ["j.auto"]
