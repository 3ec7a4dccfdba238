"""One Telegram client per process and configuration, shared by all threads."""
from __future__ import annotations

import threading

from flask import current_app

from app.telegram.client import TelegramClient
from app.telegram.outbox import Outbox
from app.telegram.pacing import ChatPacer, RateLimiter

# Enough keep-alive connections for the largest allowed concurrency plus replies.
POOL_SIZE = 136
_lock = threading.Lock()
_clients: dict[tuple, TelegramClient] = {}


def get_client(settings: dict, *, paid: bool = False) -> TelegramClient:
    """Return this process's client for the app's token and the given settings."""
    cfg = current_app.config
    key = (
        cfg["TELEGRAM_API_BASE_URL"], cfg["TELEGRAM_BOT_TOKEN"],
        settings["telegram_connect_timeout"], settings["telegram_read_timeout"],
        settings["telegram_max_retries"],
    )
    rate = settings["broadcast_paid_rate_per_second"] if paid else settings["broadcast_rate_per_second"]
    with _lock:
        client = _clients.get(key)
        if client is None:
            client = TelegramClient(
                cfg["TELEGRAM_BOT_TOKEN"], cfg["TELEGRAM_API_BASE_URL"],
                connect_timeout=settings["telegram_connect_timeout"],
                read_timeout=settings["telegram_read_timeout"],
                max_retries=settings["telegram_max_retries"],
                pool_size=POOL_SIZE,
                rate_limiter=RateLimiter(rate), chat_pacer=ChatPacer(),
            )
            _clients[key] = client
    client.rate_limiter.set_rate(rate)
    return client


def new_outbox(client: TelegramClient) -> Outbox:
    """Return a fresh outbox for one request or one pump."""
    return Outbox(client)


def reset_clients() -> None:
    """Close and forget every client (tests, and after a token rotation)."""
    with _lock:
        for client in _clients.values():
            client.close()
        _clients.clear()
