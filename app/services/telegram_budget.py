"""The bot-wide Telegram budget as pacers: drop-ins for app.telegram.pacing, backed by the database.

Every process and thread takes its slots from one timeline per lane in
``telegram_budget`` (app/repository/telegram_budget.py), so the sum of all
counted calls stays under one cap however many processes Passenger or
gunicorn runs. Slots are database-clock microseconds; each process maps
them to its own time.monotonic() with a ``BudgetClock`` anchor.
"""
from __future__ import annotations

import logging
import secrets
import threading
import time
from collections.abc import Callable, Hashable
from typing import NamedTuple

from sqlalchemy.engine import Engine
from sqlalchemy.exc import SQLAlchemyError

from app.models.telegram_budget import FREE, LANES
from app.repository import telegram_budget as repo
from app.telegram.pacing import ChatPacer

log = logging.getLogger(__name__)
_NEVER = float("-inf")
_US = 1_000_000


class BudgetClock:
    """Map the database's µs clock to this process's monotonic clock.

    Read once (the round trip's midpoint, best of three) and re-anchored every
    ``every`` seconds, so drift between the two clocks stays in microseconds.
    """

    def __init__(self, engine: Engine, clock: Callable[[], float] = time.monotonic, every: float = 60.0):
        self._engine = engine
        self._clock = clock
        self._every = every
        self._lock = threading.Lock()
        self._us = 0
        self._mono = _NEVER

    def to_mono(self, us: int) -> float:
        """Return the monotonic time of database time ``us``."""
        anchor_us, anchor_mono = self._anchor()
        return anchor_mono + (us - anchor_us) / _US

    def to_us(self, mono: float) -> int:
        """Return the database time (µs) of monotonic time ``mono``."""
        anchor_us, anchor_mono = self._anchor()
        return anchor_us + round((mono - anchor_mono) * _US)

    def _anchor(self) -> tuple[int, float]:
        """Return (db µs, monotonic) of the current anchor, reading it when stale."""
        with self._lock:
            if self._clock() - self._mono < self._every:
                return self._us, self._mono
            best = None
            for _ in range(3):
                before = self._clock()
                value = repo.now_us(self._engine)
                after = self._clock()
                if best is None or after - before < best[0]:
                    best = (after - before, value, (before + after) / 2)
            _, self._us, self._mono = best
            return self._us, self._mono


# How many times acquire_slot books again after waking too late before it
# uses a late slot anyway (bounded, so a loaded machine still makes progress).
MAX_LATE_REBOOKINGS = 2
# The arrival jitter margin looks at this many recent calls' durations...
JITTER_SAMPLES = 128
# ...and ignores this share of them at each end: one stalled call must not
# slow the lane for the next hundred, while a lasting spread shows at once.
JITTER_TRIM = 1 / 64
# Fewer durations than this give no margin yet (the one spare slot covers them).
JITTER_MIN_SAMPLES = 8


class JitterGauge:
    """The spread of recent calls' durations: how far apart two calls sent together may arrive.

    A call's arrival at Telegram is its send time plus its outbound delay;
    the round trip it measures holds that delay plus the way back, so the
    spread of round trips bounds the spread of arrivals (unless the two
    halves move against each other). Thread-safe; one per process and lane.
    """

    def __init__(self, samples: int = JITTER_SAMPLES, trim: float = JITTER_TRIM):
        self._lock = threading.Lock()
        self._samples = samples
        self._trim = trim
        self._durations: list[float] = []
        self._next = 0

    def note(self, seconds: float) -> None:
        """Record one successful call's duration (request sent to answer read)."""
        with self._lock:
            if len(self._durations) < self._samples:
                self._durations.append(seconds)
            else:
                self._durations[self._next] = seconds
            self._next = (self._next + 1) % self._samples

    def spread(self) -> float:
        """Return how far apart recent calls' durations range, outliers trimmed; 0 before enough calls.

        The range between the (cut + 1)-th fastest and slowest of n durations
        covers about (n + 1 - 2(cut + 1)) / (n + 1) of the whole spread, so it
        is scaled back up to estimate the spread itself.
        """
        with self._lock:
            ordered = sorted(self._durations)
        n = len(ordered)
        if n < JITTER_MIN_SAMPLES:
            return 0.0
        cut = int(n * self._trim)
        return (ordered[-1 - cut] - ordered[cut]) * (n + 1) / (n + 1 - 2 * (cut + 1))


