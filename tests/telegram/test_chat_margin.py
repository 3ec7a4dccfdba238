"""Replies to one user's chat are spaced by Telegram's second plus a margin; a broadcast keeps the plain second."""
from __future__ import annotations

import time

import pytest

from app.services import telegram_factory
from app.telegram.call_pacing import REPLY_CHAT_MARGIN
from tests.broadcast.helpers import engine_settings

CHAT = 777001


def test_back_to_back_replies_to_one_chat_arrive_at_least_a_second_and_the_margin_apart(app, simulator):
    assert REPLY_CHAT_MARGIN >= 0.2  # below this, a reply held up 0.1 s already meets the simulator's tolerance
    client = telegram_factory.get_client(engine_settings())
    for i in range(3):
        client.send_message(CHAT, f"reply {i}")
    arrivals = [d["t"] for d in simulator.deliveries("sendMessage", CHAT)]
    gaps = [b - a for a, b in zip(arrivals, arrivals[1:], strict=False)]
    assert len(gaps) == 2 and min(gaps) >= 1.0 + REPLY_CHAT_MARGIN - 0.05, gaps
    assert simulator.stats()["429_total"] == 0


def test_a_broadcast_books_its_recipients_chat_for_the_plain_second(app, simulator):
    client = telegram_factory.get_client(engine_settings())
    asked = time.monotonic()
    client.pace_chat(CHAT + 1, None)  # how a free broadcast books its recipient's chat (a free one: now)
    assert client.chat_pacer.ready_at(CHAT + 1) - asked == pytest.approx(1.0, abs=0.05)
    asked = time.monotonic()
    client.send_message(CHAT + 2, "a reply")
    assert client.chat_pacer.ready_at(CHAT + 2) - asked == pytest.approx(1.0 + REPLY_CHAT_MARGIN, abs=0.05)
    client.send_message(-100123, "a group's reply")
    assert client.chat_pacer.interval_for(-100123) == 3.0 and client._chat_extra(-100123, False) == 0.0
