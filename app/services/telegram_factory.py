"""One Telegram client per process and configuration, shared by all threads."""
from __future__ import annotations

import threading

from flask import current_app

from app.telegram.client import TelegramClient
from app.telegram.outbox import Outbox
from app.telegram.pacing import ChatPacer, RateLimiter

# Enough keep-alive connections for the largest allowed concurrency plus replies.
POOL_SIZE = 136
BURST_SECONDS = 0.02
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
                rate_limiter=RateLimiter(rate, burst_for(rate)), chat_pacer=ChatPacer(),
            )
            _clients[key] = client
    client.rate_limiter.set_rate(rate, burst_for(rate))
    return client


def burst_for(rate: float) -> int:
    """Return the slots a sender may catch up after missing some: about 20 ms worth, at least one.

    With burst 1 every slot that passes while all sends are in flight (latency
    jitter) or while the pump thread commits is lost for good. Any 1 s window
    still holds at most rate + burst - 1 sends: 26 at the default 25/s, under
    Telegram's 30.
    """
    return max(2, int(rate * BURST_SECONDS))


def new_outbox(client: TelegramClient) -> Outbox:
    """Return a fresh outbox for one request or one pump."""
    return Outbox(client)


def reset_clients() -> None:
    """Close and forget every client (tests, and after a token rotation)."""
    with _lock:
        for client in _clients.values():
            client.close()
        _clients.clear()
