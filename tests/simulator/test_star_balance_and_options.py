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
