"""How far apart calls sent together may arrive: JitterGauge, and the slot interval that allows for it."""
from __future__ import annotations

import threading

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
