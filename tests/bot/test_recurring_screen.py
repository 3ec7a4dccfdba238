"""/recurring through the webhook: every series with the buttons its state allows; a job view names its series."""
from datetime import timedelta

import pytest

from app.extensions import db
from app.models import RecurringBroadcast
from app.models.audience import Audience
from app.services import audit
from app.services.broadcast.jobs.draft import Draft
from app.services.broadcast.schedule import recurring, recurring_series
from app.texts import t
from tests.bot.wizard import buttons, last_answer, offered, press, send, tap, texts_to
from tests.broadcast.helpers import engine_settings
from tests.factories import create_users

pytestmark = pytest.mark.usefixtures("fast_telegram")
DRAFT = Draft(content={"type": "text", "text": "خبر هفته"}).with_target(Audience("all"))


def make(rule="weekly sat 10:00") -> int:
    return recurring_series.create(DRAFT, rule, until=None, count=None, if_missed="send", created_by=1001,
                                   lang="fa", actor=audit.ACTOR_CLI).id


def status(series_id) -> str:
    db.session.expire_all()
    value = db.session.get(RecurringBroadcast, series_id).status
    db.session.commit()
    return value


def test_the_list_offers_pause_and_stop_and_they_do_what_they_say(client, simulator):
    series_id = make()
    send(client, simulator, "/recurring")
    listing = offered(simulator, "rc.pause")
    assert "weekly sat 10:00" in listing["text"] and t("rec_status_active") in listing["text"]
    assert buttons(listing) == [f"rc.pause:{series_id}", f"rc.stop:{series_id}"]
    press(client, simulator, "rc.pause", under=listing)
    assert status(series_id) == "paused" and last_answer(simulator)["text"] == t("rec_done_paused")
    press(client, simulator, "rc.pause", under=listing)  # an old button: refused, naming the state
    assert last_answer(simulator)["text"] == t("rec_not_now", status=t("rec_status_paused"))
    tap(client, simulator, f"rc.resume:{series_id}", message_id=listing["message_id"])
    assert status(series_id) == "active"
    tap(client, simulator, f"rc.stop:{series_id}", message_id=listing["message_id"])
    assert status(series_id) == "active"  # asked first: stopping is for good
    tap(client, simulator, f"rc.stop_yes:{series_id}", message_id=listing["message_id"])
    assert status(series_id) == "stopped"
    edits = simulator.deliveries("editMessageText")
    assert edits and "reply_markup" in edits[-1] and not (edits[-1]["reply_markup"] or {}).get("inline_keyboard")


def test_no_series_says_so(client, simulator):
    send(client, simulator, "/recurring")
    assert texts_to(simulator)[-1] == t("rec_none")


def test_an_occurrences_job_view_names_its_series(client, simulator):
    create_users([5101])
    series_id = make("daily 10:00")
    row = db.session.get(RecurringBroadcast, series_id)
    due = row.next_at
    db.session.commit()
    [job_id] = recurring.release_due(engine_settings(), now=due + timedelta(seconds=1))
    tap(client, simulator, f"j.view:{job_id}")
    assert f"#{series_id} (daily 10:00)" in texts_to(simulator)[-1]
