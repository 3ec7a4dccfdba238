"""Delivery records and counters: filters, duplicates, busiest second, reset."""

from __future__ import annotations

import time

RECORD_KEYS = {"seq", "t", "method", "chat_id", "message_id", "text", "caption", "from_chat_id",
               "source_message_id", "reply_markup", "paid", "parse_mode"}


def test_delivery_records_and_filters(sim, bot):
    source = sim.add_message(1001, text="post")
    bot.ok("sendMessage", chat_id=1, text="<b>a</b>", parse_mode="HTML")
    bot.ok("copyMessage", chat_id=2, from_chat_id=1001, message_id=source)
    records = sim.deliveries()
    assert [r["seq"] for r in records] == [1, 2]
    assert RECORD_KEYS <= set(records[0])
    assert records[0]["text"] == "<b>a</b>" and records[0]["parse_mode"] == "HTML"
    assert records[0]["t"] <= time.time()
    assert [r["chat_id"] for r in sim.deliveries(method="copyMessage")] == [2]
    assert [r["method"] for r in sim.deliveries(chat_id=1)] == ["sendMessage"]


def test_duplicates_count_chats_with_repeated_content(sim, bot):
    sim.configure(per_chat_limits=False)
    source = sim.add_message(1001, text="post")
    for chat in (1, 2, 2, 3):
        bot.ok("copyMessage", chat_id=chat, from_chat_id=1001, message_id=source)
    bot.ok("sendMessage", chat_id=4, text="same")
    bot.ok("sendMessage", chat_id=4, text="same")
    bot.ok("sendMessage", chat_id=5, text="same")
    sent = bot.ok("sendMessage", chat_id=6, text="edit me")
    bot.ok("editMessageText", chat_id=6, message_id=sent["message_id"], text="edited")
    stats = sim.stats()
    assert stats["duplicates"] == 2 and stats["deliveries"] == 9


def test_stats_counters(sim, bot):
    sim.block(9)
    bot.ok("getMe")
    bot.ok("sendMessage", chat_id=1, text="x")
    bot.error("sendMessage", chat_id=1, text="y")
    bot.error("sendMessage", chat_id=9, text="z")
    stats = sim.stats()
    assert stats["calls"] == {"getMe": 1, "sendMessage": 3} and stats["calls_total"] == 4
    assert stats["ok"] == 2 and stats["429_per_chat"] == 1 and stats["429_total"] == 1
    assert stats["4xx"] == {"Forbidden: bot was blocked by the user": 1}
    assert stats["deliveries"] == 1 and stats["busiest_second"] == 1
    assert stats["paid_deliveries"] == 0 and stats["stars_spent"] == 0


def test_reset_clears_state_but_keeps_config(sim, bot):
    sim.configure(global_rate=7)
    sim.block(1)
    bot.ok("setWebhook", url="https://x.example/hook")
    bot.ok("sendMessage", chat_id=2, text="x")
    sim.revoke_token()
    sim.reset()
    assert sim.deliveries() == [] and sim.stats()["calls_total"] == 0
    assert sim.webhook() is None and sim.config()["global_rate"] == 7
    assert bot.ok("sendMessage", chat_id=1, text="x")["message_id"] == 1
