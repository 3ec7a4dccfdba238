"""A reply to a chat written to faster than 1/s is not waited for in the request (per-chat pacing on).

A user's reply whose chat's next slot is more than 0.5 s away (a reply to
noise) is dropped; an admin's more than 1.5 s away is handed to the
process's late outbox and arrives after the request has returned, or
before the process exits (tests/reliability/test_late_outbox_exit.py).
"""
import threading
import time

import pytest

from app.extensions import db
from app.repository.budget import chats as chats_repo
from app.repository.budget.engine import budget_engine
from app.services import telegram_factory
from app.simulator.updates import message_update
from app.texts import t
from tests.bot.wizard import texts_to
from tests.conftest import ADMIN_ID
from tests.factories import post_update
from tests.reliability.helpers import wait_until

USER = 8301


def post_and_time(client, simulator, update) -> float:
    """POST an update and return the wall time its answer came back."""
    response = post_update(client, update, sim=simulator)
    assert response.status_code == 200, response.get_data(as_text=True)
    return time.time()


def test_a_users_second_message_within_a_second_gets_no_reply(client, simulator):
    telegram_factory.reset_clients()
    post_and_time(client, simulator, message_update(USER, "hello"))
    post_and_time(client, simulator, message_update(USER, "hello again"))
    time.sleep(1.5)  # what a waited-for second reply would need to arrive
    assert texts_to(simulator, USER) == [t("unknown_command")]
    assert simulator.stats()["429_total"] == 0


def test_an_admins_reply_to_a_chat_two_slots_busy_arrives_after_the_request(app, client, simulator):
    telegram_factory.reset_clients()
    answered: dict[str, float] = {}

    def deliver(text: str) -> None:
        answered[text] = post_and_time(app.test_client(), simulator, message_update(ADMIN_ID, text))

    try:
        post_and_time(client, simulator, message_update(ADMIN_ID, "/start"))
        # Two at once: one reply takes the chat's next slot (1 s away), the other's would be 2 s away.
        threads = [threading.Thread(target=deliver, args=(text,)) for text in ("/cancel", "/stats")]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(10)
        assert wait_until(lambda: len(texts_to(simulator, ADMIN_ID)) == 3, 6), texts_to(simulator, ADMIN_ID)
        [_, first, second] = simulator.deliveries("sendMessage", ADMIN_ID)
        later = "/cancel" if second["text"] == t("nothing_to_cancel") else "/stats"
        assert first["t"] < answered[{"/cancel": "/stats", "/stats": "/cancel"}[later]]
        assert second["t"] > answered[later], "the request waited two slots for its chat"
        assert simulator.stats()["429_total"] == 0
    finally:
        telegram_factory.reset_clients()


def book_chat_ahead(chat_id: int, seconds: float) -> None:
    """Take the chat's slots for the next ``seconds``, as another process's message to it would."""
    chats_repo.reserve_chat(budget_engine(db.engine), chat_id, round(seconds * 1_000_000), 0)


def defer_admin_reply(client, simulator, seconds: float) -> None:
    """Have an admin's /cancel answered while their chat is booked ``seconds`` ahead: the reply goes late."""
    book_chat_ahead(ADMIN_ID, seconds)
    post_and_time(client, simulator, message_update(ADMIN_ID, "/cancel"))
    assert texts_to(simulator, ADMIN_ID) == [], "the reply was not deferred"


def test_an_exiting_process_sends_its_late_replies_before_it_goes(client, simulator):
    telegram_factory.reset_clients()
    defer_admin_reply(client, simulator, 2.5)
    telegram_factory.flush_late_at_exit()  # what atexit runs when the worker exits
    # Delivered by the time the hook returned, not by the outbox's thread later.
    assert texts_to(simulator, ADMIN_ID) == [t("nothing_to_cancel")]
    assert simulator.stats()["429_total"] == 0


def test_the_exit_flush_gives_up_at_its_bound_and_says_so(client, simulator, monkeypatch, caplog):
    telegram_factory.reset_clients()
    monkeypatch.setattr(telegram_factory, "LATE_EXIT_SECONDS", 1.0)
    defer_admin_reply(client, simulator, 30)
    started = time.monotonic()
    telegram_factory.flush_late_at_exit()
    assert time.monotonic() - started < 2.5, "an exit waited past its bound"
    assert "1 late replies did not fit" in caplog.text
    time.sleep(0.5)
    assert texts_to(simulator, ADMIN_ID) == []



