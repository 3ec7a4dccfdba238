"""Bot tests: Telegram pacing off by default (the simulator's and the client's), so flows take milliseconds."""
from __future__ import annotations

import threading

import pytest
from werkzeug.serving import make_server

from app.services import telegram_factory
from app.services.settings import load_settings
from tests.conftest import WEBHOOK_SECRET

ALLOWED_UPDATES = ["message", "callback_query", "my_chat_member", "chat_member"]


@pytest.fixture
def fast_telegram(simulator, monkeypatch):
    """Turn off per-chat pacing (1 msg/s per private chat) in the simulator and the client."""
    simulator.configure(per_chat_limits=False)
    telegram_factory.reset_clients()
    # No chat pacer at all: the client then skips per-chat waits and the outbox never defers.
    monkeypatch.setattr(telegram_factory, "SharedChatPacer", lambda *args, **kwargs: None)
    yield simulator
    telegram_factory.reset_clients()


@pytest.fixture
def served(app, simulator):
    """Serve the app on loopback and point the simulator's webhook at it; yield the base URL."""
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    base = f"http://127.0.0.1:{server.server_port}"
    telegram_factory.get_client(load_settings()).set_webhook(base + "/telegram/webhook", WEBHOOK_SECRET,
                                                             ALLOWED_UPDATES)
    yield base
    server.shutdown()
    thread.join(5)
