"""One lane's slots, shared by every process: SharedRateLimiter, RateLimiter's interface on a telegram_budget row."""
from __future__ import annotations

import logging
import secrets
import threading
import time
from collections.abc import Callable
from typing import NamedTuple

from sqlalchemy.engine import Engine
from sqlalchemy.exc import SQLAlchemyError

from app.models.telegram_budget import FREE, LANES
from app.repository.budget import lanes as repo
from app.repository.budget.engine import NO_LIMIT_US
from app.services.budget.clock import _NEVER, _US, BudgetClock
from app.services.budget.holds import HoldMixin
from app.services.budget.jitter import JitterGauge, jitter_interval
from app.services.budget.spans import send_slots, span_for

# The budget's modules log under the one name they had as one module, so its log lines read as before.
log = logging.getLogger("app.services.telegram_budget")

# How many times acquire_slot books again after waking too late before it
# uses a late slot anyway (bounded, so a loaded machine still makes progress).
MAX_LATE_REBOOKINGS = 2
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


class SharedRateLimiter(HoldMixin):
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
        self._replied_at = _NEVER  # when such a call (a reply, an edit) of this process last booked
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
        limit = NO_LIMIT_US / _US if max_wait is None else max_wait
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
                self._replied_at = now
        slots = [start + i * interval for i in range(n)]
        # The database judged the limit a round trip later than `now`: never hand out a slot past the deadline.
        return Booking([s for s in slots if deadline is None or s <= deadline], quiet)

    def replied_within(self, seconds: float) -> bool:
        """True if a call of this process booked with a reply's window in the last ``seconds`` (not a pump's)."""
        with self._lock:
            return self._clock() - self._replied_at < seconds

    def alone(self, busy_for: float) -> bool:
        """Record this process's activity on the lane without booking a slot; True if nobody else is busy on it."""
        try:
            self.statements += 1
            booked = repo.reserve(self._engine, self._lane, 0, 0, NO_LIMIT_US, me=self.me,
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

    def _take_local(self, n: int, interval: float, now: float, limit: float) -> float | None:
        """Book slots on this process's own timeline (the database is down)."""
        with self._lock:
            start = max(now, self._local_tat, self._hold)
            if start - now > limit:
                return None
            self._local_tat = start + n * interval
            return start


def _interval(rate: float) -> float:
    """Return seconds per slot for a positive rate."""
    if not rate or rate <= 0:
        raise ValueError("rate must be > 0")
    return 1.0 / rate
