"""Fixtures: a fresh simulator per test and a small Bot API client for it."""

from __future__ import annotations

from typing import Any

import pytest
import requests

from app.simulator import SimulatorServer

TOKEN = "123456:TEST-token"


class BotClient:
    """Call the simulator like the app does: JSON POSTs over one keep-alive session."""

    def __init__(self, sim: SimulatorServer):
        self.sim = sim
        self.session = requests.Session()

    def __call__(self, method: str, timeout: float = 5.0, **params: Any) -> requests.Response:
        return self.session.post(f"{self.sim.api_url}/{method}", json=params, timeout=timeout)

    def ok(self, method: str, **params: Any) -> Any:
        """Call a method that must succeed; return its result."""
        response = self(method, **params)
        body = response.json()
        assert response.status_code == 200 and body["ok"] is True, response.text
        assert set(body) <= {"ok", "result", "description"}
        return body["result"]

    def error(self, method: str, **params: Any) -> tuple[int, str, dict]:
        """Call a method that must fail; return (error_code, description, body)."""
        response = self(method, **params)
        body = response.json()
        assert body["ok"] is False, response.text
        assert body["error_code"] == response.status_code
        return body["error_code"], body["description"], body


@pytest.fixture
def sim():
    """A simulator with Telegram-like defaults on a free port, stopped after the test."""
    server = SimulatorServer(token=TOKEN, seed=1).start()
    yield server
    server.stop()


@pytest.fixture
def bot(sim):
    """A Bot API client bound to the test's simulator."""
    client = BotClient(sim)
    yield client
    client.session.close()
