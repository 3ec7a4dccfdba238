"""The pump's Booker without a database: a fake clock, the in-process pacers and a lane with the budget's interface."""
from __future__ import annotations

import pytest

from app.services.broadcast.slots import SLOT_HORIZON, Booker, Ready
from app.services.broadcast.stops import Stop
from app.telegram.client import TelegramClient
from app.telegram.pacing import ChatPacer, RateLimiter
from tests.telegram.fakes import FakeClock

RATE = 10.0  # the lane's slots: 100 ms apart
LATE = 0.05  # half a slot: later than the third of a slot a lane allows


class Lane:
    """SharedRateLimiter's interface on one in-process timeline: even slots, a 429 hold, max_lateness."""

    def __init__(self, clock: FakeClock, sleep, rate: float = RATE, max_lateness: float = 1 / 3):
        self.clock, self.sleep = clock, sleep
        self.interval, self.max_lateness = 1 / rate, max_lateness
        self.next = self.hold = float("-inf")
        self.booked: list[int] = []  # the n of every booking that got slots
        self.events: list[str] = []

    def acquire_many(self, n: int, deadline: float | None = None, max_wait: float | None = None) -> list[float]:
        now = self.clock()
        start = max(now, self.next, self.hold)
        if (max_wait is not None and start - now > max_wait) or (
                deadline is not None and start + (n - 1) * self.interval > deadline):
            return []
        self.next = start + n * self.interval
        self.booked.append(n)
        return [start + i * self.interval for i in range(n)]

    def acquire_slot(self, deadline: float | None = None, max_wait: float | None = None) -> float | None:
        slots = self.acquire_many(1, deadline, max_wait)
        if not slots:
            return None
        if (delay := slots[0] - self.clock()) > 0:
            self.sleep(delay)
        return slots[0]

    def is_late(self, slot: float) -> bool:
        self.events.append("is_late")
        return self.clock() - slot > self.max_lateness * self.interval

    def clear_at(self, slot: float, reserved_at: float | None = None, *, late_ok: bool = False) -> bool:
        self.events.append("clear_at")
        return self.hold <= slot and (late_ok or not self.is_late(slot))

    def next_slot_in(self) -> float:
        return max(0.0, self.next - self.clock(), self.hold - self.clock())

    def block_until(self, t: float) -> None:
        self.hold = max(self.hold, t)


class Setup:
    """One Booker on a fake clock whose sleeps can overrun (a loaded machine waking late)."""

    def __init__(self, parts: int = 1, *, limiter: bool = False, deadline: float = 30.0, stop_after_keeps=None):
        self.clock = FakeClock()
        self.overruns: list[float] = []
        self.events: list[str] = []
        self.keeps = 0
        self.pauses: list[float] = []
        self.stop_after_keeps = stop_after_keeps
        self.lane = Lane(self.clock, self.sleep)
        self.limiter = RateLimiter(RATE, clock=self.clock, sleep=self.sleep) if limiter else None
        self.pacer = ChatPacer(clock=self.clock, sleep=self.sleep)
        self.client = TelegramClient("123:TEST", "http://127.0.0.1:9", chat_pacer=self.pacer,
                                     clock=self.clock, sleep=self.sleep)
        self.lane.events = self.events
        self.booker = Booker(parts, limiter=self.limiter, budget=self.lane, pace_chat=self.pace_chat,
                             rebook_chat=self.client.rebook_chat, clock=self.clock, sleep=self.sleep,
                             deadline=self.clock() + deadline, heartbeat=10.0, keep=self.keep,
                             pause=self.pause, stopped=self.stopped)

    def sleep(self, seconds: float) -> None:
        self.events.append("sleep")
        self.clock.advance(seconds + (self.overruns.pop(0) if self.overruns else 0.0))

    def pace_chat(self, chat, deadline, not_before=None) -> None:
        self.events.append("pace_chat")
        self.client.pace_chat(chat, deadline, not_before=not_before)

    def pause(self, seconds: float) -> None:
        self.pauses.append(seconds)
        self.sleep(seconds)

    def keep(self) -> None:
        self.keeps += 1

    def stopped(self):
        return Stop.PAUSED if self.stop_after_keeps is not None and self.keeps >= self.stop_after_keeps else None


@pytest.fixture
def setup():
    made = []

    def make(*args, **kwargs) -> Setup:
        made.append(Setup(*args, **kwargs))
        return made[-1]

    yield make
    for s in made:
        s.client.close()


def test_k_parts_book_2k_minus_1_slots_and_go_at_the_middle(setup):
    s = setup(3)
    start = s.clock()
    slots = s.booker.take(2)
    assert s.lane.booked == [10], "two albums of 3: one statement of 2 x 5 slots"
    assert [at - start for at, _ in slots] == pytest.approx([0.2, 0.7]), "each at its span's middle slot"
    assert all(booked_at == start for _, booked_at in slots)
    one = setup(1)
    assert [at - one.clock() for at, _ in one.booker.take(4)] == pytest.approx([0.0, 0.1, 0.2, 0.3])
    assert one.lane.booked == [4]


def test_a_send_on_time_goes_at_its_slot_with_its_chat_booked_before_the_sleep(setup):
    s = setup(1)
    [_, (at, booked_at)] = s.booker.take(2)
    s.events.clear()
    ready = s.booker.wait_for((at, booked_at), 7)
    assert ready == Ready(chat_taken=True)
    assert s.clock() == pytest.approx(at)
    # The chat's statement stands before the sleep; after it only the hold and lateness checks.
    assert s.events == ["pace_chat", "sleep", "clear_at", "is_late"]
    assert s.pacer.ready_at(7) == pytest.approx(at + 1.0), "the chat booked for the slot's own time"
    s.booker.after_answer(7, ready)
    assert s.pacer.ready_at(7) == pytest.approx(at + 1.0), "an on-time send leaves its chat's booking alone"


