"""/chains through the webhook: every chain with its steps' numbers and the buttons its state allows."""
from datetime import timedelta

import pytest

from app.services import audit
from app.services.chains import due, manage
from app.texts import t
from tests.bot.wizard import buttons, last_answer, offered, press, send, tap, texts_to
from tests.chains.helpers import BASE, FAST, T0, add_user, make_chain, mark_sent
from tests.conftest import ADMIN_ID

pytestmark = pytest.mark.usefixtures("fast_telegram")
INTRUDER = 8001
LONG = "<b>Hello</b> {first_name}, welcome aboard &amp; thanks for joining us today"


def admin_audit() -> list[tuple[str, str]]:
    """Return (actor, action) of every chain change, oldest first."""
    return [(e["actor"], e["action"]) for e in reversed(audit.entries()) if e["action"] != manage.CHAIN_CREATED]


def last_edit(simulator) -> dict:
    return simulator.deliveries("editMessageText")[-1]


def test_the_list_shows_each_step_with_its_numbers_newest_first(client, simulator):
    add_user(BASE)
    add_user(BASE + 1)
    first = make_chain("joined", f"0|{LONG}", "2h|Second step")
    [job] = due.run_due(FAST, now=T0 + timedelta(minutes=5))
    mark_sent(job, T0 + timedelta(minutes=6))
    second = make_chain("tag:vip", "3d|Only")
    manage.stop(second, audit.ACTOR_CLI)
    send(client, simulator, "/chains")
    newest, older = simulator.deliveries("sendMessage", ADMIN_ID)[-2:]
    assert f"#{second}" in newest["text"] and t("chain_status_stopped") in newest["text"]
    assert "tag:vip" in newest["text"] and buttons(newest) == []  # stopped: nothing to press
    text = older["text"]
    assert f"#{first}" in text and "welcome" in text and "joined" in text and t("chain_status_active") in text
    assert "Hello {first_name}, welcome aboard & tha…" in text and "<b>" not in text and "today" not in text
    assert t("chain_step", position=1, delay="0", text="Hello {first_name}, welcome aboard & tha…",
             claimed=2, delivered=2, failed=0, pending=0) in text
    assert t("chain_step", position=2, delay="2h", text="Second step", claimed=0, delivered=0, failed=0,
             pending=0) in text
    assert buttons(older) == [f"ch.pause:{first}", f"ch.stop:{first}"]


def test_no_chain_says_so(client, simulator):
    send(client, simulator, "/chains")
    assert texts_to(simulator)[-1] == t("chain_none")


def test_pause_resume_and_stop_do_what_they_say_and_stop_asks_first(client, simulator):
    chain_id = make_chain("joined", "0|One")
    send(client, simulator, "/chains")
    listing = offered(simulator, "ch.pause")
    press(client, simulator, "ch.pause", under=listing)
    assert manage.status_of(chain_id) == "paused" and last_answer(simulator)["text"] == t("chain_done_paused")
    assert buttons(last_edit(simulator)) == [f"ch.resume:{chain_id}", f"ch.stop:{chain_id}"]
    press(client, simulator, "ch.resume", under=last_edit(simulator) | {"message_id": listing["message_id"]})
    assert manage.status_of(chain_id) == "active" and last_answer(simulator)["text"] == t("chain_done_resumed")
    tap(client, simulator, f"ch.stop:{chain_id}", message_id=listing["message_id"])
    assert manage.status_of(chain_id) == "active"  # asked first: stopping is for good
    assert t("chain_stop_ask", id=chain_id) in last_edit(simulator)["text"]
    assert buttons(last_edit(simulator)) == [f"ch.stop_yes:{chain_id}", f"ch.back:{chain_id}"]
    tap(client, simulator, f"ch.back:{chain_id}", message_id=listing["message_id"])
    assert manage.status_of(chain_id) == "active"
    assert buttons(last_edit(simulator)) == [f"ch.pause:{chain_id}", f"ch.stop:{chain_id}"]
    tap(client, simulator, f"ch.stop:{chain_id}", message_id=listing["message_id"])
    tap(client, simulator, f"ch.stop_yes:{chain_id}", message_id=listing["message_id"])
    assert manage.status_of(chain_id) == "stopped" and last_answer(simulator)["text"] == t("chain_done_stopped")
    assert not (last_edit(simulator)["reply_markup"] or {}).get("inline_keyboard")
    actor = audit.admin_actor(ADMIN_ID)
    assert admin_audit() == [(actor, manage.CHAIN_PAUSED), (actor, manage.CHAIN_RESUMED),
                             (actor, manage.CHAIN_STOPPED)]


