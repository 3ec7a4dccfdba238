"""Injected faults: 429s, 5xx before delivery, 502 after delivery, hangs."""

from __future__ import annotations

import pytest
import requests


def test_injected_429_uses_retry_after_range(sim, bot):
    sim.configure(fail_429_ratio=1.0, retry_after_range=(3, 3))
    code, description, body = bot.error("sendMessage", chat_id=1, text="x")
    assert (code, description) == (429, "Too Many Requests: retry after 3")
    assert body["parameters"] == {"retry_after": 3}
    assert sim.deliveries() == [] and sim.stats()["429_injected"] == 1


def test_injected_5xx_does_not_deliver(sim, bot):
    sim.configure(fail_5xx_ratio=1.0)
    response = bot("sendMessage", chat_id=1, text="x")
    assert response.status_code == 500
    assert response.json() == {"ok": False, "error_code": 500,
                               "description": "Internal Server Error"}
    assert sim.deliveries() == [] and sim.stats()["5xx_injected"] == 1


def test_faults_spare_non_producing_methods(sim, bot):
    sim.configure(fail_5xx_ratio=1.0, fail_429_ratio=1.0)
    assert bot.ok("getMe")["is_bot"] is True


def test_5xx_after_delivery_answers_html_502(sim, bot):
    sim.configure(fail_5xx_after_delivery_ratio=1.0)
    response = bot("sendMessage", chat_id=1, text="x")
    assert response.status_code == 502 and "Bad Gateway" in response.text
    assert response.headers["Content-Type"].startswith("text/html")
    with pytest.raises(ValueError):
        response.json()
    assert len(sim.deliveries()) == 1 and sim.stats()["5xx_after_delivery"] == 1


def test_hang_after_delivery_trips_client_timeout(sim, bot):
    sim.configure(hang_after_delivery_ratio=1.0, hang_seconds=0.6)
    with pytest.raises(requests.ReadTimeout):
        bot("sendMessage", timeout=0.2, chat_id=1, text="x")
    assert len(sim.deliveries()) == 1 and sim.stats()["hangs_after_delivery"] == 1


def test_ratio_is_a_probability_with_seed(sim, bot):
    sim.configure(fail_5xx_ratio=0.5, seed=7, per_chat_limits=False, global_rate=0)
    codes = [bot("sendMessage", chat_id=1, text=str(i)).status_code for i in range(40)]
    assert 5 < codes.count(500) < 35 and codes.count(200) == len(sim.deliveries())


def test_latency_is_added(sim, bot):
    import time

    sim.configure(latency_ms=100)
    start = time.monotonic()
    bot.ok("getMe")
    assert time.monotonic() - start >= 0.1


def test_unknown_config_key_is_rejected(sim):
    with pytest.raises(ValueError):
        sim.configure(global_rat=5)
    with pytest.raises(ValueError):
        sim.configure(fail_5xx_ratio=2)
