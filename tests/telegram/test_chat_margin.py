"""Replies to one user's chat are spaced by Telegram's second plus a margin; a broadcast keeps the plain second."""
from __future__ import annotations

import pytest

from app.services import telegram_factory
from app.telegram.call_pacing import REPLY_CHAT_MARGIN
from tests.broadcast.helpers import engine_settings

CHAT = 777001


@pytest.mark.serial  # gaps judged by arrival at the simulator: see SERIAL_FILES in tests/conftest.py
def test_back_to_back_replies_to_one_chat_arrive_at_least_a_second_and_the_margin_apart(app, simulator):
    assert REPLY_CHAT_MARGIN >= 0.2  # below this, a reply held up 0.1 s already meets the simulator's tolerance
    client = telegram_factory.get_client(engine_settings())
    for i in range(3):
        client.send_message(CHAT, f"reply {i}")
    arrivals = [d["t"] for d in simulator.deliveries("sendMessage", CHAT)]
    gaps = [b - a for a, b in zip(arrivals, arrivals[1:], strict=False)]
    assert len(gaps) == 2 and min(gaps) >= 1.0 + REPLY_CHAT_MARGIN - 0.05, gaps
    assert simulator.stats()["429_total"] == 0


def booked_from(monkeypatch, client) -> list[float]:
    """Record each time the client books a chat from: a slot its pacer returns, or a late send's rebooking."""
    times, real_acquire, real_rebook = [], client.chat_pacer.acquire_slot, client.rebook_chat

    def acquire_slot(*args, **kwargs):
        slot = real_acquire(*args, **kwargs)
        times.append(slot)
        return slot

    def rebook_chat(chat, at, extra=0.0):
        # A send the machine held past its slot books its chat again from when it went (client.py).
        times[-1] = max(times[-1], at)
        real_rebook(chat, at, extra)

    monkeypatch.setattr(client.chat_pacer, "acquire_slot", acquire_slot)
    monkeypatch.setattr(client, "rebook_chat", rebook_chat)
    return times


def test_a_broadcast_books_its_recipients_chat_for_the_plain_second(app, simulator, monkeypatch):
    # Judged from the booked slot, not from a clock read around the call: a loaded machine (or an idle-class
    # worker) may take any time between the two, and on MariaDB the slot is the database's clock mapped back.
    client = telegram_factory.get_client(engine_settings())
    booked = booked_from(monkeypatch, client)
    client.pace_chat(CHAT + 1, None)  # how a free broadcast books its recipient's chat (a free one: now)
    assert client.chat_pacer.ready_at(CHAT + 1) - booked[-1] == pytest.approx(1.0, abs=0.002)
    client.send_message(CHAT + 2, "a reply")
    assert client.chat_pacer.ready_at(CHAT + 2) - booked[-1] == pytest.approx(1.0 + REPLY_CHAT_MARGIN, abs=0.002)
    assert len(booked) == 2
    client.send_message(-100123, "a group's reply")
    assert client.chat_pacer.interval_for(-100123) == 3.0 and client._chat_extra(-100123, False) == 0.0
