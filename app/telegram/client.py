"""Synchronous Bot API client: pacing, central retries, and secret-free errors."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any

import requests

from app.telegram.errors import ChatBusy, NetworkError, RetryAfter, TelegramError, TransientError
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
# A low-priority call (a progress edit) takes a bot-wide slot only if one is
# free this soon; otherwise it is refused (the outbox keeps it for later).
LOW_PRIORITY_WAIT = 0.05
LOW = "low"
# A call sent this much later than its chat slot moves the chat's next slot along.
CHAT_SLIP_SECONDS = 0.02
# Telegram takes about a message a second in a private chat. A reply booked
# exactly a second after the one before reaches the chat closer than that
# whenever the earlier one is held up after its booking (a worker woken late on a
# busy host, network jitter, the far side's queue): replies to one user's chat
# are spaced this share of the interval more (a quarter second), so such a delay
# costs no per-chat 429. Broadcasts write once to each recipient and keep the plain second.
REPLY_CHAT_MARGIN = 0.25


class InFlight:
    """This process's requests to Telegram waiting for their answer, every client's (a pump's release asks)."""

    def __init__(self):
        self._lock = threading.Lock()
        self.count = 0

    def __enter__(self) -> None:
        with self._lock:
            self.count += 1

    def __exit__(self, *exc) -> None:
        with self._lock:
            self.count -= 1


IN_FLIGHT = InFlight()


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

    def warm(self, connections: int) -> int:
        """Open up to ``connections`` keep-alive connections before sending; return how many are open."""
        return self._transport.warm(connections)

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
        chat = payload.get("chat_id")
        paced_chat = chat if is_paced_method(method) else None
        attempt = 0
        last_error: TelegramError | None = None
        while True:
            slipped = False
            if not (slot_taken and attempt == 0):
                slipped = self._pace(method, paced_chat, deadline, broadcast, priority, slots_for(method, payload),
                                     chat_wait if attempt == 0 else None)
            elif self.pace_recipients and not chat_taken:
                self._take_chat(method, paced_chat, deadline, broadcast)
            if last_error is not None and may_retry is not None and not may_retry():
                # Asked after every wait, right before the request: the caller
                # withdrew meanwhile (a cancelled broadcast), so this attempt
                # never goes out and the last attempt's error stands.
                raise last_error
            cap = self._time_left(method, deadline) if hard_deadline else None
            started = self.clock()
            try:
                with IN_FLIGHT:
                    if files:
                        result = self._transport.post_files(method, payload, files, timeout_cap=cap)
                    else:
                        result = self._transport.post(method, payload, timeout_cap=cap, read_timeout=read_timeout)
            except TelegramError as exc:
                self._log_failure(method, chat, exc, started)
                if isinstance(exc, RetryAfter):
                    self._spread_flood(exc, chat)
                # A hard deadline keeps room for the retry's own attempt.
                room = MIN_ATTEMPT_SECONDS if hard_deadline and deadline is not None else 0.0
                decision = decide(exc, attempt, now=self.clock(),
                                  deadline=None if deadline is None else deadline - room,
                                  max_retries=self._max_retries, backoff=self._backoff,
                                  retry_unknown=retry_unknown)
                if not decision.retry:
                    raise
                self._sleep(decision.delay)
                attempt += 1
                last_error = exc
                continue
            if slipped and paced_chat is not None:
                # The budget held this call past its chat slot (a busy bot, an album's
                # span): it arrived by now, so the chat's next message waits a whole interval from here.
                self.rebook_chat(paced_chat, self.clock(), self._chat_extra(paced_chat, broadcast))
            self._note_call_time(self.clock() - started, method, broadcast)
            log.debug("%s chat=%s ok %.0fms", method, chat, self._ms_since(started))
            return result

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

    def _pace(self, method: str, chat: Any, deadline: float | None, broadcast: bool,
              priority: str | None, slots: int = 1, chat_wait: float | None = None) -> bool:
        """Wait for the chat's slot, the broadcast's own rate and bot-wide slots; raise RetryAfter if none in time.

        ``slots``: how many messages the call puts in front of the user (an
        album's parts); each takes a rate slot and a bot-wide slot, the chat one.
        True when the bot-wide wait kept the call well past its chat slot.
        """
        lane = self.broadcast_budget if broadcast else self.budget if is_counted_method(method) else None
        if priority == LOW:
            # A low-priority call asks the busy budget first: a chat slot taken
            # and then refused a bot-wide slot would hold its chat for nothing.
            self._take_budget(method, lane, deadline, priority)
            self._take_chat(method, chat, deadline, broadcast, max_wait=chat_wait)
            return False
        # The chat goes first: a bot-wide slot taken and then spent waiting on
        # a busy chat would be lost to every other call.
        asked = self.clock()
        booked = self._take_chat(method, chat, deadline, broadcast, max_wait=chat_wait)
        # A reply is late from its booked slot, not from when its wait ended: a thread
        # that wakes late on a busy machine sends late, maybe after the chat's next slot was booked.
        chat_slot = self.clock() if broadcast or booked is None else max(booked, asked)
        for _ in range(slots if broadcast and self.rate_limiter is not None else 0):
            if not self.rate_limiter.acquire(deadline):
                raise RetryAfter(method, self.rate_limiter.next_slot_in(),
                                 "rate limit: no slot before deadline", error_code=None)
        self._take_budget(method, lane, deadline, priority, slots)
        slipped = self.clock() - chat_slot > CHAT_SLIP_SECONDS and (self.pace_recipients or not broadcast)
        if slipped and not broadcast:
            self._refuse_if_chat_rebooked(method, chat, chat_slot, chat_wait)
        return slipped

    def _refuse_if_chat_rebooked(self, method: str, chat: Any, chat_slot: float, chat_wait: float | None) -> None:
        """Refuse a call the bot-wide wait held past its chat slot if the chat's next slot was booked meanwhile.

        Another process (a second reply to a chat writing fast) booked the slot
        one interval after ours while this call waited: sent now, the two would
        reach the chat less than an interval apart (a per-chat 429). Nothing
        goes out; like a busy chat, the call is tried again later.
        """
        if chat is None or self.chat_pacer is None:
            return
        interval = self.chat_pacer.interval_for(chat) + self._chat_extra(chat, False)
        latest = self.chat_pacer.ready_at(chat) - interval  # the chat's latest booked slot (or a hold's end)
        if latest <= chat_slot + CHAT_SLIP_SECONDS:
            return  # still ours: the caller moves the chat's next slot along after the send
        wait = max(0.0, latest + interval - self.clock())
        if chat_wait is not None:
            raise ChatBusy(method, wait)
        raise RetryAfter(method, wait, "chat pacing: the chat's next slot was taken meanwhile", error_code=None)

    def pace_chat(self, chat: Any, deadline: float | None, not_before: float | None = None) -> None:
        """Book a broadcast recipient's chat slot, not before ``not_before``, and sleep until it; RetryAfter if none."""
        self._take_chat("pace", chat, deadline, True, not_before)

    def rebook_chat(self, chat: Any, at: float, extra: float = 0.0) -> None:
        """Say a chat's booked message goes at ``at`` (later than booked): its next one waits a whole interval.

        ``extra``: seconds beyond the interval (a reply's margin, _chat_extra).
        """
        if self.chat_pacer is not None and chat is not None:
            self.chat_pacer.block_until(chat, at + self.chat_pacer.interval_for(chat) + extra)

    def _chat_extra(self, chat: Any, broadcast: bool) -> float:
        """Seconds a message holds its chat past the interval (a reply to a user: REPLY_CHAT_MARGIN of it)."""
        if self.chat_pacer is None or broadcast or not (isinstance(chat, int) and chat > 0):
            return 0.0
        return self.chat_pacer.interval_for(chat) * REPLY_CHAT_MARGIN

    def _take_chat(self, method: str, chat: Any, deadline: float | None, broadcast: bool,
                   not_before: float | None = None, max_wait: float | None = None) -> float | None:
        """Wait for the chat's next slot and return its time (None: not paced); ChatBusy past max_wait.

        A paid broadcast's recipients are not paced.
        """
        if chat is None or self.chat_pacer is None or not (self.pace_recipients or not broadcast):
            return None
        soon = None if max_wait is None else self.clock() + max_wait
        capped = soon is not None and (deadline is None or soon < deadline)
        limit = soon if capped else deadline
        slot = self.chat_pacer.acquire_slot(chat, limit, not_before, margin=self._chat_extra(chat, broadcast))
        if slot is None:
            wait = self.chat_pacer.ready_at(chat) - self.clock()
            if capped:
                raise ChatBusy(method, max(0.0, wait))
            raise RetryAfter(method, max(0.0, wait), "chat pacing: no slot before deadline", error_code=None)
        return slot

    def _take_budget(self, method: str, lane: Any, deadline: float | None, priority: str | None,
                     parts: int = 1) -> None:
        """Take the bot-wide slots of a call putting ``parts`` messages out (low priority: only one free at once).

        Several parts (copyMessages) arrive together: a shared lane books them
        as one span and sends at its middle (acquire_parts, as the pump does);
        a process-local lane takes them one by one.
        """
        if lane is None:
            return
        max_wait = LOW_PRIORITY_WAIT if priority == LOW else None
        if parts > 1 and hasattr(lane, "acquire_parts"):
            taken = lane.acquire_parts(parts, deadline, max_wait) is not None
        else:
            taken = all(lane.acquire(deadline, max_wait=max_wait) for _ in range(parts))
        if not taken:
            # A low-priority call is refused often (at every progress tick of a broadcast at the
            # cap): its next try is scheduled from this process's own bookings, with no read.
            hint = getattr(lane, "next_slot_hint", None) if priority == LOW else None
            wait = hint() if hint is not None else lane.next_slot_in()
            raise RetryAfter(method, max(wait, LOW_PRIORITY_WAIT), "bot-wide budget: no slot in time", error_code=None)

    def _spread_flood(self, exc: RetryAfter, chat: Any) -> None:
        """Tell the pacers about a 429: Telegram's retry_after holds the whole bot, in every process."""
        until = self.clock() + exc.retry_after
        if self.budget is not None:
            self.budget.block_until(until)
        if self.rate_limiter is not None:
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


def slots_for(method: str, payload: dict[str, Any]) -> int:
    """Return how many messages a call puts in front of the user: one per copied id, else one."""
    if method == "copyMessages":
        return max(len(payload.get("message_ids") or ()), 1)
    return 1


def _payload(params: dict[str, Any] | None) -> dict[str, Any]:
    """Drop None values and turn markup objects (PTB types) into plain dicts."""
    payload: dict[str, Any] = {}
    for name, value in (params or {}).items():
        if value is None:
            continue
        to_dict = getattr(value, "to_dict", None)
        payload[name] = to_dict() if callable(to_dict) else value
    return payload
