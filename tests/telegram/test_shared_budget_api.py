"""SharedRateLimiter and SharedChatPacer in one process: refusals, rates, lanes, holds, chats."""
from __future__ import annotations

import time

import pytest

from app.repository.budget import chats as chats_repo
from app.repository.budget import lanes as lanes_repo
from app.repository.budget.engine import NO_LIMIT_US
from app.services.budget.chats import READY_HINT_SECONDS, SharedChatPacer
from app.services.budget.clock import BudgetClock
from app.services.budget.lane import MAX_LATE_REBOOKINGS, SharedRateLimiter


def lane_next(engine, lane="free") -> int:
    """Return the lane's next_us."""
    return lanes_repo.read_lane(engine, lane)[0]


def test_the_database_clock_maps_to_monotonic_time(budget):
    clock = BudgetClock(budget)
    clock.to_us(time.monotonic())  # the first mapping reads the database's clock: done before the timed part
    # The database read happened somewhere inside [before, after]; a loaded
    # machine may stretch that window, so the mapping is checked against it
    # (plus the anchor's own half round trip) rather than against one instant.
    before = time.monotonic()
    mapped = clock.to_mono(lanes_repo.now_us(budget))
    after = time.monotonic()
    assert before - 0.01 <= mapped <= after + 0.01, (before, mapped, after)
    assert clock.to_mono(clock.to_us(123.0)) == pytest.approx(123.0, abs=1e-6)


def test_max_wait_and_deadline_refusals_reserve_nothing(budget):
    limiter = SharedRateLimiter(budget, 10)
    assert limiter.acquire_many(1)
    booked = lane_next(budget)
    assert limiter.acquire_many(1, max_wait=0.02) == []
    assert not limiter.acquire(deadline=time.monotonic() + 0.02)
    assert limiter.acquire_many(3, deadline=time.monotonic() + 0.25) == [], "the last of 3 slots is too late"
    assert lane_next(budget) == booked, "a refusal moved the timeline"
    start = time.monotonic()
    assert limiter.acquire(max_wait=0.5)
    assert 0.05 < time.monotonic() - start < 0.2


def test_a_hold_refuses_low_priority_callers_in_the_database_too(budget):
    SharedRateLimiter(budget, 10).block_until(time.monotonic() + 1.5)
    other = SharedRateLimiter(budget, 10)  # knows nothing locally: only the row holds it
    booked = lane_next(budget)
    started = time.monotonic()
    assert other.acquire_many(1, max_wait=0.5) == []
    assert not other.acquire(max_wait=1.0)
    assert time.monotonic() - started < 0.2, "a refusal returns at once"
    assert lane_next(budget) == booked
    assert other.next_slot_in() == pytest.approx(1.5, abs=0.2)


def test_acquire_many_books_consecutive_slots_in_one_statement(budget):
    limiter = SharedRateLimiter(budget, 20)
    before = limiter.statements
    slots = limiter.acquire_many(4)
    assert limiter.statements == before + 1
    assert [round(b - a, 6) for a, b in zip(slots, slots[1:], strict=False)] == [0.05] * 3
    assert limiter.next_slot_in() == pytest.approx(0.2, abs=0.03)


def test_an_idle_lane_gives_no_catch_up_credit(budget):
    limiter = SharedRateLimiter(budget, 20)
    limiter.acquire_many(1)
    time.sleep(0.3)
    now = time.monotonic()
    slots = limiter.acquire_many(3)
    assert slots[0] >= now - 0.005, "slots from the idle past would be a burst"
    assert slots[2] - slots[0] == pytest.approx(0.1, abs=1e-6)


def test_rate_changes_apply_to_the_next_reservation(budget):
    limiter = SharedRateLimiter(budget, 5)
    first = limiter.acquire_many(2)
    limiter.set_rate(50)
    assert limiter.rate == pytest.approx(50)
    second = limiter.acquire_many(2)
    assert second[0] == pytest.approx(first[1] + 0.2, abs=1e-6), "booked slots keep their spacing"
    assert second[1] - second[0] == pytest.approx(0.02, abs=1e-6)
    with pytest.raises(ValueError):
        limiter.set_rate(0)


