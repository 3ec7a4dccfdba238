"""Who else is busy on the bot: each booking says whether another process's calls may still be unanswered.

A pump alone on the bot skips re-reading the shared 429 hold before each copy
(a hold can then only come from itself); these tests pin the booking's verdict
on both databases, through the real statement.
"""
from __future__ import annotations

import time

import pytest

from app.models.telegram_budget import FREE
from app.repository.budget import chats as chats_repo
from app.repository.budget import lanes as lanes_repo
from app.repository.budget.engine import NO_LIMIT_US

IV = 10_000  # 10 ms slots
NOW = NO_LIMIT_US  # no wait limit
PUMP, REPLIES, OTHER = 11, 22, 33
LONG, SHORT = 20_000_000, 300_000  # a pump's calls may stay unanswered 20 s, a reply's 0.3 s here


def book(engine, me: int, busy: int, n: int = 3, limit: int = NOW):
    """Book n slots for booker ``me`` whose calls may stay unanswered ``busy`` µs after them."""
    return lanes_repo.reserve(engine, FREE, n, IV, limit, me=me, busy_us=busy)


def test_the_first_booker_owns_the_lane_and_is_alone(budget):
    first = book(budget, PUMP, LONG, n=50)
    again = book(budget, PUMP, LONG)
    assert not first.others and not again.others
    assert again.start_us == first.start_us + 50 * IV, "the activity columns leave the timeline as it was"


def test_a_reply_beside_the_pump_makes_both_see_each_other_until_its_window_ends(budget):
    book(budget, PUMP, LONG)
    reply = book(budget, REPLIES, SHORT, n=1)
    assert reply.others, "the reply sees the pump's calls in flight"
    assert book(budget, PUMP, LONG).others, "the pump sees the reply's"
    time.sleep(0.5)  # the reply's 0.3 s window (after its slot) has passed
    assert not book(budget, PUMP, LONG).others, "alone again"


def test_a_new_pump_after_a_released_one_is_alone_once_the_release_window_ends(budget):
    book(budget, PUMP, LONG)
    lanes_repo.release_owner(budget, FREE, PUMP, lanes_repo.now_us(budget) + SHORT)
    nxt = book(budget, OTHER, LONG)
    assert nxt.others, "the released pump's replies may still be answered"
    time.sleep(0.4)
    took_over = book(budget, OTHER, LONG)
    # Its own bookings from before it owned the lane do not count against it.
    assert not took_over.others


def test_a_pump_booking_beside_two_replies_takes_the_lane_and_is_alone_once_their_windows_end(budget):
    # Two web workers answered just before the pump started (an owner and another beside it): the pump's
    # window reaches furthest, so it takes the lane, and its own window never counts against it.
    book(budget, REPLIES, SHORT, n=1)
    book(budget, OTHER, SHORT, n=1)
    assert book(budget, PUMP, LONG).others, "their calls may still be unanswered"
    time.sleep(0.5)  # both replies' windows are over; the pump's own 20 s one is not
    assert not book(budget, PUMP, LONG).others, "alone: no one else's window is open"
    assert book(budget, REPLIES, SHORT, n=1).others, "a reply beside it still sees the pump"


def test_a_displaced_owner_sees_the_new_one_and_is_seen_until_its_window_ends(budget):
    book(budget, REPLIES, 2 * SHORT, n=1)
    assert book(budget, PUMP, LONG).others, "the reply's window moved beside the pump's"
    assert book(budget, REPLIES, 2 * SHORT, n=1).others, "the reply sees the pump that took the lane"
    time.sleep(0.8)
    assert not book(budget, PUMP, LONG).others


def test_two_bookers_besides_the_owner_keep_it_busy_until_both_windows_end(budget):
    book(budget, PUMP, LONG)
    book(budget, REPLIES, SHORT, n=1)
    book(budget, OTHER, 2 * SHORT, n=1)
    time.sleep(0.4)  # the first reply's window is over, not the second's
    assert book(budget, PUMP, LONG).others
    time.sleep(0.5)
    assert not book(budget, PUMP, LONG).others


def test_a_refused_booking_changes_nothing(budget):
    book(budget, PUMP, LONG, n=100)  # the lane is booked a second ahead
    assert book(budget, REPLIES, LONG, n=1, limit=1000) is None
    assert not book(budget, PUMP, LONG).others, "the refused booker left no window open"


def test_a_blocks_chats_are_booked_at_their_slots_unless_a_reply_holds_one(budget):
    now = lanes_repo.now_us(budget)
    chats_repo.reserve_chat(budget, 502, 1_000_000, NOW)  # a reply to 502 just now: its chat is busy a second
    slots = [(501, now + 10_000), (502, now + 20_000), (503, now + 30_000)]
    assert chats_repo.reserve_chats(budget, slots, 1_000_000) == {501, 503}
    assert chats_repo.chat_next_us(budget, 501) == now + 1_010_000
    assert chats_repo.chat_next_us(budget, 502) < now + 1_020_000, "the reply's booking stands"
    later = [(501, now + 2_000_000), (502, now + 2_000_000)]
    assert chats_repo.reserve_chats(budget, later, 1_000_000) == {501, 502}, "free again by then"


@pytest.mark.parametrize("n", [0])
def test_a_touch_books_nothing_and_says_who_else_is_busy(budget, n):
    first = book(budget, PUMP, LONG, n=50)
    touch = book(budget, OTHER, LONG, n=n)
    assert touch.others
    assert book(budget, PUMP, LONG).start_us == first.start_us + 50 * IV, "no slot was taken"


def test_a_pumps_booker_beside_two_answered_replies_books_second_long_quiet_blocks_once_they_end(budget):
    # The pump's own Booker on the real lane, as `broadcast pump` builds it, right after two web workers
    # replied: its first blocks are a fifth of a second and read the hold; once the replies' windows end,
    # a block is a second of sends at 29/s and quiet (no hold read before each copy).
    from app.services.broadcast.sending.slots import BLOCK_SECONDS, Booker
    from app.services.budget.clock import BudgetClock
    from app.services.budget.lane import SharedRateLimiter

    clock = BudgetClock(budget)
    for _ in range(2):  # two processes, each its own booker id; a reply's window of 1 s
        SharedRateLimiter(budget, 29, FREE, db_clock=clock, busy_for=1.0).book(1)
    lane = SharedRateLimiter(budget, 29, FREE, db_clock=clock)
    booker = Booker(1, limiter=None, budget=lane, chats=None, window=6, busy_for=lambda: LONG / 1e6,
                    call_seconds=lambda: None, clock=time.monotonic, sleep=time.sleep,
                    deadline=time.monotonic() + 60, heartbeat=1.0, keep=lambda: None, pause=time.sleep,
                    stopped=lambda: None)
    first = booker.book(booker.block_sends())
    assert not first.quiet and len(first.sends) < 29 * BLOCK_SECONDS, "beside the replies: a short, busy block"
    time.sleep(1.2 + booker.booked_ahead())  # the replies' windows have ended
    later = booker.book(booker.block_sends())
    assert later.quiet, "alone: the replies are answered and the pump's own window does not count"
    assert len(booker.book(booker.block_sends()).sends) == int(29 * BLOCK_SECONDS), "a second's block"
