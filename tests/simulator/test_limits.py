"""Flood limits: bot-wide window, paid window, per-chat pacing and tolerance."""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor

import pytest
import requests

from app.simulator.config import DEFAULTS, merge
from app.simulator.errors import ApiError
from app.simulator.limits import RateLimits, SlidingWindow


def _blast(sim, count: int, threads: int = 8, **extra) -> list[dict]:
    """Send `count` messages to distinct chats from several threads; return bodies."""
    url = f"{sim.api_url}/sendMessage"

    def send(i: int) -> dict:
        return requests.post(url, json={"chat_id": 10_000 + i, "text": "hi", **extra},
                             timeout=5).json()

    with ThreadPoolExecutor(threads) as pool:
        return list(pool.map(send, range(count)))


def test_global_rate_allows_exactly_the_limit_then_429(sim):
    bodies = _blast(sim, 40)
    ok = [b for b in bodies if b["ok"]]
    limited = [b for b in bodies if not b["ok"]]
    assert len(ok) == 30 and len(limited) == 10
    for body in limited:
        retry = body["parameters"]["retry_after"]
        assert body["error_code"] == 429 and isinstance(retry, int) and retry >= 1
        assert body["description"] == f"Too Many Requests: retry after {retry}"
    stats = sim.stats()
    assert stats["deliveries"] == 30 and stats["429_global"] == 10
    assert stats["busiest_second"] == 30 and len(sim.deliveries()) == 30


def test_unlimited_global_rate(sim):
    sim.configure(global_rate=0)
    assert all(b["ok"] for b in _blast(sim, 60))


def test_paid_broadcast_uses_separate_window_and_costs_stars(sim):
    sim.configure(global_rate=5, paid_rate=50)
    bodies = _blast(sim, 60, allow_paid_broadcast=True)
    assert sum(b["ok"] for b in bodies) == 50
    stats = sim.stats()
    # Telegram bills only the paid messages beyond the free rate (paid_free_rate, 30 a second): 20 of the 50.
    assert stats["paid_deliveries"] == 50 and stats["paid_billed"] == 20 and stats["stars_spent"] == 2.0
    assert stats["429_paid"] == 10
    # The free window is untouched by paid traffic.
    free = requests.post(f"{sim.api_url}/sendMessage", json={"chat_id": 1, "text": "x"}).json()
    assert free["ok"] is True


def test_private_chat_interval_with_tolerance(sim, bot):
    sim.configure(private_chat_interval=0.3, per_chat_tolerance=0.05)
    bot.ok("sendMessage", chat_id=5, text="1")
    code, description, body = bot.error("sendMessage", chat_id=5, text="2")
    assert code == 429 and body["parameters"]["retry_after"] == 1
    time.sleep(0.27)  # early, but within the tolerance
    bot.ok("sendMessage", chat_id=5, text="3")
    assert sim.stats()["429_per_chat"] == 1


def test_group_chats_allow_twenty_per_minute(sim, bot):
    for i in range(20):
        bot.ok("sendMessage", chat_id=-100200, text=str(i))
    code, _, body = bot.error("sendMessage", chat_id=-100200, text="21")
    assert code == 429 and body["parameters"]["retry_after"] > 50


def test_per_chat_limits_can_be_disabled(sim, bot):
    sim.configure(per_chat_limits=False)
    for i in range(5):
        bot.ok("sendMessage", chat_id=6, text=str(i))


def test_edits_skip_per_chat_pacing_unless_asked(sim, bot):
    sent = bot.ok("sendMessage", chat_id=7, text="a")
    bot.ok("editMessageText", chat_id=7, message_id=sent["message_id"], text="b")
    sim.configure(per_chat_edits=True)
    assert bot.error("editMessageText", chat_id=7, message_id=sent["message_id"],
                     text="c")[0] == 429


def test_edits_count_in_the_global_window(sim, bot):
    sim.configure(global_rate=2, per_chat_limits=False)
    sent = bot.ok("sendMessage", chat_id=8, text="a")
    bot.ok("editMessageText", chat_id=8, message_id=sent["message_id"], text="b")
    assert bot.error("editMessageText", chat_id=8, message_id=sent["message_id"],
                     text="c")[0] == 429
    assert sim.stats()["busiest_second"] == 1  # edits are not counted as sends


def test_sliding_window_frees_as_events_age():
    window = SlidingWindow(1.0)
    for t in (0.0, 0.1, 0.2):
        assert window.wait(t, 3) == 0
        window.add(t)
    assert window.wait(0.5, 3) == pytest.approx(0.5)
    assert window.wait(0.95, 3) == pytest.approx(0.05)
    assert window.wait(1.1, 3) == 0 and len(window.events) == 1


def test_rate_limits_retry_after_rounds_up():
    limits = RateLimits()
    cfg = merge(DEFAULTS, {"global_rate": 1})
    limits.take(cfg, 1, False, False, 100.0)
    with pytest.raises(ApiError) as info:
        limits.take(cfg, 2, False, False, 100.2)
    assert info.value.parameters == {"retry_after": 1} and info.value.kind == "global"
