"""A webhook request answers within its reply budget however slowly Telegram takes its replies."""

import time

import pytest

from app.bot import context
from app.services.settings import set_setting
from app.simulator.updates import message_update
from tests.factories import get_user, post_update

# The promise holds for any reply budget; half the real 8 s keeps the tests short.
REPLY_SECONDS = 4.0


@pytest.fixture(autouse=True)
def short_reply_budget(monkeypatch):
    """Give each webhook request REPLY_SECONDS to send its replies."""
    monkeypatch.setattr(context, "REPLY_SECONDS", REPLY_SECONDS)


@pytest.mark.parametrize("retry_after", [30, 3])
def test_replies_rate_limited_by_telegram_do_not_hold_the_request(client, simulator, retry_after):
    """30 s never fits the 4 s budget; 3 s fits it once, but waiting it out flush after flush did not."""
    simulator.configure(fail_429_ratio=1.0, retry_after_range=(retry_after, retry_after))
    started = time.monotonic()
    response = post_update(client, message_update(7101, "/start"))
    assert time.monotonic() - started < REPLY_SECONDS + 1
    assert response.get_json() == {"ok": True, "outcome": "handled"}
    assert get_user(7101) is not None
    assert simulator.deliveries(method="sendMessage") == []


def test_a_hanging_telegram_does_not_hold_the_request(client, simulator):
    # Even with the longest read timeout the settings allow.
    set_setting("cron_pump_seconds", 20)
    set_setting("telegram_read_timeout", 30)
    simulator.configure(hang_after_delivery_ratio=1.0, hang_seconds=REPLY_SECONDS + 4)
    started = time.monotonic()
    response = post_update(client, message_update(7102, "/start"))
    assert time.monotonic() - started < REPLY_SECONDS + 1
    assert response.get_json() == {"ok": True, "outcome": "handled"}
    # Delivered once while we waited; never sent a second time.
    assert len(simulator.deliveries(method="sendMessage", chat_id=7102)) == 1
