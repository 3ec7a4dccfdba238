"""The bot's client spaces one private chat's messages by Telegram's 1/s plus a margin for late arrivals."""
from __future__ import annotations

import pytest

from app.services import telegram_factory
from app.services.telegram_factory import PRIVATE_CHAT_INTERVAL, PRIVATE_CHAT_MARGIN
from tests.broadcast.helpers import engine_settings

CHAT = 777001


def test_the_margin_is_on_private_chats_only(app):
    assert PRIVATE_CHAT_MARGIN >= 0.2  # below this, a worker held up 0.1 s already meets the simulator's tolerance
    pacer = telegram_factory.get_client(engine_settings()).chat_pacer
    assert pacer.interval_for(CHAT) == pytest.approx(1.0 + PRIVATE_CHAT_MARGIN)
    assert pacer.interval_for(-100123) == 3.0, "groups keep 20 a minute"


def test_back_to_back_messages_to_one_chat_arrive_at_least_the_interval_apart(app, simulator):
    client = telegram_factory.get_client(engine_settings())
    for i in range(3):
        client.send_message(CHAT, f"reply {i}")
    arrivals = [d["t"] for d in simulator.deliveries("sendMessage", CHAT)]
    gaps = [b - a for a, b in zip(arrivals, arrivals[1:], strict=False)]
    assert len(gaps) == 2 and min(gaps) >= PRIVATE_CHAT_INTERVAL - 0.05, gaps
    assert simulator.stats()["429_total"] == 0