def test_a_late_wake_takes_a_fresh_slot_and_moves_its_chat_after_the_answer(setup):
    s = setup(1)
    start = s.clock()
    [_, slot] = s.booker.take(2)
    s.lane.next += 0.3  # others booked the next slots meanwhile
    s.overruns.append(LATE)  # the thread wakes 50 ms after its slot at 0.1
    ready = s.booker.wait_for(slot, 7)
    assert ready == Ready(chat_taken=True, rebook=True)
    assert s.lane.booked == [2, 1], "a fresh slot of its own"
    assert s.clock() == pytest.approx(start + 0.5), "it sleeps to the fresh slot, never goes beside the next"
    s.clock.advance(0.15)  # the answer comes
    s.booker.after_answer(7, ready)
    assert s.pacer.ready_at(7) == pytest.approx(s.clock() + 1.0), "the chat's next message waits a whole interval"


def test_a_late_album_takes_a_fresh_span_and_goes_at_its_middle(setup):
    s = setup(2)
    start = s.clock()
    [slot] = s.booker.take(1)  # the span 0.0-0.2, sent at 0.1
    s.overruns.append(LATE)
    ready = s.booker.wait_for(slot, 7)
    assert ready == Ready(chat_taken=True, rebook=True)
    assert s.lane.booked == [3, 3], "a fresh span of 2k - 1, not a single slot"
    assert s.clock() == pytest.approx(start + 0.4), "at the middle of the fresh span 0.3-0.5"


def test_a_late_wake_with_no_slot_in_time_is_held_back(setup):
    s = setup(2, deadline=0.35)
    [slot] = s.booker.take(1)
    s.overruns.append(LATE)
    assert s.booker.wait_for(slot, 7) is None
    assert s.lane.booked == [3]


def test_a_hold_recorded_after_the_booking_holds_the_send_back(setup):
    s = setup(1)
    [_, slot] = s.booker.take(2)
    s.lane.block_until(slot[0] + 5.0)  # a 429 seen after we booked covers this slot
    assert s.booker.wait_for(slot, 7) is None
    assert s.lane.booked == [2], "held back, not booked again"


def test_no_bot_wide_budget_sends_paced_alone(setup):
    s = setup(1)
    s.booker.budget = None
    assert s.booker.take(3) == [None, None, None]
    assert s.booker.wait_for(None, 7) == Ready()
    assert s.events == []


def test_the_budget_ending_first_stops_with_budget(setup):
    s = setup(1, deadline=1.0)
    s.lane.block_until(s.clock() + 2.0)  # the lane is held past the deadline
    assert s.booker.take(1) is Stop.BUDGET
    own = setup(1, limiter=True, deadline=1.0)
    own.limiter.block_until(own.clock() + 2.0)  # the pump's own rate has no slot before the deadline
    assert own.booker.take(1) is Stop.BUDGET
    assert own.lane.booked == []


def test_a_held_lane_is_waited_out_in_lease_keeping_pauses_and_booked_at_most_the_horizon_ahead(setup):
    s = setup(1)
    start = s.clock()
    s.lane.block_until(start + 2.0)
    [(at, booked_at)] = s.booker.take(1)
    assert at == pytest.approx(start + 2.0)
    assert s.pauses == [pytest.approx(2.0 - SLOT_HORIZON)]
    assert at - booked_at <= SLOT_HORIZON


def test_a_stop_met_while_waiting_for_the_own_rate_is_returned(setup):
    s = setup(1, limiter=True, stop_after_keeps=1)
    s.limiter.block_until(s.clock() + 25.0)  # a long 429 hold: longer than the heartbeat
    assert s.booker.take(1) is Stop.PAUSED
    assert s.keeps == 1, "the lease was kept once the heartbeat's wait ran out"
    assert s.lane.booked == []


def test_an_album_takes_a_slot_of_its_own_rate_per_part(setup):
    s = setup(3, limiter=True)
    start = s.clock()
    [slot] = s.booker.take(1)
    assert s.clock() - start == pytest.approx(0.2), "three own-rate slots, 100 ms apart"
    assert s.lane.booked == [5]
    assert s.booker.slot_wait() == pytest.approx(0.1)


def test_a_hold_longer_than_a_heartbeat_is_slept_under_the_lease_not_spun(setup):
    # A 429 held the pump's own rate 35 s: acquire() gives up at once while the slot is more
    # than a heartbeat (10 s) away, so the Booker must sleep under the lease meanwhile.
    s = setup(limiter=True, deadline=60.0)
    start = s.clock()
    s.limiter.block_until(start + 35.0)
    budget_keeps = []

    def keep() -> None:
        s.keeps += 1
        budget_keeps.append(s.clock())
        assert s.keeps < 50, "spinning: the lease renewed again and again without time passing"

    s.booker.keep = keep
    slots = s.booker.take(1)
    assert isinstance(slots, list) and len(slots) == 1
    assert s.clock() - start == pytest.approx(35.0, abs=0.2), "the send waits out the hold, no more"
    assert sum(s.pauses) >= 20.0, "the wait is slept (pause keeps the lease), not polled"
    assert len(budget_keeps) <= 3
