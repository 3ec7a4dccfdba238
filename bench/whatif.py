"""What-if Telegram clients for benchmarks: the engine's TelegramClient over a cheaper HTTP session.

pump() accepts a client, so these measure a proposed transport change without
editing app/: the same TelegramClient (pacing, retries, error mapping) built
the way telegram_factory.get_client() builds it, with only the session swapped.
Benchmark use only: these sessions map no network errors to requests'
exception types, which a real change to app/telegram/transport.py must do.
"""
from __future__ import annotations

import http.client
import json
import threading
from urllib.parse import urlsplit

import requests
import urllib3


class NoEnvSession(requests.Session):
    """requests with proxies resolved once, instead of re-reading the environment on every call."""

    def __init__(self, base_url: str, pool_size: int):
        super().__init__()
        self.proxies = requests.utils.get_environ_proxies(base_url)
        self.trust_env = False
        adapter = requests.adapters.HTTPAdapter(pool_connections=2, pool_maxsize=pool_size, max_retries=0)
        self.mount("http://", adapter)
        self.mount("https://", adapter)


class _Response:
    def __init__(self, r: urllib3.BaseHTTPResponse):
        self.status_code = r.status
        self._data = r.data

    def json(self):
        return json.loads(self._data)


class Urllib3Session:
    """The two things Transport uses of a requests.Session (post, close) on a bare urllib3 pool."""

    def __init__(self, pool_size: int):
        self._pool = urllib3.PoolManager(maxsize=pool_size, retries=False)

    def post(self, url: str, json: dict, timeout: tuple[float, float]):  # noqa: A002 - requests' name
        body = _dumps(json)
        r = self._pool.request("POST", url, body=body, headers={"Content-Type": "application/json"},
                               timeout=urllib3.Timeout(connect=timeout[0], read=timeout[1]))
        return _Response(r)

    def close(self) -> None:
        self._pool.clear()


class HttpClientSession:
    """One keep-alive http.client connection per thread: the leanest client in bench.http_clients."""

    def __init__(self):
        self._local = threading.local()

    def post(self, url: str, json: dict, timeout: tuple[float, float]):  # noqa: A002 - requests' name
        parts = urlsplit(url)
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = self._local.conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=timeout[1])
        body = _dumps(json)
        try:
            conn.request("POST", parts.path, body, {"Content-Type": "application/json"})
            r = conn.getresponse()
        except (OSError, http.client.HTTPException):
            conn.close()
            self._local.conn = None
            raise
        response = _Response.__new__(_Response)
        response.status_code, response._data = r.status, r.read()
        return response

    def close(self) -> None:
        pass


def _dumps(payload: dict) -> bytes:
    return json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode()


def make_client(variant: str, settings: dict, *, paid: bool, burst: int = 1):
    """Return None (the engine's own client) or a TelegramClient over the variant's session and limiter burst."""
    if variant == "default" and burst == 1:
        return None
    from flask import current_app

    from app.services.telegram_factory import POOL_SIZE
    from app.telegram.client import TelegramClient
    from app.telegram.pacing import ChatPacer, RateLimiter

    cfg = current_app.config
    session = {"default": lambda: None, "noenv": lambda: NoEnvSession(cfg["TELEGRAM_API_BASE_URL"], POOL_SIZE),
               "urllib3": lambda: Urllib3Session(POOL_SIZE), "httpclient": HttpClientSession}[variant]()
    rate = settings["broadcast_paid_rate_per_second"] if paid else settings["broadcast_rate_per_second"]
    return TelegramClient(cfg["TELEGRAM_BOT_TOKEN"], cfg["TELEGRAM_API_BASE_URL"],
                          connect_timeout=settings["telegram_connect_timeout"],
                          read_timeout=settings["telegram_read_timeout"],
                          max_retries=settings["telegram_max_retries"], pool_size=POOL_SIZE,
                          rate_limiter=RateLimiter(rate, burst=burst), chat_pacer=ChatPacer(), session=session)
