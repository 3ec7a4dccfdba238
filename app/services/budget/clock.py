"""The database's µs clock as this process's monotonic time: the BudgetClock every budget pacer shares."""
from __future__ import annotations

import threading
import time
from collections.abc import Callable

from sqlalchemy.engine import Engine

from app.repository.budget import lanes as repo

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
