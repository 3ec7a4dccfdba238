"""The pump's Booker without a database: a fake clock, the in-process pacers and a lane with the budget's interface."""
from __future__ import annotations

import pytest

from app.services.broadcast.sending.slots import (
    BLOCK_SECONDS,
    BUSY_BLOCK_SECONDS,
    MAX_BLOCK_SENDS,
    SLOT_HORIZON,
    Booker,
    claimed_at_most,
)
from app.services.broadcast.sending.stops import Stop
from app.services.budget.lane import Booking
from app.telegram.pacing import ChatPacer, RateLimiter
from tests.telegram.fakes import FakeClock

RATE = 10.0  # the lane's slots: 100 ms apart
LATE = 0.05  # half a slot: later than the third of a slot a lane allows


class Lane:
    """SharedRateLimiter's booking interface on one in-process timeline: even slots, a 429 hold, max_lateness."""

    def __init__(self, clock: FakeClock, rate: float = RATE, max_lateness: float = 1 / 3):
        self.clock = clock
        self.interval, self.max_lateness = 1 / rate, max_lateness
        self.next = self.hold = float("-inf")
        self.booked: list[int] = []  # the n of every booking that got slots
        self.spacings: list[float] = []
        self.quiet = True
        self.cleared: list[bool] = []  # each clear_at's quiet

    def book(self, n: int, deadline: float | None = None, max_wait: float | None = None, *, busy_for=None,
             spacing: float = 0.0) -> Booking:
        interval = max(self.interval, spacing)
        now = self.clock()
        start = max(now, self.next, self.hold)
        if (max_wait is not None and start - now > max_wait) or (
                deadline is not None and start + (n - 1) * interval > deadline):
            return Booking([])
        self.next = start + n * interval
        self.booked.append(n)
        self.spacings.append(interval)
        return Booking([start + i * interval for i in range(n)], self.quiet)

    def clear_at(self, slot: float, reserved_at: float | None = None, *, late_ok: bool = False,
                 quiet: bool = False) -> bool:
        self.cleared.append(quiet)
        late = self.clock() - slot > self.max_lateness * self.interval
        return self.hold <= slot and (late_ok or not late)

    def next_slot_in(self) -> float:
        return max(0.0, self.next - self.clock(), self.hold - self.clock())

    def block_until(self, t: float) -> None:
        self.hold = max(self.hold, t)


class Setup:
    """One Booker on a fake clock whose sleeps can overrun (a loaded machine waking late)."""

    def __init__(self, parts: int = 1, *, limiter: bool = False, own_rate: float = RATE, deadline: float = 30.0,
                 window: int = 4, call_seconds: float | None = None, stop_after_keeps=None):
        self.clock = FakeClock()
        self.overruns: list[float] = []
        self.keeps = 0
        self.pauses: list[float] = []
        self.stop_after_keeps = stop_after_keeps
        self.lane = Lane(self.clock)
        self.limiter = RateLimiter(own_rate, clock=self.clock, sleep=self.sleep) if limiter else None
        self.chats = ChatPacer(clock=self.clock, sleep=self.sleep)
        self.booker = Booker(parts, limiter=self.limiter, budget=self.lane, chats=self.chats, window=window,
                             busy_for=lambda: 20.0, call_seconds=lambda: call_seconds, clock=self.clock,
                             sleep=self.sleep, deadline=self.clock() + deadline, heartbeat=10.0, keep=self.keep,
                             pause=self.pause, stopped=self.stopped)

    def sleep(self, seconds: float) -> None:
        self.clock.advance(seconds + (self.overruns.pop(0) if self.overruns else 0.0))

    def pause(self, seconds: float) -> None:
        self.pauses.append(seconds)
        self.sleep(seconds)

    def keep(self) -> None:
        self.keeps += 1

    def stopped(self):
        return Stop.PAUSED if self.stop_after_keeps is not None and self.keeps >= self.stop_after_keeps else None


def test_k_parts_book_2k_minus_1_slots_in_one_booking_and_go_at_the_middle():
    s = Setup(3)
    start = s.clock()
    block = s.booker.book(2)
    assert s.lane.booked == [10], "two albums of 3: one statement of 2 x 5 slots"
    assert [at - start for at, _ in block.sends] == pytest.approx([0.2, 0.7]), "each at its span's middle slot"
    assert all(booked_at == start for _, booked_at in block.sends)
    one = Setup(1)
    assert [at - one.clock() for at, _ in one.booker.book(4).sends] == pytest.approx([0.0, 0.1, 0.2, 0.3])
    assert one.lane.booked == [4]


def test_a_block_holds_a_second_of_sends_alone_and_a_fifth_beside_others():
    s = Setup(1)
    assert s.booker.block_sends() == int(BUSY_BLOCK_SECONDS * RATE), "the first block: the short one"
    s.booker.book(s.booker.block_sends())
    assert s.booker.quiet
    assert s.booker.block_sends() == int(BLOCK_SECONDS * RATE), "alone on the bot: a second's worth"
    s.lane.quiet = False
    s.booker.book(s.booker.block_sends())
    assert s.booker.block_sends() == int(BUSY_BLOCK_SECONDS * RATE), "another process sends: replies wait less"