def jitter_interval(rate: float, spread: float, limit: float | None = None) -> float:
    """Return the slot interval that keeps arrivals within ``limit`` per second when they spread by ``spread`` s.

    ``limit``: the calls Telegram takes in any second, rate + 1 by default
    (the free lane: a cap of 29 against Telegram's ~30). Any limit + 1
    consecutive slots span ``limit`` intervals; their calls all land inside
    one second only if that span, less the arrival spread, is under a
    second. So the interval is (1 + spread) / limit, and never shorter than
    1 / rate: a spread up to one slot (34 ms at 29/s) costs nothing.
    """
    return max(1.0 / rate, (1.0 + spread) / (rate + 1.0 if limit is None else limit))


# A reply's call may stay unanswered this long after its slot (its read timeout and a connect, rounded up):
# the other processes' window of this process's activity on a lane (reserve's busy_us).
REPLY_BUSY_SECONDS = 5.0


class Booking(NamedTuple):
    """Slots booked in one statement (monotonic times), and whether they are this process's alone.

    ``quiet``: no other process's call on the bot can draw a 429 before the
    last of these slots (reserve's ``others`` was False on every lane that
    tells), so a 429 hold can only come from this process, which knows it at once.
    """

    slots: list[float]
    quiet: bool = False


class SharedRateLimiter:
    """Evenly spaced slots at ``rate``/s on one shared lane: ``RateLimiter``'s interface, bot-wide.

    No catch-up credit: a slot starts at the later of the previous slot plus
    one interval, a 429 hold, and "now", so any 1 s window holds at most
    rate + 1 slots across every process. A slot reserved long before it is
    due is confirmed against the shared hold (re-read at most every
    ``recheck`` s) before it is used, so a 429 seen by another process stops
    this one too. With ``max_lateness`` (a fraction of the interval), a slot
    used later than that is refused and booked again: slots that a stalled
    thread would use late, all at once, could put more than one extra call
    into some 1 s window. With ``jitter`` (a JitterGauge fed by the calls'
    own durations), slots are spread further apart when arrivals jitter by
    more than the spare slot absorbs (jitter_interval): the margin only ever
    lengthens this process's intervals, so it never makes another process's
    bookings less safe. ``limit``: the calls Telegram takes in any second on
    this lane (None: rate + 1; the paid lane: 1000).
    """

    def __init__(self, engine: Engine, rate: float, lane: str = FREE, *, hold_lanes: tuple[str, ...] = LANES,
                 recheck: float = 0.1, max_lateness: float | None = None, db_clock: BudgetClock | None = None,
                 jitter: JitterGauge | None = None, limit: float | None = None,
                 activity: SharedRateLimiter | None = None, busy_for: float = REPLY_BUSY_SECONDS,
                 clock: Callable[[], float] = time.monotonic, sleep: Callable[[float], None] = time.sleep):
        self._engine = engine
        # This process's booker id on the lane row (reserve's ``me``), and how long its calls
        # may stay unanswered after their slot. ``activity``: the lane whose row tells who else
        # is busy on the bot when this one's cannot (the paid lane asks the free one).
        self.me = secrets.randbits(62) | 1
        self.busy_for = busy_for
        self._activity = activity
        self._booked_until = _NEVER  # the end of this process's latest booking (the lane is booked at least so far)
        self._replies_until = _NEVER  # when the latest call booked with the default window may be unanswered
        self._lane = lane
        self._hold_lanes = hold_lanes
        self._recheck = recheck
        self._max_lateness = max_lateness
        self._clock = clock
        self._sleep = sleep
        self._db_clock = db_clock or BudgetClock(engine, clock)
        self._lock = threading.Lock()
        self._refresh_lock = threading.Lock()
        self._base = _interval(rate)
        self.jitter = jitter
        self._limit = limit  # calls Telegram takes in any second (None: rate + 1)
        self._hold = _NEVER  # latest 429 hold known here (monotonic)
        self._read_at = _NEVER  # when the shared hold was last read
        self._local_tat = _NEVER  # fallback pacing while the database is unreachable
        self.statements = 0  # database statements issued (for benchmarks)

    @property
    def rate(self) -> float:
        """Return the configured rate in slots per second."""
        return 1.0 / self._base

    @property
    def interval(self) -> float:
        """Return the seconds between slots now: the configured rate's, widened for measured arrival jitter."""
        if self.jitter is None:
            return self._base
        # A slot may also leave up to max_lateness late (is_late): that spreads arrivals as much.
        late = (self._max_lateness or 0.0) * self._base
        return jitter_interval(1.0 / self._base, self.jitter.spread() + late, self._limit)

    def note_call(self, seconds: float) -> None:
        """Record a successful call's duration on this lane (its arrival jitter margin learns from it)."""
        if self.jitter is not None:
            self.jitter.note(seconds)

    def set_rate(self, rate: float, burst: int | None = None) -> None:
        """Change the rate; ``burst`` is accepted for RateLimiter's interface but no credit is ever given."""
        if burst is not None and burst < 1:
            raise ValueError("burst must be >= 1")
        self._base = _interval(rate)

    def acquire(self, deadline: float | None = None, max_wait: float | None = None) -> bool:
        """Reserve the next slot and sleep until it; False (nothing reserved) if too late.

        ``deadline`` is monotonic; ``max_wait`` (seconds) lets low-priority
        calls (progress edits) take a slot only if one is free that soon.
        """
        return self.acquire_slot(deadline, max_wait) is not None

    def acquire_slot(self, deadline: float | None = None, max_wait: float | None = None) -> float | None:
        """Like acquire(), returning the monotonic slot time slept to, or None."""
        return self.acquire_parts(1, deadline, max_wait)

    def acquire_parts(self, parts: int, deadline: float | None = None, max_wait: float | None = None) -> float | None:
        """Book the span of one call putting ``parts`` messages out, sleep to its send slot; that slot, or None.

        One message: one slot. An album's parts arrive together, so its call
        books span_for(parts) slots and goes at their middle (send_slots), as
        the pump's album sends do.
        """
        late = 0
        while True:
            if not self._wait_out_hold(deadline, max_wait):
                return None
            reserved_at = self._clock()
            sends = send_slots(self.acquire_many(span_for(parts), deadline, max_wait), parts)
            if not sends:
                return None
            at = sends[0]
            delay = at - self._clock()
            if delay > 0:
                self._sleep(delay)
            # A thread that keeps waking late (a loaded machine) still gets its call out.
            if self.clear_at(at, reserved_at, late_ok=late >= MAX_LATE_REBOOKINGS):
                return at
            late += self.is_late(at)
            # A 429 hold recorded after we booked covers the slot, or we woke too late: take a later one.

    def acquire_many(self, n: int, deadline: float | None = None, max_wait: float | None = None) -> list[float]:
        """Reserve ``n`` consecutive slots in one statement; return their monotonic times (no sleep).

        Empty (nothing reserved) when the first slot would start more than
        ``max_wait`` from now or the last one after ``deadline``. The caller
        sleeps to each slot and should ask ``clear_at(slot, reserved_at)``
        before using a slot booked long before.
        """
        return self.book(n, deadline, max_wait).slots

    def book(self, n: int, deadline: float | None = None, max_wait: float | None = None, *,
             busy_for: float | None = None, spacing: float = 0.0) -> Booking:
        """Like acquire_many(), saying whether the slots are this process's alone (Booking.quiet).

        ``busy_for``: how long after its slot each call may stay unanswered
        (default: a reply's); ``spacing``: slots at least this far apart (a
        broadcast's own slower rate). A booking that cannot start within
        ``max_wait`` is refused here, with no statement, when this process's
        own bookings already reach that far (a progress edit while a pump books ahead).
        """
        interval = max(self.interval, spacing)
        now = self._clock()
        limit = repo.NO_LIMIT_US / _US if max_wait is None else max_wait
        if deadline is not None:
            limit = min(limit, deadline - now - (n - 1) * interval)
        with self._lock:
            ahead = max(self._booked_until, self._hold) - now
        if limit < 0 or n < 1 or ahead > limit:
            return Booking([])
        busy = self.busy_for if busy_for is None else busy_for
        quiet = False
        try:
            self.statements += 1
            booked = repo.reserve(self._engine, self._lane, n, round(interval * _US), int(limit * _US), me=self.me,
                                  busy_us=int(busy * _US))
            if booked is None:
                return Booking([])
            start = self._db_clock.to_mono(booked.start_us)
            if booked.held:
                self._refresh_hold(self._clock())  # rare: learn how long the running hold lasts
            else:
                with self._lock:  # no hold was running: the booking was a fresh read of it
                    self._read_at = max(self._read_at, now)
            quiet = not booked.others and (self._activity is None or self._activity.alone(busy))
        except SQLAlchemyError:
            log.warning("telegram budget: database unreachable, pacing this process alone", exc_info=True)
            start = self._take_local(n, interval, now, limit)
            if start is None:
                return Booking([])
        with self._lock:
            self._booked_until = max(self._booked_until, start + n * interval)
            if busy_for is None:  # a reply's window: release() keeps the lane owned until it ends
                self._replies_until = max(self._replies_until, start + n * interval + busy)
        slots = [start + i * interval for i in range(n)]
        # The database judged the limit a round trip later than `now`: never hand out a slot past the deadline.
        return Booking([s for s in slots if deadline is None or s <= deadline], quiet)

    def alone(self, busy_for: float) -> bool:
        """Record this process's activity on the lane without booking a slot; True if nobody else is busy on it."""
        try:
            self.statements += 1
            booked = repo.reserve(self._engine, self._lane, 0, 0, repo.NO_LIMIT_US, me=self.me,
                                  busy_us=int(busy_for * _US))
        except SQLAlchemyError:
            return False
        return booked is not None and not booked.others

    def release(self, answered: bool = False) -> None:
        """Say this process's long calls (a pump's) are answered: its window shrinks to its replies' (best effort).

        ``answered``: no request of this process is waiting for its answer at
        all, so the window ends now and the next pump is alone at once.
        """
        with self._lock:
            until = self._clock() if answered else max(self._clock(), self._replies_until)
        try:
            self.statements += 1
            repo.release_owner(self._engine, self._lane, self.me, self._db_clock.to_us(until))
        except SQLAlchemyError:
            log.warning("telegram budget: could not release the lane's ownership", exc_info=True)

    def is_late(self, slot: float) -> bool:
        """Tell whether using ``slot`` now would be later than ``max_lateness`` allows."""
        return self._max_lateness is not None and self._clock() - slot > self._max_lateness * self._base

    def clear_at(self, slot: float, reserved_at: float | None = None, *, late_ok: bool = False,
                 quiet: bool = False) -> bool:
        """Return True unless a 429 hold (from any process) covers ``slot``, or the slot is late.

        Every booking in this process tells whether a hold is running, so
        bookings double as reads of the hold; when the latest is older than
        ``recheck`` seconds the shared row is read again (once for all threads).
        A ``quiet`` slot (Booking.quiet) is judged on this process's own
        knowledge: no one else can have recorded a hold that covers it.
        """
        with self._lock:
            if self._hold > slot:
                return False
            known_at = max(self._read_at, _NEVER if reserved_at is None else reserved_at)
        started = self._clock()
        if not quiet and started - known_at > self._recheck:
            self._refresh_hold(started)
            with self._lock:
                if self._hold > slot:
                    return False
        # Judged last, after any read of the hold: nothing but the request
        # itself may stand between this check and the send.
        return late_ok or not self.is_late(slot)

    def next_slot_hint(self) -> float:
        """Return seconds until this process's own bookings and known hold end: a lower bound, read from memory.

        For rescheduling a low-priority call refused a slot (a progress edit
        while a pump books ahead): it tries again then, and is refused again
        if another process's bookings reach further.
        """
        with self._lock:
            return max(0.0, max(self._booked_until, self._hold) - self._clock())

    def next_slot_in(self) -> float:
        """Return seconds until a slot reserved now would start (0 if free now)."""
        try:
            self.statements += 1
            next_us, hold_us, now_us = repo.read_lane(self._engine, self._lane)
            shared = max(next_us, hold_us, now_us) - now_us
        except SQLAlchemyError:
            shared = 0
        with self._lock:
            local = self._hold - self._clock()
        return max(0.0, shared / _US, local)

    def block_until(self, t: float) -> None:
        """Grant no slot before monotonic ``t`` (a 429), here at once and in every process via the database."""
        with self._lock:
            self._hold = max(self._hold, t)
        try:
            self.statements += 1
            repo.hold(self._engine, self._hold_lanes, max(0.0, t - self._clock()))
        except SQLAlchemyError:
            log.warning("telegram budget: could not record a 429 hold for other processes", exc_info=True)

    def _wait_out_hold(self, deadline: float | None, max_wait: float | None) -> bool:
        """Sleep past a hold known here; False if it outlasts the deadline or max_wait."""
        with self._lock:
            hold = self._hold
        now = self._clock()
        if hold <= now:
            return True
        if (deadline is not None and hold > deadline) or (max_wait is not None and hold - now > max_wait):
            return False
        self._sleep(hold - now)
        return True

    def _refresh_hold(self, asked_at: float) -> None:
        """Read the lane's shared hold, once for all threads that asked at or before ``asked_at``."""
        with self._refresh_lock:
            if self._read_at >= asked_at:
                return
            read_at = self._clock()
            try:
                self.statements += 1
                _, hold_us, _ = repo.read_lane(self._engine, self._lane)
                hold = self._db_clock.to_mono(hold_us) if hold_us else _NEVER
            except SQLAlchemyError:
                log.warning("telegram budget: could not read the shared hold", exc_info=True)
                return
            with self._lock:
                self._hold = max(self._hold, hold)
                self._read_at = read_at

    def _take_local(self, n: int, interval: float, now: float, limit: float) -> float | None:
        """Book slots on this process's own timeline (the database is down)."""
        with self._lock:
            start = max(now, self._local_tat, self._hold)
            if start - now > limit:
                return None
            self._local_tat = start + n * interval
            return start


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
        limit = repo.NO_LIMIT_US / _US if deadline is None else deadline - now
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


def span_for(parts: int) -> int:
    """Return the bot-wide slots one call of ``parts`` messages books: 2k - 1, so it can go at the middle.

    An album's k parts all arrive at once: with k - 1 empty slots on each side
    of its k, whichever way a 1 s window cuts the span it holds at least as many
    slots as the album puts parts in it, so arrivals stay within cap + 1.
    """
    return 2 * max(parts, 1) - 1


def send_slots(slots: list[float], parts: int) -> list[float]:
    """Return the send time of each span_for(parts)-slot span in consecutive ``slots``: its middle slot."""
    return slots[max(parts, 1) - 1::span_for(parts)]


def _interval(rate: float) -> float:
    """Return seconds per slot for a positive rate."""
    if not rate or rate <= 0:
        raise ValueError("rate must be > 0")
    return 1.0 / rate