CLI = {"paused": manage.pause, "active": manage.resume, "stopped": manage.stop}


@pytest.mark.parametrize("data, shown, status", [("ch.pause", "active", "paused"), ("ch.resume", "paused", "active"),
                                                 ("ch.stop", "paused", "stopped"),
                                                 ("ch.stop_yes", "active", "stopped")])
def test_a_stale_button_is_refused_naming_the_state_and_the_message_redrawn(client, simulator, data, shown, status):
    chain_id = make_chain("joined", "0|One")
    if shown == "paused":
        manage.pause(chain_id, audit.ACTOR_CLI)
    send(client, simulator, "/chains")
    listing = offered(simulator, "ch.stop")
    assert manage.status_of(chain_id) == shown and CLI[status](chain_id, audit.ACTOR_CLI)  # the CLI changed it since
    before = admin_audit()
    tap(client, simulator, f"{data}:{chain_id}", message_id=listing["message_id"])
    assert manage.status_of(chain_id) == status
    answer = last_answer(simulator)
    assert answer["text"] == t("chain_not_now", status=t(f"chain_status_{status}")) and answer["show_alert"]
    assert t(f"chain_status_{status}") in last_edit(simulator)["text"]
    assert t("chain_stop_ask", id=chain_id) not in last_edit(simulator)["text"]
    assert admin_audit() == before  # nothing happened, nothing logged


def test_a_change_racing_the_press_is_refused_by_the_guarded_update(client, simulator, monkeypatch):
    chain_id = make_chain("joined", "0|One")
    send(client, simulator, "/chains")
    listing = offered(simulator, "ch.pause")
    real = manage.pause

    def stopped_meanwhile(cid, actor):  # the CLI stops it between the screen's read and its UPDATE
        manage.stop(cid, audit.ACTOR_CLI)
        return real(cid, actor)

    monkeypatch.setattr(manage, "pause", stopped_meanwhile)
    press(client, simulator, "ch.pause", under=listing)
    assert manage.status_of(chain_id) == "stopped"
    assert last_answer(simulator)["text"] == t("chain_not_now", status=t("chain_status_stopped"))
    assert admin_audit() == [(audit.ACTOR_CLI, manage.CHAIN_STOPPED)]


def test_a_chain_that_is_gone_is_named_so(client, simulator):
    send(client, simulator, "/chains")
    tap(client, simulator, "ch.stop_yes:987654", message_id=1)
    assert last_answer(simulator)["text"] == t("chain_unknown")


def test_a_non_admin_is_refused_every_chain_button(client, simulator):
    chain_id = make_chain("joined", "0|One")
    add_user(INTRUDER)
    send(client, simulator, "/chains", user_id=INTRUDER)
    for prefix in ("ch.pause", "ch.resume", "ch.stop", "ch.stop_yes", "ch.back"):
        tap(client, simulator, f"{prefix}:{chain_id}", user_id=INTRUDER, message_id=1)
    assert texts_to(simulator, INTRUDER) == [t("not_admin")]
    assert [a["text"] for a in simulator.callback_answers()] == [t("not_admin")] * 5
    assert manage.status_of(chain_id) == "active" and admin_audit() == []


def test_the_largest_chain_a_rule_allows_fits_one_telegram_message():
    # Every length at its rule's limit: 20 steps of the longest delay and long texts, a 64-character
    # name, ten-digit numbers. Telegram refuses a message over 4096 UTF-16 units: /chains would fail.
    from app.bot.chains_screen import summary
    from app.models.chain import MAX_STEPS
    from app.services.chains.rules import MAX_DELAY_SECONDS, NAME_MAX, delay_text

    numbers = dict.fromkeys(("claimed", "delivered", "failed", "pending", "waiting"), 9_999_999_999)
    steps = [manage.StepView(i, i, delay_text(MAX_DELAY_SECONDS), "پیام " * 1000, numbers)
             for i in range(1, MAX_STEPS + 1)]
    view = manage.ChainView(9_999_999, "ن" * NAME_MAX, "active", "tag: " + "x" * 64, None, None, "", steps)
    for lang in ("fa", "en"):
        assert len(summary(view, lang).encode("utf-16-le")) // 2 <= 4096