def admin_request_outbox(settings: dict):
    """Return an outbox as an admin's request has one: busy chats handed to the process's late outbox."""
    from app.bot.context import ADMIN_CHAT_WAIT

    client = telegram_factory.get_client(settings)
    outbox = telegram_factory.new_outbox(client, chat_wait=ADMIN_CHAT_WAIT)
    outbox.defer_busy_to(telegram_factory.late_outbox(client), chat_wait=ADMIN_CHAT_WAIT)
    return outbox


def progress_messages(simulator) -> list[dict]:
    """Return the progress messages still in the admin's chat."""
    return [m for m in simulator.bot_messages(ADMIN_ID) if "w.cancel_job:" in str(m["reply_markup"] or "")]


@pytest.fixture
def late_progress(app):
    """Start a job whose progress message goes to the late outbox (the admin's chat booked 2.5 s ahead)."""
    from app.services.broadcast.sending.runner import ensure_progress_message
    from tests.broadcast.helpers import create_text_job, create_users, engine_settings

    telegram_factory.reset_clients()
    create_users(3)
    settings = engine_settings()
    job = create_text_job(settings=settings).id
    book_chat_ahead(ADMIN_ID, 2.5)

    def ensure() -> None:
        ensure_progress_message(job, outbox=admin_request_outbox(settings), chat_id=ADMIN_ID, lang="fa")

    ensure()
    yield job, ensure
    telegram_factory.reset_clients()


def test_a_progress_message_sent_late_is_recorded_so_the_next_run_sends_no_second_one(simulator, late_progress):
    from tests.broadcast.helpers import reload

    job, ensure = late_progress
    assert reload(job).progress_message_id is None and progress_messages(simulator) == []
    assert wait_until(lambda: reload(job).progress_message_id is not None, 6), "the late one was not recorded"
    [late] = progress_messages(simulator)
    assert reload(job).progress_message_id == late["message_id"]
    ensure()
    assert len(progress_messages(simulator)) == 1, "a second progress message beside the late one"


def test_a_progress_message_landing_after_another_was_recorded_is_deleted(simulator, late_progress):
    from app.services.broadcast.jobs import control
    from tests.broadcast.helpers import reload

    job, _ = late_progress
    other = simulator.add_message(ADMIN_ID, text="progress (another request's)")
    control.set_progress_message(job, ADMIN_ID, other)  # recorded first, while the late one waits
    assert wait_until(lambda: simulator.stats()["calls"].get("deleteMessage", 0) == 1, 8)
    assert progress_messages(simulator) == [], "the late progress message was left beside the recorded one"
    assert reload(job).progress_message_id == other


def test_a_reply_handed_over_after_the_late_outboxs_thread_ended_idle_still_arrives(client, simulator, monkeypatch):
    # The late outbox's thread ends when idle (a host's NPROC counts threads); a reply a later request
    # hands over must start another, not wait for the process's exit.
    from app.telegram import outbox as outbox_module

    monkeypatch.setattr(outbox_module, "IDLE_EXIT_SECONDS", 0.2)
    telegram_factory.reset_clients()
    try:
        defer_admin_reply(client, simulator, 2.5)
        assert wait_until(lambda: len(texts_to(simulator, ADMIN_ID)) == 1, 6), "the first late reply never came"
        [late] = telegram_factory._late.values()
        assert wait_until(lambda: late._worker is None, 5), "the idle late outbox kept its thread"
        # Booked 2.5 s past the chat's next slot (the first late reply holds the next second).
        chats_repo.reserve_chat(budget_engine(db.engine), ADMIN_ID, 2_500_000, 10_000_000)
        post_and_time(client, simulator, message_update(ADMIN_ID, "/cancel"))
        assert len(texts_to(simulator, ADMIN_ID)) == 1, "the second reply was not deferred"
        assert wait_until(lambda: len(texts_to(simulator, ADMIN_ID)) == 2, 6), "the handed-over reply was stranded"
        assert simulator.stats()["429_total"] == 0
    finally:
        telegram_factory.reset_clients()
