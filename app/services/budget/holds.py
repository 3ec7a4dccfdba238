"""A lane's 429 hold as one process knows it: the part of SharedRateLimiter that reads, records and waits out holds."""
from __future__ import annotations

import logging

from sqlalchemy.exc import SQLAlchemyError

from app.repository.budget import lanes as repo
from app.services.budget.clock import _NEVER

# The budget's modules log under the one name they had as one module, so its log lines read as before.
log = logging.getLogger("app.services.telegram_budget")


class HoldMixin:
    """SharedRateLimiter's knowledge of its lane's 429 hold: a slot confirmed against it, a hold recorded, waited out.

    The limiter's own methods, kept apart so that each module stays short; it
    is their only host. They share the limiter's state under its ``_lock``:
    ``_hold`` (the latest hold known here, monotonic) and ``_read_at`` (when
    the shared hold was last read), with ``_refresh_lock`` for the reads; and
    they use its engine, lane, hold lanes, recheck, database clock, clock,
    sleep, ``is_late()`` and ``statements`` count.
    """

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
