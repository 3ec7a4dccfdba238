"""getMyStarBalance answers a settable balance; silent and protected deliveries are recorded as such."""

from __future__ import annotations

from app.simulator import SimulatorControl


def test_star_balance_is_settable_and_splits_nanostars(sim, bot):
    assert bot.ok("getMyStarBalance") == {"amount": 1000}
    sim.configure(star_balance=12.5)
    assert bot.ok("getMyStarBalance") == {"amount": 12, "nanostar_amount": 500_000_000}
    SimulatorControl(sim.base_url).configure(star_balance=0)
    assert bot.ok("getMyStarBalance") == {"amount": 0}


def test_disable_notification_and_protect_content_are_recorded_per_delivery(sim, bot):
    bot.ok("sendMessage", chat_id=77, text="loud")
    bot.ok("sendMessage", chat_id=78, text="quiet", disable_notification=True, protect_content=True)
    source = sim.add_message(1001, text="source")
    bot.ok("copyMessage", chat_id=79, from_chat_id=1001, message_id=source, protect_content=True)
    bot.ok("sendPhoto", chat_id=80, photo="file-1", disable_notification=True)
    options = {d["chat_id"]: (d["disable_notification"], d["protect_content"]) for d in sim.deliveries()}
    assert options == {77: (False, False), 78: (True, True), 79: (False, True), 80: (True, False)}


def test_fault_methods_can_name_a_read(sim, bot):
    sim.configure(fail_5xx_ratio=1.0, fault_methods=["getMyStarBalance"])
    assert bot.error("getMyStarBalance")[0] == 500
    assert bot.ok("getMe")["is_bot"] is True  # not named: answers
    bot.ok("sendMessage", chat_id=77, text="not named either")


def _paid(bot, chat_id):
    return bot("sendMessage", chat_id=chat_id, text="paid", allow_paid_broadcast=True).json()


def test_paid_sends_draw_the_balance_exactly_and_are_refused_when_it_cannot_pay(sim, bot):
    sim.configure(paid_free_rate=0, star_balance=1.05)  # every paid message billed: 0.1 Star each
    for chat_id in range(1, 11):
        assert _paid(bot, chat_id)["ok"] is True
    # 1.05 - 10 x 0.1 is 0.05 exactly: nanostars, never a float's 0.04999...
    assert bot.ok("getMyStarBalance") == {"amount": 0, "nanostar_amount": 50_000_000}
    refused = _paid(bot, 11)
    assert refused == {"ok": False, "error_code": 400, "description": "Bad Request: BALANCE_TOO_LOW"}
    assert [d["chat_id"] for d in sim.deliveries()] == list(range(1, 11))  # the refused one was not delivered
    bot.ok("sendMessage", chat_id=12, text="a free message costs nothing")
    stats = sim.stats()
    assert stats["paid_billed"] == 10 and stats["stars_spent"] == 1.0
    assert stats["star_balance"] == {"amount": 0, "nanostar_amount": 50_000_000}


def test_paid_messages_within_the_free_rate_are_not_billed(sim, bot):
    sim.configure(paid_free_rate=5, star_balance=10)
    for chat_id in range(1, 9):
        assert _paid(bot, chat_id)["ok"] is True  # eight in one second: five free, three billed
    assert sim.stats()["paid_billed"] == 3
    assert bot.ok("getMyStarBalance") == {"amount": 9, "nanostar_amount": 700_000_000}


def test_the_balance_is_set_exactly_through_the_control_endpoint(sim, bot):
    control = SimulatorControl(sim.base_url)
    assert control.set_stars(3, 250_000_000) == {"amount": 3, "nanostar_amount": 250_000_000}
    assert bot.ok("getMyStarBalance") == {"amount": 3, "nanostar_amount": 250_000_000}
    assert control.star_balance() == {"amount": 3, "nanostar_amount": 250_000_000}
    sim.configure(star_balance=0.3)
    assert bot.ok("getMyStarBalance") == {"amount": 0, "nanostar_amount": 300_000_000}
