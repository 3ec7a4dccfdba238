"""Per-chat spacing across processes: SharedChatPacer, ChatPacer's interface on telegram_chat_pace rows."""
from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Hashable

from sqlalchemy.engine import Engine
from sqlalchemy.exc import SQLAlchemyError

from app.repository.budget import chats as repo
from app.repository.budget.engine import NO_LIMIT_US
from app.services.budget.clock import _NEVER, _US, BudgetClock
from app.telegram.pacing import ChatPacer

# The budget's modules log under the one name they had as one module, so its log lines read as before.
log = logging.getLogger("app.services.telegram_budget")

# An outbox's scheduling reads a chat's next slot at most this often (ready_hint); bookings read afresh.
# A waiting message (a progress edit, an admin's late reply) may wake this much after its chat is free.
READY_HINT_SECONDS = 0.5
READY_HINT_CHATS = 1024


class SharedChatPacer:
    """Per-chat spacing across processes: ``ChatPacer``'s interface, backed by telegram_chat_pace."""

    def __init__(self, engine: Engine, private_interval: float = 1.0, group_interval: float = 3.0, *,
                 keep: float = 60.0, prune_every: float = 60.0, db_clock: BudgetClock | None = None,
                 clock: Callable[[], float] = time.monotonic, sleep: Callable[[float], None] = time.sleep):
        self._engine = engine
        self._clock = clock
        self._sleep = sleep
        self._db_clock = db_clock or BudgetClock(engine, clock)
        # Chats the table cannot key (an @username) are paced in this process only.
        self._local = ChatPacer(private_interval, group_interval, clock=clock, sleep=sleep)
        self._keep = keep
        self._prune_every = prune_every
        self._prune_at = clock() + prune_every
        self._prune_lock = threading.Lock()
        self._hint_lock = threading.Lock()
        self._hints: dict[Hashable, tuple[float, float]] = {}  # chat -> (ready_at, when read)

    def acquire(self, chat_id: Hashable, deadline: float | None = None, not_before: float | None = None) -> bool:
        """Reserve the chat's next slot (not before ``not_before``), sleep until it; False (none reserved) if late."""
        return self.acquire_slot(chat_id, deadline, not_before) is not None

    def acquire_slot(self, chat_id: Hashable, deadline: float | None = None,
                     not_before: float | None = None, margin: float = 0.0) -> float | None:
        """As acquire(), returning the booked slot's monotonic time (None: nothing booked).

        ``margin``: the chat's next message waits this much longer than its interval.
        """
        if not isinstance(chat_id, int):
            return self._local.acquire_slot(chat_id, deadline, not_before, margin)
        now = self._clock()
        limit = NO_LIMIT_US / _US if deadline is None else deadline - now
        if limit < 0:
            return None
        interval = self.interval_for(chat_id) + margin
        try:
            not_before_us = 0 if not_before is None else self._db_clock.to_us(not_before)
            booked = repo.reserve_chat(self._engine, chat_id, round(interval * _US), int(limit * _US), not_before_us)
            if booked is None:
                return None
            slot = self._db_clock.to_mono(booked.start_us)
            self._forget_hint(chat_id)  # this process moved the chat: its next hint is read afresh
        except SQLAlchemyError:
            # No connection (a host's connection limit, a restart): the send is paced here rather than lost.
            log.warning("telegram budget: database unreachable, pacing chat %s in this process alone", chat_id,
                        exc_info=True)
            return self._local.acquire_slot(chat_id, deadline, not_before, margin)
        delay = slot - self._clock()
        if delay > 0:
            self._sleep(delay)
        self._maybe_prune()
        return slot

    def book_block(self, slots: list[tuple[Hashable, float]]) -> set[Hashable]:
        """Book each chat at its own slot (monotonic) if it is free by then, in one statement; return those booked.

        A block of broadcast copies, one per chat: each chat's row says when a
        reply or another process may write to it next, as a single booking would.
        """
        keyed = [(chat, at) for chat, at in slots if isinstance(chat, int)]
        booked = self._local.book_block([(chat, at) for chat, at in slots if not isinstance(chat, int)])
        if not keyed:
            return booked
        interval = self.interval_for(keyed[0][0])  # a block's chats are users: one interval
        try:
            ours = repo.reserve_chats(self._engine, [(chat, self._db_clock.to_us(at)) for chat, at in keyed],
                                      round(interval * _US))
        except SQLAlchemyError:
            log.warning("telegram budget: database unreachable, pacing a block's chats in this process alone",
                        exc_info=True)
            return booked | self._local.book_block(keyed)
        with self._hint_lock:
            for chat in ours:
                self._hints.pop(chat, None)
        self._maybe_prune()
        return booked | ours

    def ready_at(self, chat_id: Hashable) -> float:
        """Return the monotonic time the chat may next receive a message (may be in the past)."""
        if not isinstance(chat_id, int):
            return self._local.ready_at(chat_id)
        try:
            value = repo.chat_next_us(self._engine, chat_id)
            return _NEVER if value is None else self._db_clock.to_mono(value)
        except SQLAlchemyError:
            log.warning("telegram budget: database unreachable, reading chat %s's pace here", chat_id)
            return self._local.ready_at(chat_id)

    def ready_hint(self, chat_id: Hashable) -> float:
        """Like ready_at(), read from the database at most every READY_HINT_SECONDS per chat: for scheduling only.

        A chat's next slot only ever moves later, and this process's own
        bookings and holds drop the chat's hint, so a hint is as stale as a
        read of another process's bookings up to 0.1 s ago: an outbox that
        wakes on it finds the slot taken when its call books the chat (which
        reads afresh), and sends nothing early. An outbox waiting on a busy
        admin chat polled it once per wake, about once per broadcast copy
        while a progress edit waited for a free slot; a tenth of a second
        was still a read a second per pump, a block's whole cost.
        """
        now = self._clock()
        with self._hint_lock:
            cached = self._hints.get(chat_id)
        if cached is not None and now - cached[1] < READY_HINT_SECONDS:
            return cached[0]
        value = self.ready_at(chat_id)
        with self._hint_lock:
            if len(self._hints) >= READY_HINT_CHATS:
                self._hints.clear()  # admins' chats, in practice: a few entries
            self._hints[chat_id] = (value, now)
        return value

    def _forget_hint(self, chat_id: Hashable) -> None:
        """Drop the chat's cached hint: this process just booked or held it."""
        with self._hint_lock:
            self._hints.pop(chat_id, None)

    def block_until(self, chat_id: Hashable, t: float) -> None:
        """Send nothing to the chat before monotonic ``t`` (a per-chat 429), in every process."""
        if not isinstance(chat_id, int):
            self._local.block_until(chat_id, t)
            return
        self._forget_hint(chat_id)
        try:
            repo.hold_chat(self._engine, chat_id, self._db_clock.to_us(t))
        except SQLAlchemyError:
            log.warning("telegram budget: database unreachable, holding chat %s in this process alone", chat_id)
            self._local.block_until(chat_id, t)

    def interval_for(self, chat_id: Hashable) -> float:
        """Return the spacing for a chat: users have positive ids, groups and channels negative."""
        return self._local.interval_for(chat_id)

    def prune(self) -> int:
        """Forget chats free for longer than ``keep`` seconds; return how many."""
        return repo.prune_chats(self._engine, self._keep)

    def _maybe_prune(self) -> None:
        """Prune at most once per ``prune_every`` seconds per process, never failing the caller."""
        now = self._clock()
        if now < self._prune_at or not self._prune_lock.acquire(blocking=False):
            return
        try:
            self._prune_at = now + self._prune_every
            self.prune()
        except SQLAlchemyError:
            log.warning("telegram budget: pruning chat pace rows failed", exc_info=True)
        finally:
            self._prune_lock.release()