def test_a_block_never_reaches_past_the_runs_end():
    s = Setup(1, deadline=0.75)
    s.booker.quiet = True  # alone: a block of a second would pass the run's end
    assert s.booker.block_sends() == 8, "0.0 .. 0.7 fit before 0.75"
    s.booker.book(5)  # 0.0 .. 0.4
    assert s.booker.block_sends() == 3, "0.5, 0.6 and 0.7 fit before 0.75"
    block = s.booker.book(10)
    assert len(block.sends) == 3, "a block asked for more gets what fits"
    assert s.booker.book(1) is Stop.BUDGET


def test_the_pumps_own_rate_and_the_windows_reach_spread_the_slots():
    own = Setup(1, limiter=True, own_rate=4.0)
    assert own.booker.spacing() == pytest.approx(0.25)
    start = own.clock()
    block = own.booker.book(3)
    assert [at - start for at, _ in block.sends] == pytest.approx([0.0, 0.25, 0.5]), "the pump's own rate"
    slow = Setup(1, window=4, call_seconds=1.0)  # four threads at a second a call: 4 sends a second, with margin
    assert slow.booker.spacing() == pytest.approx(1.2 / 4)
    slow.booker.quiet = True
    assert slow.booker.block_sends() == 3, "a second of sends 300 ms apart"


def test_a_blocks_chats_are_booked_at_their_slots_and_a_busy_chat_is_left_out():
    s = Setup(1)
    start = s.clock()
    block = s.booker.book(3)
    s.chats.acquire(8)  # a reply to 8 just now: the chat is busy for a second
    assert s.booker.book_chats(block, [7, 8, 9]) == [True, False, True]
    assert s.chats.ready_at(7) == pytest.approx(block.sends[0][0] + 1.0), "booked for the slot's own time"
    assert s.chats.ready_at(8) == pytest.approx(start + 1.0), "the reply's booking stands"
    assert s.chats.ready_at(9) == pytest.approx(block.sends[2][0] + 1.0)
    s.booker.chats = None  # the paid client: recipients are not paced
    assert s.booker.book_chats(block, [7, 8, 9]) == [True, True, True]


def test_a_send_on_time_goes_at_its_slot_and_a_late_one_is_held_back_not_rebooked():
    s = Setup(1)
    block = s.booker.book(2)
    first, second = block.sends
    assert s.booker.clear(first, block.quiet) and s.clock() == pytest.approx(first[0])
    s.overruns.append(LATE)  # the thread wakes 50 ms after its slot at 0.1
    assert not s.booker.clear(second, block.quiet), "late: it would bunch with the next send"
    assert s.lane.booked == [2], "no fresh slot: the item goes back to pending"
    assert s.lane.cleared == [True, True], "a quiet block's sends judge the hold without a read"


def test_a_hold_recorded_after_the_booking_holds_the_send_back():
    s = Setup(1)
    block = s.booker.book(2)
    s.lane.block_until(block.sends[1][0] + 5.0)  # a 429 seen after we booked covers this slot
    assert not s.booker.clear(block.sends[1], block.quiet)
    assert s.lane.booked == [2], "held back, not booked again"


def test_no_bot_wide_budget_books_the_pumps_own_rate_alone():
    s = Setup(1, limiter=True, own_rate=5.0)
    s.booker.budget = None
    start = s.clock()
    block = s.booker.book(3)
    assert [at - start for at, _ in block.sends] == pytest.approx([0.0, 0.2, 0.4])
    assert s.booker.clear(block.sends[2], False) and s.clock() == pytest.approx(start + 0.4)
    assert s.lane.booked == []


def test_the_budget_ending_first_stops_with_budget():
    s = Setup(1, deadline=1.0)
    s.lane.block_until(s.clock() + 2.0)  # the lane is held past the deadline
    assert s.booker.book(1) is Stop.BUDGET
    assert s.lane.booked == []


def test_a_held_lane_is_waited_out_in_lease_keeping_pauses_and_booked_at_most_the_horizon_ahead():
    s = Setup(1)
    start = s.clock()
    s.lane.block_until(start + 2.0)
    block = s.booker.book(1)
    [(at, booked_at)] = block.sends
    assert at == pytest.approx(start + 2.0)
    assert s.pauses == [pytest.approx(2.0 - SLOT_HORIZON)]
    assert at - booked_at <= SLOT_HORIZON


def test_a_stop_met_while_waiting_for_the_lane_is_returned():
    s = Setup(1, stop_after_keeps=0)
    s.lane.block_until(s.clock() + 5.0)
    assert s.booker.book(1) is Stop.PAUSED
    assert s.lane.booked == []


def test_the_crash_bound_is_a_block_and_the_window():
    assert claimed_at_most(29.0, 6) == 29 + 6
    assert claimed_at_most(4.0, 4) == 4 + 4
    assert claimed_at_most(0.5, 4) == 1 + 4, "a block holds one send at least"
    assert claimed_at_most(900.0, 64) == MAX_BLOCK_SENDS + 64, "a paid block is a tenth of a second"


def test_a_reply_of_this_process_keeps_the_blocks_short_though_no_other_process_books():
    s = Setup(1)
    s.booker.book(2)  # quiet: no other process
    assert s.booker.block_sends() == int(BLOCK_SECONDS * RATE)
    s.lane.replied_within = lambda seconds: True  # a webhook thread beside an admin's pump call booked a reply
    assert s.booker.block_sends() == int(BUSY_BLOCK_SECONDS * RATE), "the reply would wait behind a second"
