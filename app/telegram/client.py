"""Synchronous Bot API client: pacing, central retries, and secret-free errors."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any

import requests

from app.telegram.errors import RetryAfter, TelegramError, TransientError
from app.telegram.methods import BotMethods
from app.telegram.pacing import ChatPacer, RateLimiter
from app.telegram.policy import decide, is_global_flood, is_idempotent, is_paced_method
from app.telegram.transport import Transport, make_session

log = logging.getLogger("app.telegram")


class TelegramClient(BotMethods):
    """Call Bot API methods from any thread of a WSGI worker process."""

    def __init__(self, token: str, base_url: str = "https://api.telegram.org", *,
                 connect_timeout: float = 3.0, read_timeout: float = 5.0,
                 max_retries: int = 2, backoff: float = 0.5, pool_size: int = 16,
                 rate_limiter: RateLimiter | None = None,
                 chat_pacer: ChatPacer | None = None,
                 session: requests.Session | None = None,
                 clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], None] = time.sleep):
        self._owns_session = session is None
        self._session = session if session is not None else make_session(pool_size, base_url)
        self._transport = Transport(self._session, base_url, token,
                                    (connect_timeout, read_timeout))
        self._base_url = base_url
        self._connect_timeout = connect_timeout
        self._read_timeout = read_timeout
        self._max_retries = max_retries
        self._backoff = backoff
        self.rate_limiter = rate_limiter
        self.chat_pacer = chat_pacer
        self.clock = clock
        self._sleep = sleep

    def __repr__(self) -> str:
        return f"TelegramClient(base_url={self._base_url!r})"

    def __enter__(self) -> TelegramClient:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    @property
    def max_call_seconds(self) -> float:
        """Return the longest a single attempt may take (connect + read timeout)."""
        return self._connect_timeout + self._read_timeout

    def close(self) -> None:
        """Release pooled connections (only when this client created the session)."""
        if self._owns_session:
            self._session.close()

    def call(self, method: str, params: dict[str, Any] | None = None, *,
             deadline: float | None = None, retry_unknown: bool | None = None,
             broadcast: bool = False, chat_id_for_pacing: Any = None,
             slot_taken: bool = False) -> Any:
        """Call ``method`` and return its ``result``, retrying only when it is safe.

        ``slot_taken``: the caller already took this call's broadcast rate slot
        (the engine does, so an item is marked in flight only when it may go
        out); retries after a 429 still take a fresh slot.
        """
        payload = _payload(params)
        if retry_unknown is None:
            retry_unknown = is_idempotent(method)
        chat = chat_id_for_pacing if chat_id_for_pacing is not None else payload.get("chat_id")
        paced_chat = chat if is_paced_method(method) else None
        attempt = 0
        while True:
            self._pace(method, paced_chat, deadline, broadcast and not (slot_taken and attempt == 0))
            started = self.clock()
            try:
                result = self._transport.post(method, payload)
            except TelegramError as exc:
                self._log_failure(method, chat, exc, started)
                if isinstance(exc, RetryAfter):
                    self._spread_flood(exc, chat, broadcast)
                decision = decide(exc, attempt, now=self.clock(), deadline=deadline,
                                  max_retries=self._max_retries, backoff=self._backoff,
                                  retry_unknown=retry_unknown)
                if not decision.retry:
                    raise
                self._sleep(decision.delay)
                attempt += 1
                continue
            log.debug("%s chat=%s ok %.0fms", method, chat, self._ms_since(started))
            return result

    def _pace(self, method: str, chat: Any, deadline: float | None, broadcast: bool) -> None:
        """Wait for the chat's and the global slot; raise RetryAfter if past deadline."""
        # The chat goes first: a global slot taken and then spent waiting on a
        # busy chat would be lost to every other thread.
        if chat is not None and self.chat_pacer is not None:
            if not self.chat_pacer.acquire(chat, deadline):
                wait = self.chat_pacer.ready_at(chat) - self.clock()
                raise RetryAfter(method, max(0.0, wait), "chat pacing: no slot before deadline",
                                 error_code=None)
        if broadcast and self.rate_limiter is not None:
            if not self.rate_limiter.acquire(deadline):
                raise RetryAfter(method, self.rate_limiter.next_slot_in(),
                                 "rate limit: no slot before deadline", error_code=None)

    def _spread_flood(self, exc: RetryAfter, chat: Any, broadcast: bool) -> None:
        """Tell the pacers about a 429 so other threads stop hitting the same wall."""
        until = self.clock() + exc.retry_after
        if self.rate_limiter is not None and (broadcast or is_global_flood(exc)):
            self.rate_limiter.block_until(until)
        if self.chat_pacer is not None and chat is not None:
            self.chat_pacer.block_until(chat, until)

    def _log_failure(self, method: str, chat: Any, exc: TelegramError, started: float) -> None:
        """Log one failed attempt by method, chat and outcome; never the URL."""
        level = logging.WARNING if isinstance(exc, TransientError) else logging.INFO
        log.log(level, "%s chat=%s %s (%s) %.0fms", method, chat, type(exc).__name__,
                exc.description, self._ms_since(started))

    def _ms_since(self, started: float) -> float:
        """Return milliseconds elapsed on the client's clock."""
        return (self.clock() - started) * 1000.0


def _payload(params: dict[str, Any] | None) -> dict[str, Any]:
    """Drop None values and turn markup objects (PTB types) into plain dicts."""
    payload: dict[str, Any] = {}
    for name, value in (params or {}).items():
        if value is None:
            continue
        to_dict = getattr(value, "to_dict", None)
        payload[name] = to_dict() if callable(to_dict) else value
    return payload
