"""Synchronous Bot API client: central retries, a call's timing, and secret-free errors."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import requests

from app.telegram.call_pacing import CallPacing, slots_for
from app.telegram.errors import NetworkError, RetryAfter, TelegramError, TransientError
from app.telegram.in_flight import IN_FLIGHT
from app.telegram.methods import BotMethods
from app.telegram.multipart import Upload
from app.telegram.pacing import ChatPacer, RateLimiter
from app.telegram.policy import decide, is_counted_method, is_idempotent, is_paced_method
from app.telegram.transport import Transport, make_session

log = logging.getLogger("app.telegram")
# Under a hard deadline, an attempt with less time left than this is not started.
MIN_ATTEMPT_SECONDS = 0.05
# A hard-deadline attempt needs this many typical call times left, or it is not made.
ATTEMPT_HEADROOM = 1.5
# The typical call time moves this fraction of the way to each new call's time:
# one slow call barely shifts it, a lasting slowdown shows within about ten calls.
CALL_TIME_WEIGHT = 0.2


@dataclass(frozen=True)
class CallOptions:
    """How one call may wait and retry: call()'s keywords, as its attempts read them."""

    deadline: float | None
    retry_unknown: bool
    broadcast: bool
    slot_taken: bool
    chat_taken: bool
    may_retry: Callable[[], bool] | None
    hard_deadline: bool
    priority: str | None
    files: dict[str, Upload] | None
    chat_wait: float | None
    read_timeout: float | None