def test_paid_lane_is_separate_but_a_429_holds_both(budget):
    paid = SharedRateLimiter(budget, 1000, "paid")
    free = SharedRateLimiter(budget, 20, "free")
    assert len(paid.acquire_many(800)) == 800  # paid booked 0.8 s ahead
    assert free.acquire_many(1, max_wait=0.01), "paid traffic never eats free slots"
    paid_next = lane_next(budget, "paid")
    assert len(free.acquire_many(20)) == 20  # free booked 1 s ahead
    assert lane_next(budget, "paid") == paid_next
    free.block_until(time.monotonic() + 3.0)
    assert SharedRateLimiter(budget, 1000, "paid").acquire_many(1, max_wait=1.5) == [], "a 429 is bot-wide"


def test_a_hold_set_here_covers_slots_already_booked(budget):
    limiter = SharedRateLimiter(budget, 10)
    slot = limiter.acquire_many(1)[0]
    limiter.block_until(time.monotonic() + 0.4)
    assert not limiter.clear_at(slot)
    started = time.monotonic()
    assert limiter.acquire()
    assert time.monotonic() - started >= 0.39


def test_shared_chat_pacer_keeps_chatpacers_interface(budget):
    pacer = SharedChatPacer(budget)
    assert (pacer.interval_for(5), pacer.interval_for(-5), pacer.interval_for("@name")) == (1.0, 3.0, 3.0)
    assert pacer.ready_at(77) == float("-inf")
    start = time.monotonic()
    assert pacer.acquire(77)
    assert pacer.ready_at(77) == pytest.approx(start + 1.0, abs=0.02)
    assert not pacer.acquire(77, deadline=time.monotonic() + 0.2)
    assert pacer.ready_at(77) == pytest.approx(start + 1.0, abs=0.02), "a refusal reserves nothing"
    assert pacer.acquire(-88, deadline=time.monotonic() + 0.05), "chats are independent"
    pacer.block_until(77, start + 5)
    assert SharedChatPacer(budget).ready_at(77) == pytest.approx(start + 5, abs=0.02)
    assert pacer.acquire("@name") and not pacer.acquire("@name", deadline=time.monotonic() + 0.1)


@pytest.mark.parametrize("chat", [78, "@channel"])
def test_a_chat_booked_for_a_later_slot_sleeps_until_it_and_counts_from_it(budget, chat):
    # A broadcast books the recipient's chat for its bot-wide slot before
    # sleeping to it: the chat's next message is one interval after that slot.
    pacer = SharedChatPacer(budget)
    interval = pacer.interval_for(chat)
    slot = time.monotonic() + 0.3
    assert pacer.acquire(chat, not_before=slot)
    assert time.monotonic() == pytest.approx(slot, abs=0.05)
    assert pacer.ready_at(chat) == pytest.approx(slot + interval, abs=0.02)
    started = time.monotonic()
    assert pacer.acquire(chat, not_before=started)  # a busy chat: its own next slot wins
    assert time.monotonic() - started == pytest.approx(slot + interval - started, abs=0.05)


def test_prune_forgets_only_chats_that_are_free_again(budget):
    pacer = SharedChatPacer(budget, keep=5.0)
    pacer.acquire(91)
    chats_repo.hold_chat(budget, 92, lanes_repo.now_us(budget) - 10_000_000)
    assert pacer.prune() == 1
    assert chats_repo.chat_next_us(budget, 92) is None
    assert chats_repo.chat_next_us(budget, 91) is not None


def test_a_booking_reports_a_running_hold(budget):
    assert lanes_repo.reserve(budget, "free", 1, 1000, NO_LIMIT_US).held is False
    lanes_repo.hold(budget, ("free", "paid"), 0.5)
    booked = lanes_repo.reserve(budget, "free", 2, 1000, NO_LIMIT_US)
    assert booked.held is True
    assert booked.start_us >= lanes_repo.read_lane(budget, "free")[1], "no slot inside the hold"


def test_a_shorter_hold_after_a_longer_one_leaves_the_longer_standing(budget):
    lanes = ("free", "paid")
    lanes_repo.hold(budget, lanes, 3.0)
    held = {lane: lanes_repo.read_lane(budget, lane)[1] for lane in lanes}
    lanes_repo.hold(budget, lanes, 0.5)  # a later 429 with a shorter retry_after
    assert {lane: lanes_repo.read_lane(budget, lane)[1] for lane in lanes} == held, "the 3 s hold was cut short"
    lanes_repo.hold(budget, ("free",), 10.0)  # a longer one does extend it
    assert lanes_repo.read_lane(budget, "free")[1] > held["free"]
    assert lanes_repo.read_lane(budget, "paid")[1] == held["paid"]


