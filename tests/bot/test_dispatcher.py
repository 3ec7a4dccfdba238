"""The dispatcher's policy: once per update_id, 503 on outages, 200 on bugs, ignore the rest."""
import sqlite3
import threading
import time
from datetime import timedelta

import pymysql
import pytest
from sqlalchemy.exc import DataError, IntegrityError, InterfaceError, OperationalError, ProgrammingError

from app import create_app
from app.bot import router, start
from app.bot.dispatcher import is_outage, process_update
from app.clock import utcnow
from app.extensions import db
from app.models import ProcessedUpdate
from app.services.updates import purge_processed_updates
from app.simulator.updates import callback_update, message_update
from app.texts import t
from tests.conftest import ADMIN_ID, TOKEN, WEBHOOK_SECRET
from tests.factories import admin_state, get_user, post_update, processed_ids

pytestmark = pytest.mark.usefixtures("fast_telegram")


def outcome_of(response):
    assert response.status_code == 200, response.get_data(as_text=True)
    return response.get_json()["outcome"]


def test_replayed_update_is_ignored_and_effects_happen_once(client, simulator):
    update = message_update(4001, "/start", update_id=500)
    assert outcome_of(post_update(client, update)) == "handled"
    assert outcome_of(post_update(client, update)) == "duplicate"
    assert outcome_of(post_update(client, update)) == "duplicate"
    assert len(simulator.deliveries("sendMessage", 4001)) == 1
    assert simulator.stats()["calls"].get("getChatMember") == 1
    assert processed_ids() == {500}