class TelegramClient(CallPacing, BotMethods):
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
        self._max_retries = max_retries
        self._backoff = backoff
        self.rate_limiter = rate_limiter
        self.chat_pacer = chat_pacer
        self.clock = clock
        self._sleep = sleep
        # Typical seconds of a successful call (moving average), or None before the first.
        self.typical_call_seconds: float | None = None

    # The bot-wide budget every counted call draws from (shared by every
    # process), and the lane broadcast sends draw from: the same free lane, or
    # the paid lane for the paid client. None: this process paces alone.
    budget = None
    broadcast_budget = None
    # Pace broadcast recipients' chats too: a recipient may be chatting with
    # the bot (an admin watching progress) at that moment. Off for the paid
    # client: a statement per send would cost more than its 1000/s allows.
    pace_recipients = True

    def __repr__(self) -> str:
        return f"TelegramClient(base_url={self._base_url!r})"

    def __enter__(self) -> TelegramClient:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        """Release pooled connections (only when this client created the session)."""
        if self._owns_session:
            self._session.close()

    def warm(self, connections: int, threads=None) -> int:
        """Open up to ``connections`` keep-alive connections before sending (on threads, an executor, if given)."""
        return self._transport.warm(connections, threads)

    def call(self, method: str, params: dict[str, Any] | None = None, *,
             deadline: float | None = None, retry_unknown: bool | None = None,
             broadcast: bool = False,
             slot_taken: bool = False, chat_taken: bool = False,
             may_retry: Callable[[], bool] | None = None,
             hard_deadline: bool = False, priority: str | None = None,
             files: dict[str, Upload] | None = None, chat_wait: float | None = None,
             read_timeout: float | None = None) -> Any:
        """Call ``method`` and return its ``result``, retrying only when it is safe.

        ``slot_taken``: the caller already took this call's broadcast rate slot
        (the engine does, so an item is marked in flight only when it may go
        out); retries after a 429 still take a fresh slot. ``chat_taken``: with
        ``slot_taken``, the caller also booked the chat (pace_chat). ``may_retry``: asked
        before each retry's request; False raises the last error instead.
        ``hard_deadline``: return or raise by ``deadline`` (plus scheduling
        slack): each attempt's connect and read time is capped by the time
        left, so a capped read may end as UnknownOutcome. For the outbox's
        best-effort writes; never for broadcast sends, whose timeouts stay whole.
        ``priority="low"``: take a bot-wide slot only if one is free at once
        (progress edits give way to replies and broadcast sends).
        ``files``: uploads sent as multipart/form-data (sendDocument), paced
        and counted like any send; each attempt reads them from their start.
        ``chat_wait``: take the chat's slot only if it is free within this
        many seconds, else raise ChatBusy having booked nothing (a reply
        must not hold its web worker for a chat that is writing faster than 1/s).
        ``read_timeout``: each attempt's wait for the answer (a broadcast send
        waits longer than a reply: an answer given up on is a copy without its message id).
        """
        payload = _payload(params)
        if retry_unknown is None:
            retry_unknown = is_idempotent(method)
        opts = CallOptions(deadline, retry_unknown, broadcast, slot_taken, chat_taken, may_retry,
                           hard_deadline, priority, files, chat_wait, read_timeout)
        return self._call(method, payload, opts)

    def _call(self, method: str, payload: dict[str, Any], opts: CallOptions) -> Any:
        """Make the call's attempts: take its slots, post it, retry only while the policy says it is safe."""
        chat = payload.get("chat_id")
        paced_chat = chat if is_paced_method(method) else None
        attempt = 0
        last_error: TelegramError | None = None
        while True:
            slipped = False
            if not (opts.slot_taken and attempt == 0):
                slipped = self._pace(method, paced_chat, opts.deadline, opts.broadcast, opts.priority,
                                     slots_for(method, payload), opts.chat_wait if attempt == 0 else None)
            elif self.pace_recipients and not opts.chat_taken:
                self._take_chat(method, paced_chat, opts.deadline, opts.broadcast)
            if last_error is not None and opts.may_retry is not None and not opts.may_retry():
                # Asked after every wait, right before the request: the caller
                # withdrew meanwhile (a cancelled broadcast), so this attempt
                # never goes out and the last attempt's error stands.
                raise last_error
            cap = self._time_left(method, opts.deadline) if opts.hard_deadline else None
            started = self.clock()
            try:
                result = self._post(method, payload, opts, cap)
            except TelegramError as exc:
                delay = self._retry_delay(method, chat, exc, started, attempt, opts)
                if delay is None:
                    raise
                self._sleep(delay)
                attempt += 1
                last_error = exc
                continue
            if slipped and paced_chat is not None:
                # The budget held this call past its chat slot (a busy bot, an album's
                # span): it arrived by now, so the chat's next message waits a whole interval from here.
                self.rebook_chat(paced_chat, self.clock(), self._chat_extra(paced_chat, opts.broadcast))
            self._note_call_time(self.clock() - started, method, opts.broadcast)
            log.debug("%s chat=%s ok %.0fms", method, chat, self._ms_since(started))
            return result

    def _post(self, method: str, payload: dict[str, Any], opts: CallOptions, cap: float | None) -> Any:
        """Send one attempt's request (multipart when it uploads files), counted as in flight until answered."""
        with IN_FLIGHT:
            if opts.files:
                return self._transport.post_files(method, payload, opts.files, timeout_cap=cap)
            return self._transport.post(method, payload, timeout_cap=cap, read_timeout=opts.read_timeout)

    def _retry_delay(self, method: str, chat: Any, exc: TelegramError, started: float, attempt: int,
                     opts: CallOptions) -> float | None:
        """Log a failed attempt and return how long to wait before the next, or None when it must not be retried."""
        self._log_failure(method, chat, exc, started)
        if isinstance(exc, RetryAfter):
            self._spread_flood(exc, chat)
        # A hard deadline keeps room for the retry's own attempt.
        room = MIN_ATTEMPT_SECONDS if opts.hard_deadline and opts.deadline is not None else 0.0
        decision = decide(exc, attempt, now=self.clock(),
                          deadline=None if opts.deadline is None else opts.deadline - room,
                          max_retries=self._max_retries, backoff=self._backoff,
                          retry_unknown=opts.retry_unknown)
        return decision.delay if decision.retry else None

    def _time_left(self, method: str, deadline: float | None) -> float | None:
        """Return the seconds an attempt may take before a hard deadline; raise if too few."""
        if deadline is None:
            return None
        left = deadline - self.clock()
        # An attempt cut shorter than calls usually take would be sent and then
        # end as an unknown outcome: better not to send it at all.
        need = max(MIN_ATTEMPT_SECONDS, ATTEMPT_HEADROOM * (self.typical_call_seconds or 0.0))
        if left < need:
            # Nothing was written: the caller may try again later.
            raise NetworkError(method, "no time left before the deadline")
        return left

    def _note_call_time(self, seconds: float, method: str, broadcast: bool) -> None:
        """Fold one successful call's duration into the moving average, and into its lane's jitter margin."""
        typical = self.typical_call_seconds
        self.typical_call_seconds = seconds if typical is None else typical + CALL_TIME_WEIGHT * (seconds - typical)
        lane = self.broadcast_budget if broadcast else self.budget if is_counted_method(method) else None
        # A shared lane spaces its slots by how much the calls' arrivals spread (SharedRateLimiter.note_call).
        note = getattr(lane, "note_call", None)
        if note is not None:
            note(seconds)

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
