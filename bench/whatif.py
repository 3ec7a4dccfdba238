"""What-if Telegram clients for benchmarks: the engine's TelegramClient with another limiter burst or HTTP pool.

pump() accepts a client, so these measure a proposed change without editing
app/: the same TelegramClient (pacing, retries, error mapping) built the way
telegram_factory.get_client() builds it, with only the burst or the pool swapped.
Benchmark use only: HttpClientSession raises http.client's errors, which
Transport's translation treats as "maybe sent" without finer distinctions.
"""
from __future__ import annotations

import http.client
import threading
from urllib.parse import urlsplit


class _Response:
    """The two things Transport reads of a urllib3 response."""

    def __init__(self, status: int, data: bytes):
        self.status = status
        self.data = data


class HttpClientSession:
    """One keep-alive http.client connection per thread: the leanest client in bench.http_clients."""

    def __init__(self):
        self._local = threading.local()

    def urlopen(self, method: str, url: str, *, body: bytes, headers: dict, **_options) -> _Response:
        """What Transport calls on its urllib3 pool (timeouts fixed at 10 s, no proxy, no TLS)."""
        parts = urlsplit(url)
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = self._local.conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=10)
        try:
            conn.request(method, parts.path, body, headers)
            r = conn.getresponse()
            return _Response(r.status, r.read())
        except (OSError, http.client.HTTPException):
            conn.close()
            self._local.conn = None
            raise

    def close(self) -> None:
        pass


def make_client(variant: str, settings: dict, *, paid: bool, burst: int = 1):
    """Return None (the engine's own client) or a TelegramClient over the variant's session and limiter burst."""
    if variant == "default" and burst == 1:
        return None
    from flask import current_app

    from app.services.telegram_factory import POOL_SIZE
    from app.telegram.client import TelegramClient
    from app.telegram.pacing import ChatPacer, RateLimiter

    cfg = current_app.config
    session = {"default": lambda: None, "httpclient": HttpClientSession}[variant]()
    rate = settings["broadcast_paid_rate_per_second"] if paid else settings["broadcast_rate_per_second"]
    return TelegramClient(cfg["TELEGRAM_BOT_TOKEN"], cfg["TELEGRAM_API_BASE_URL"],
                          connect_timeout=settings["telegram_connect_timeout"],
                          read_timeout=settings["telegram_read_timeout"],
                          max_retries=settings["telegram_max_retries"], pool_size=POOL_SIZE,
                          rate_limiter=RateLimiter(rate, burst=burst), chat_pacer=ChatPacer(), session=session)
