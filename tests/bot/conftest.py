"""Bot tests: Telegram pacing off by default (the simulator's and the client's), so flows take milliseconds."""
from __future__ import annotations

import pytest

from app.services import telegram_factory


@pytest.fixture
def fast_telegram(simulator, monkeypatch):
    """Turn off per-chat pacing (1 msg/s per private chat) in the simulator and the client."""
    simulator.configure(per_chat_limits=False)
    telegram_factory.reset_clients()
    # No chat pacer at all: the client then skips per-chat waits and the outbox never defers.
    monkeypatch.setattr(telegram_factory, "SharedChatPacer", lambda *args, **kwargs: None)
    yield simulator
    telegram_factory.reset_clients()
