"""Thread-safe send pacing: a global slot scheduler and per-chat intervals."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Hashable

_NEVER = float("-inf")
_PRUNE_EVERY = 60.0


class RateLimiter:
    """Hand out evenly spaced send slots at ``rate`` per second to all threads."""

    def __init__(self, rate: float, burst: int = 1,
                 clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], None] = time.sleep):
        if burst < 1:
            raise ValueError("burst must be >= 1")
        self._lock = threading.Lock()
        self._interval = _interval(rate)
        self._burst = burst
        self._clock = clock
        self._sleep = sleep
        # GCRA "theoretical arrival time": when the next slot is due at steady rate.
        self._tat = _NEVER
        self._blocked_until = _NEVER
        self._block_epoch = 0

    @property
    def rate(self) -> float:
        """Return the configured rate in slots per second."""
        return 1.0 / self._interval

    def set_rate(self, rate: float, burst: int | None = None) -> None:
        """Change the rate (and burst); slots already reserved keep their times."""
        if burst is not None and burst < 1:
            raise ValueError("burst must be >= 1")
        with self._lock:
            self._interval = _interval(rate)
            if burst is not None:
                self._burst = burst

    def acquire(self, deadline: float | None = None) -> bool:
        """Reserve the next slot and sleep until it; False if it starts after deadline."""
        while True:
            reserved = self._reserve(deadline)
            if reserved is None:
                return False
            slot, epoch = reserved
            delay = slot - self._clock()
            if delay > 0:
                # Sleep outside the lock so other threads can queue their slots meanwhile.
                self._sleep(delay)
            if not self._moved_past(slot, epoch):
                return True
            # A 429 arrived while we slept and covers our slot: take a later one.

    def reserve_slots(self, n: int, deadline: float | None = None) -> list[float]:
        """Book the next ``n`` slots at once (no sleep); those starting after deadline are not booked."""
        slots = []
        for _ in range(n):
            reserved = self._reserve(deadline)
            if reserved is None:
                break
            slots.append(reserved[0])
        return slots

    def next_slot_in(self) -> float:
        """Return seconds until a slot reserved now would start (0 if free now)."""
        with self._lock:
            now = self._clock()
            return max(0.0, self._slot_for(now) - now)

    def block_until(self, t: float) -> None:
        """Grant no slot before monotonic time ``t`` (after a 429), for every thread."""
        with self._lock:
            if t > self._blocked_until:
                self._blocked_until = t
                self._block_epoch += 1

    def _slot_for(self, now: float) -> float:
        """Return the earliest slot start allowed at ``now`` (caller holds the lock)."""
        # Spacing comes from the previous slot, not from "now", so oversleeping
        # one slot never lowers the achieved rate.
        earliest = self._tat - (self._burst - 1) * self._interval
        return max(now, earliest, self._blocked_until)

    def _reserve(self, deadline: float | None) -> tuple[float, int] | None:
        """Book the next slot under the lock; None (booking nothing) past deadline."""
        with self._lock:
            slot = self._slot_for(self._clock())
            if deadline is not None and slot > deadline:
                return None
            self._tat = max(self._tat, slot) + self._interval
            return slot, self._block_epoch

    def _moved_past(self, slot: float, epoch: int) -> bool:
        """Return True when a block set after booking now covers the booked slot."""
        with self._lock:
            return epoch != self._block_epoch and self._blocked_until > slot


class ChatPacer:
    """Space messages per chat: 1/s for private chats, 20/min for groups and channels."""

    def __init__(self, private_interval: float = 1.0, group_interval: float = 3.0,
                 clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], None] = time.sleep):
        self._lock = threading.Lock()
        self._private = private_interval
        self._group = group_interval
        self._clock = clock
        self._sleep = sleep
        self._next: dict[Hashable, float] = {}
        self._prune_at = clock() + _PRUNE_EVERY

    def acquire(self, chat_id: Hashable, deadline: float | None = None, not_before: float | None = None) -> bool:
        """Reserve the chat's next slot (not before ``not_before``) and sleep until it; False if after deadline."""
        return self.acquire_slot(chat_id, deadline, not_before) is not None

    def acquire_slot(self, chat_id: Hashable, deadline: float | None = None,
                     not_before: float | None = None, margin: float = 0.0) -> float | None:
        """As acquire(), returning the booked slot's monotonic time (None: nothing booked).

        ``margin``: the chat's next message waits this much longer than its interval.
        """
        with self._lock:
            now = self._clock()
            slot = max(now, self._next.get(chat_id, _NEVER), _NEVER if not_before is None else not_before)
            if deadline is not None and slot > deadline:
                return None
            self._next[chat_id] = slot + self.interval_for(chat_id) + margin
            self._maybe_prune(now)
        delay = slot - now
        if delay > 0:
            self._sleep(delay)
        return slot

    def book_block(self, slots: list[tuple[Hashable, float]]) -> set[Hashable]:
        """Book each chat at its own slot if it is free by then (no sleep); return the chats booked."""
        booked = set()
        with self._lock:
            for chat_id, at in slots:
                if self._next.get(chat_id, _NEVER) <= at:
                    self._next[chat_id] = at + self.interval_for(chat_id)
                    booked.add(chat_id)
        return booked

    def ready_at(self, chat_id: Hashable) -> float:
        """Return the monotonic time the chat may next receive a message (may be in the past).

        Not clamped to "now": callers compare it with a "now" they read
        earlier, and a fresher clock read here would always look later.
        """
        with self._lock:
            return self._next.get(chat_id, _NEVER)

    def block_until(self, chat_id: Hashable, t: float) -> None:
        """Send nothing to the chat before monotonic time ``t`` (after a per-chat 429)."""
        with self._lock:
            self._next[chat_id] = max(t, self._next.get(chat_id, _NEVER))

    def tracked(self) -> int:
        """Return how many chats are remembered (pruning keeps this bounded)."""
        with self._lock:
            return len(self._next)

    def interval_for(self, chat_id: Hashable) -> float:
        """Return the spacing for a chat: users have positive ids, groups negative."""
        is_private = isinstance(chat_id, int) and chat_id > 0
        return self._private if is_private else self._group

    def _maybe_prune(self, now: float) -> None:
        """Forget chats that are free again, at most once a minute (caller holds the lock)."""
        # A broadcast touches each of 40k chats once; without pruning the map
        # would keep every one of them for the life of the process.
        if now < self._prune_at:
            return
        self._prune_at = now + _PRUNE_EVERY
        self._next = {chat: t for chat, t in self._next.items() if t > now}


def _interval(rate: float) -> float:
    """Return seconds per slot for a positive rate."""
    if not rate or rate <= 0:
        raise ValueError("rate must be > 0")
    return 1.0 / rate