def test_an_unreachable_database_leaves_the_process_pacing_alone(database_url):
    from sqlalchemy import create_engine

    # The clock stands still: how long a refused connection takes (and its logged traceback) cannot
    # move the second booking past the first one's end, where it would rightly start afresh.
    limiter = SharedRateLimiter(create_engine("mysql+pymysql://nobody@127.0.0.1:1/none"), 20, clock=lambda: 100.0)
    slots = limiter.acquire_many(3) + limiter.acquire_many(1)
    assert [round(b - a, 6) for a, b in zip(slots, slots[1:], strict=False)] == [0.05] * 3
    assert limiter.acquire_many(1, max_wait=0.01) == []


def test_a_slot_used_too_late_is_refused_so_stalled_threads_cannot_bunch_up(budget):
    limiter = SharedRateLimiter(budget, rate=10, max_lateness=0.5)  # interval 0.1 s: late after 0.05 s
    [slot] = limiter.acquire_many(1)
    time.sleep(max(0.0, slot - time.monotonic()) + 0.08)
    assert limiter.is_late(slot)
    assert not limiter.clear_at(slot, slot), "a stalled thread must not use its old slot"
    assert limiter.clear_at(slot, slot, late_ok=True)
    relaxed = SharedRateLimiter(budget, rate=10)  # the paid lane's way: no lateness check
    assert not relaxed.is_late(slot) and relaxed.clear_at(slot, time.monotonic())


def test_a_thread_that_always_wakes_late_still_gets_its_call_out(budget):
    oversleeps = []

    def late_sleep(seconds):
        oversleeps.append(seconds)
        time.sleep(seconds + 0.08)

    limiter = SharedRateLimiter(budget, rate=10, max_lateness=0.5, sleep=late_sleep)
    limiter.acquire_many(1)  # the next slot is 0.1 s away, so every booking sleeps
    started = time.monotonic()
    assert limiter.acquire_slot(deadline=started + 5) is not None
    assert 1 + MAX_LATE_REBOOKINGS >= len(oversleeps) >= 2, "late slots were booked again, then used"


@pytest.mark.parametrize("chat", [79, "@group"])
def test_acquire_slot_returns_the_booked_slot_not_when_the_wait_ended(budget, chat):
    # A reply measures its lateness from here: a thread that wakes late must not look on time.
    late = []
    pacer = SharedChatPacer(budget, sleep=lambda s: (late.append(s), time.sleep(s + 0.2)))
    slot = time.monotonic() + 0.3
    booked = pacer.acquire_slot(chat, not_before=slot)
    assert booked == pytest.approx(slot, abs=0.02) and late
    assert time.monotonic() - booked >= 0.2
    assert pacer.acquire_slot(chat, deadline=time.monotonic() + 0.1) is None, "refused: nothing booked"


def test_a_chats_hint_reads_the_database_at_most_every_half_second_and_afresh_after_our_own_booking(
        budget, monkeypatch):
    reads = []
    real = chats_repo.chat_next_us
    monkeypatch.setattr(chats_repo, "chat_next_us", lambda engine, chat: reads.append(chat) or real(engine, chat))
    pacer = SharedChatPacer(budget)
    assert pacer.ready_hint(91) == float("-inf")
    for _ in range(50):  # an outbox's worker polling a waiting op's chat
        pacer.ready_hint(91)
    assert reads == [91], "a hint younger than READY_HINT_SECONDS read the database again"
    start = time.monotonic()
    assert pacer.acquire(91)  # this process's own booking: the next hint is read afresh
    assert pacer.ready_hint(91) == pytest.approx(start + 1.0, abs=0.05) and len(reads) == 2
    # Another process books the chat's next slot: this hint shows it within READY_HINT_SECONDS.
    assert chats_repo.reserve_chat(budget, 91, 1_000_000, NO_LIMIT_US) is not None
    assert pacer.ready_hint(91) == pytest.approx(start + 1.0, abs=0.05)
    time.sleep(READY_HINT_SECONDS + 0.02)
    assert pacer.ready_hint(91) == pytest.approx(start + 2.0, abs=0.05)
    assert READY_HINT_SECONDS <= 0.5, "an admin's late reply may wake this much after its chat is free"
    assert pacer.ready_at(91) == pytest.approx(start + 2.0, abs=0.05), "ready_at itself always reads afresh"
