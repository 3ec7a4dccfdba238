"""The free lane's arrival-jitter margin: slots spread by the calls' measured spread, arrivals within cap + 1."""
from __future__ import annotations

import bisect
import random

import pytest

from app.services.budget.jitter import JITTER_MIN_SAMPLES, JITTER_SAMPLES, JitterGauge, jitter_interval
from app.services.budget.lane import SharedRateLimiter
from app.telegram.client import TelegramClient
from tests.telegram.fakes import FakeClock

CAP = 29
LATENESS = 0.3  # the factory's FREE_MAX_LATENESS: a slot may leave this share of an interval late


def busiest_second(times: list[float]) -> int:
    """Return the most events in any 1 s window [t, t + 1)."""
    times = sorted(times)
    return max((bisect.bisect_left(times, t + 1.0) - i for i, t in enumerate(times)), default=0)


def measured_gauge(low: float, high: float) -> JitterGauge:
    """Return a gauge that saw a full window of durations evenly covering [low, high]."""
    gauge = JitterGauge()
    for i in range(JITTER_SAMPLES):
        gauge.note(low + (high - low) * i / (JITTER_SAMPLES - 1))
    return gauge


def test_a_spread_within_the_spare_slot_costs_nothing():
    assert jitter_interval(CAP, 0.0) == pytest.approx(1 / CAP)
    assert jitter_interval(CAP, 1 / CAP) == pytest.approx(1 / CAP)
    assert jitter_interval(CAP, 0.075) == pytest.approx(1.075 / (CAP + 1))
    gauge = JitterGauge()
    for _ in range(JITTER_MIN_SAMPLES - 1):
        gauge.note(0.1)
    gauge.note(0.3)
    assert gauge.spread() > 0, "enough calls: the spread shows"
    early = JitterGauge()
    early.note(0.1)
    early.note(0.5)
    assert early.spread() == 0.0, "two calls are no measure yet"


def test_the_gauge_estimates_the_whole_spread_and_shrugs_off_one_stalled_call():
    assert measured_gauge(0.1125, 0.1875).spread() == pytest.approx(0.075, rel=0.03)
    gauge = measured_gauge(0.1, 0.1)
    gauge.note(2.0)  # one call stalled by a retransmit: the lane must not slow to a crawl for it
    assert gauge.spread() < 0.001
    for _ in range(JITTER_SAMPLES):  # a lasting change replaces the old calls
        gauge.note(0.05)
    assert gauge.spread() == 0.0


@pytest.mark.parametrize("latency", [0.02, 0.08, 0.15, 0.30])
def test_booked_slots_keep_arrivals_within_cap_plus_one_however_the_jitter_falls(budget, latency):
    """Calls leave up to the allowed lateness after their slot and take 75-125 % of the latency to arrive."""
    low, high = 0.75 * latency, 1.25 * latency
    limiter = SharedRateLimiter(budget, CAP, max_lateness=LATENESS, jitter=measured_gauge(low, high))
    slots = limiter.acquire_many(150)
    assert len(slots) == 150
    gaps = [b - a for a, b in zip(slots, slots[1:], strict=False)]
    assert min(gaps) >= 1 / CAP - 1e-6, "the margin only ever widens the cap's spacing"
    # Worst case: the first of cap + 2 consecutive calls leaves as late and
    # travels as long as allowed, the last leaves on time and travels fastest.
    worst = (high - low) + LATENESS / CAP
    runs = [slots[i + CAP + 1] - slots[i] - worst for i in range(len(slots) - CAP - 1)]
    assert min(runs) >= 1.0 - 1e-6, f"cap + 2 calls could arrive within {min(runs):.4f} s"
    rng = random.Random(7)
    for _ in range(50):
        arrivals = [s + rng.uniform(0, LATENESS / CAP) + rng.uniform(low, high) for s in slots]
        assert busiest_second(arrivals) <= CAP + 1
    # Within the margin the rate is what the spread allows, no less.
    assert (len(slots) - 1) / (slots[-1] - slots[0]) == pytest.approx(
        1 / jitter_interval(CAP, limiter.jitter.spread() + LATENESS / CAP), rel=1e-4)


class _Lane:
    """A lane that grants every slot and records the durations it is told about."""

    def __init__(self):
        self.noted: list[float] = []

    def acquire(self, deadline=None, max_wait=None):
        return True

    def next_slot_in(self):
        return 0.0

    def note_call(self, seconds):
        self.noted.append(seconds)


class _Transport:
    """Answer every post after ``seconds`` of the fake clock."""

    def __init__(self, clock: FakeClock, seconds: float):
        self.clock, self.seconds = clock, seconds

    def post(self, method, payload, timeout_cap=None, read_timeout=None):
        self.clock.advance(self.seconds)
        return {"message_id": 1} if method.startswith("send") else True


def test_the_client_teaches_each_lane_its_counted_calls_durations():
    clock = FakeClock()
    client = TelegramClient("1:token", "http://127.0.0.1:9", clock=clock, sleep=clock.sleep)
    client._transport = _Transport(clock, 0.123)
    free, paid = _Lane(), _Lane()
    client.budget, client.broadcast_budget = free, paid
    client.call("sendMessage", {"chat_id": 5, "text": "hi"})
    client.call("sendMessage", {"chat_id": 6, "text": "hi"}, broadcast=True)
    client.call("getMe")  # not counted by Telegram: no slot, no sample
    assert free.noted == [pytest.approx(0.123)]
    assert paid.noted == [pytest.approx(0.123)]


def test_both_lanes_learn_the_jitter_each_against_its_own_limit(app):
    from app.services import telegram_factory
    from tests.broadcast.helpers import engine_settings

    settings = engine_settings(broadcast_paid_rate_per_second=1000.0)
    free, paid = telegram_factory.get_client(settings), telegram_factory.get_client(settings, paid=True)
    assert free.budget is paid.budget, "one free lane per process"
    assert isinstance(free.budget.jitter, JitterGauge) and isinstance(paid.broadcast_budget.jitter, JitterGauge)
    for _ in range(JITTER_SAMPLES):
        free.budget.note_call(0.05)
        paid.broadcast_budget.note_call(0.05)
    assert free.budget.interval == pytest.approx(1 / CAP)
    assert paid.broadcast_budget.interval == pytest.approx(1 / 1000)
    for i in range(JITTER_SAMPLES):
        free.budget.note_call(0.05 + 0.01 * i / (JITTER_SAMPLES - 1))
        paid.broadcast_budget.note_call(0.05 + 0.01 * i / (JITTER_SAMPLES - 1))
    # A 10 ms spread: within the free lane's spare slot; over the paid lane's none at a configured 1000/s.
    assert free.budget.interval == pytest.approx(1 / CAP)
    assert paid.broadcast_budget.interval == pytest.approx(1.01 / 1000, rel=0.01)


def test_a_paid_lane_at_telegrams_limit_keeps_its_arrivals_under_it(budget):
    low, high = 0.045, 0.055  # 50 ms ± 10 %
    limiter = SharedRateLimiter(budget, 1000, "paid", jitter=measured_gauge(low, high), limit=1000)
    slots = limiter.acquire_many(3000)
    runs = [slots[i + 1000] - slots[i] - (high - low) for i in range(len(slots) - 1000)]
    assert min(runs) >= 1.0 - 1e-6, "1001 paid calls could arrive within one second"