def test_concurrent_duplicates_are_handled_once(app, simulator, monkeypatch):
    """Two deliveries of one update at the same moment: the second waits for the first's commit."""
    entered = threading.Event()

    def slow_start(ctx):
        start.on_start(ctx)
        entered.set()
        time.sleep(0.3)  # hold the transaction open while the twin arrives

    monkeypatch.setitem(router.COMMANDS, "start", slow_start)
    update = message_update(4002, "/start", update_id=501)
    outcomes = []

    def deliver(wait_for=None):
        if wait_for is not None:
            wait_for.wait(5)
        outcomes.append(outcome_of(post_update(app.test_client(), update)))

    threads = [threading.Thread(target=deliver), threading.Thread(target=deliver, args=(entered,))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert sorted(outcomes) == ["duplicate", "handled"]
    assert len(simulator.deliveries("sendMessage", 4002)) == 1
    assert processed_ids() == {501}


def test_handler_bug_answers_200_and_records_the_update(client, simulator, monkeypatch):
    def buggy(ctx):
        start.on_start(ctx)  # its database effects and queued replies must vanish
        raise RuntimeError(f"boom with {TOKEN} and {WEBHOOK_SECRET} in it")

    monkeypatch.setitem(router.COMMANDS, "start", buggy)
    update = message_update(4003, "/start", update_id=502)
    response = post_update(client, update)
    assert outcome_of(response) == "error"
    body = response.get_data(as_text=True)
    assert TOKEN not in body and WEBHOOK_SECRET not in body and "boom" not in body
    assert processed_ids() == {502}
    assert get_user(4003) is None
    assert simulator.deliveries() == []
    assert outcome_of(post_update(client, update)) == "duplicate"


def test_handler_bug_on_a_button_still_stops_the_spinner(client, simulator, monkeypatch):
    monkeypatch.setitem(router.DRAFT_CALLBACKS, "abort", lambda ctx, token, arg: 1 / 0)
    outcome_of(post_update(client, callback_update(ADMIN_ID, "w.abort:Ab3_x9-Q", ADMIN_ID, 5, update_id=503)))
    assert [a["text"] for a in simulator.callback_answers()] == [None]


def test_transient_failure_in_a_handler_is_503_and_records_nothing(client, simulator, monkeypatch):
    def outage(ctx):
        start.on_start(ctx)
        raise OperationalError("SELECT 1", {}, Exception("server has gone away"))

    monkeypatch.setitem(router.COMMANDS, "start", outage)
    update = message_update(4004, "/start", update_id=504)
    response = post_update(client, update)
    assert response.status_code == 503
    assert processed_ids() == set()
    assert get_user(4004) is None
    assert simulator.deliveries() == []
    monkeypatch.undo()
    assert outcome_of(post_update(client, update)) == "handled"  # Telegram's redelivery works
    assert get_user(4004) is not None


@pytest.mark.parametrize("update", [
    {"update_id": 600},
    {"update_id": 601, "edited_message": message_update(4005, "x")["message"]},
    {"update_id": 602, "channel_post": {"message_id": 1, "date": 0, "chat": {"id": -100, "type": "channel"}}},
    {"update_id": 603, "poll": {"id": "1"}},
    {"update_id": 604, "something_new": {"a": 1}},
    {"update_id": 605, "message": "not an object"},
    {"update_id": 606, "message": {"message_id": 1}},
    {"update_id": 607, "callback_query": []},
    {"update_id": 608, "message": message_update(4006, "/start", chat_id=-100777)["message"]},
])
def test_unknown_and_junk_updates_are_ignored(client, simulator, update):
    assert outcome_of(post_update(client, update)) == "ignored"
    assert processed_ids() == set()
    assert simulator.deliveries() == []


def test_group_messages_are_ignored(client, simulator):
    update = message_update(4007, "/broadcast", chat_id=-1001111)
    update["message"]["chat"] = {"id": -1001111, "type": "supergroup", "title": "g"}
    assert outcome_of(post_update(client, update)) == "ignored"
    assert admin_state(4007) is None


def test_messages_from_bots_are_ignored(client):
    update = message_update(4008, "/start")
    update["message"]["from"]["is_bot"] = True
    assert outcome_of(post_update(client, update)) == "ignored"
    assert get_user(4008) is None


def test_process_update_directly(app):
    assert process_update(message_update(4009, "/start", update_id=700)) == "handled"
    assert process_update(message_update(4009, "/start", update_id=700)) == "duplicate"


def test_database_down_raises_for_the_webhook_to_answer_503(simulator):
    from tests import conftest

    dead = create_app(conftest.app_config("sqlite:////nonexistent-dir/y/db.sqlite3", simulator.base_url))
    with dead.app_context(), pytest.raises(OperationalError):
        process_update(message_update(4010, "/start", update_id=701))


def test_transient_classification():
    """Only an unavailable database is transient; what the database refuses of one update is not."""
    assert is_outage(OperationalError("s", {}, pymysql.err.OperationalError(2006, "MySQL server has gone away")))
    assert is_outage(OperationalError("s", {}, pymysql.err.OperationalError(2013, "Lost connection")))
    assert is_outage(OperationalError("s", {}, pymysql.err.OperationalError(1205, "Lock wait timeout")))
    assert is_outage(InterfaceError("s", {}, pymysql.err.InterfaceError(0, "")))
    assert is_outage(OperationalError("s", {}, sqlite3.OperationalError("database is locked")))
    assert is_outage(OperationalError("s", {}, Exception("server has gone away")))
    no_default = pymysql.err.OperationalError(1364, "Field 'id' doesn't have a default value")
    assert not is_outage(OperationalError("s", {}, no_default))
    # The text of a numbered error may quote the update's data: only the number counts.
    assert not is_outage(OperationalError("s", {}, pymysql.err.OperationalError(
        1292, "Truncated incorrect DOUBLE value: 'MySQL server has gone away'")))
    orig = Exception("x")
    assert not is_outage(OperationalError("s", {}, orig))
    assert not is_outage(IntegrityError("s", {}, orig))
    assert not is_outage(DataError("s", {}, orig))
    assert not is_outage(ProgrammingError("s", {}, orig))
    assert not is_outage(RuntimeError())


def test_purge_processed_updates(app):
    now = utcnow()
    db.session.add_all([ProcessedUpdate(update_id=1, processed_at=now - timedelta(days=10)),
                        ProcessedUpdate(update_id=2, processed_at=now - timedelta(days=8)),
                        ProcessedUpdate(update_id=3, processed_at=now - timedelta(hours=1))])
    db.session.commit()
    assert purge_processed_updates(7) == 2
    assert processed_ids() == {3}
    assert purge_processed_updates(0, now=now + timedelta(seconds=1)) == 1
    with pytest.raises(ValueError):
        purge_processed_updates(-1)


def test_a_replayed_hint_is_sent_once(client, simulator):
    update = message_update(4011, "hello", update_id=702)
    post_update(client, update)
    post_update(client, update)
    assert [d["text"] for d in simulator.deliveries("sendMessage", 4011)] == [t("unknown_command", "fa")]
