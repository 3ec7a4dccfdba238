"""RateLimiter and ChatPacer on a fake clock: spacing, deadlines, blocks, threads."""

import threading

import pytest

from app.telegram.pacing import ChatPacer, RateLimiter
from tests.telegram.fakes import FakeClock


def test_slots_are_evenly_spaced_from_the_previous_slot():
    clock = FakeClock()
    limiter = RateLimiter(rate=4, clock=clock, sleep=clock.sleep)
    start = clock()
    times = []
    for _ in range(5):
        assert limiter.acquire()
        times.append(clock() - start)
    assert times == pytest.approx([0.0, 0.25, 0.5, 0.75, 1.0])


def test_oversleeping_does_not_lower_the_rate():
    clock = FakeClock()
    # Every sleep overshoots by 10 ms, as a busy machine would.
    limiter = RateLimiter(rate=10, clock=clock, sleep=lambda s: clock.advance(s + 0.01))
    start = clock()
    for _ in range(101):
        limiter.acquire()
    # 100 intervals of 0.1 s; only the last overshoot is visible, not 100 of them.
    assert clock() - start == pytest.approx(10.01, abs=1e-6)


def test_idle_time_does_not_bank_a_burst():
    clock = FakeClock()
    limiter = RateLimiter(rate=2, clock=clock, sleep=clock.sleep)
    limiter.acquire()
    clock.advance(10)
    limiter.acquire()
    before = clock()
    limiter.acquire()
    assert clock() - before == pytest.approx(0.5)


def test_burst_allows_that_many_immediate_slots():
    clock = FakeClock()
    limiter = RateLimiter(rate=10, burst=3, clock=clock, sleep=clock.sleep)
    start = clock()
    for _ in range(3):
        limiter.acquire()
    assert clock() == start
    limiter.acquire()
    assert clock() - start == pytest.approx(0.1)


def test_deadline_refusal_reserves_nothing():
    clock = FakeClock()
    limiter = RateLimiter(rate=1, clock=clock, sleep=clock.sleep)
    assert limiter.acquire()
    now = clock()
    assert limiter.acquire(deadline=now + 0.5) is False
    assert clock() == now and limiter.next_slot_in() == pytest.approx(1.0)
    assert limiter.acquire(deadline=now + 1.0)
    assert clock() == pytest.approx(now + 1.0)


def test_block_until_delays_every_later_slot():
    clock = FakeClock()
    limiter = RateLimiter(rate=10, clock=clock, sleep=clock.sleep)
    limiter.acquire()
    limiter.block_until(clock() + 3)
    start = clock()
    limiter.acquire()
    assert clock() - start == pytest.approx(3.0)
    limiter.acquire()
    assert clock() - start == pytest.approx(3.1)


def test_block_arriving_during_sleep_moves_the_reserved_slot():
    clock = FakeClock()
    limiter = None

    def sleep_and_get_blocked(seconds):
        clock.sleep(seconds)
        if len(clock.sleeps) == 1:
            limiter.block_until(clock() + 5)

    limiter = RateLimiter(rate=1, clock=clock, sleep=sleep_and_get_blocked)
    limiter.acquire()
    start = clock()
    limiter.acquire()
    assert clock() - start == pytest.approx(6.0)


def test_set_rate_changes_spacing():
    clock = FakeClock()
    limiter = RateLimiter(rate=1, clock=clock, sleep=clock.sleep)
    limiter.set_rate(4)
    limiter.acquire()
    limiter.acquire()
    start = clock()
    limiter.acquire()
    assert clock() - start == pytest.approx(0.25)
    assert limiter.rate == 4
    with pytest.raises(ValueError):
        limiter.set_rate(0)


def test_many_threads_get_distinct_evenly_spaced_slots():
    clock = FakeClock(advance_on_sleep=False)
    limiter = RateLimiter(rate=25, clock=clock, sleep=clock.sleep)
    barrier = threading.Barrier(8)

    def worker():
        barrier.wait()
        for _ in range(50):
            assert limiter.acquire()

    threads = [threading.Thread(target=worker) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    # The clock never moved, so each sleep is exactly "slot - start".
    slots = sorted([0.0] + [s for s in clock.sleeps])
    assert len(slots) == 400
    assert slots == pytest.approx([i / 25 for i in range(400)])


def test_chat_pacer_spaces_private_and_group_chats():
    clock = FakeClock()
    pacer = ChatPacer(clock=clock, sleep=clock.sleep)
    start = clock()
    pacer.acquire(42)
    pacer.acquire(-100)
    assert clock() == start
    pacer.acquire(42)
    assert clock() - start == pytest.approx(1.0)
    pacer.acquire(-100)
    assert clock() - start == pytest.approx(3.0)
    assert pacer.interval_for("@channel") == 3.0


def test_chat_pacer_deadline_and_ready_at():
    clock = FakeClock()
    pacer = ChatPacer(clock=clock, sleep=clock.sleep)
    now = clock()
    assert pacer.ready_at(7) <= now
    pacer.acquire(7)
    assert pacer.ready_at(7) == pytest.approx(now + 1.0)
    assert pacer.acquire(7, deadline=now + 0.5) is False
    assert clock() == now
    assert pacer.ready_at(7) == pytest.approx(now + 1.0)


def test_chat_pacer_block_until():
    clock = FakeClock()
    pacer = ChatPacer(clock=clock, sleep=clock.sleep)
    pacer.block_until(9, clock() + 7)
    assert pacer.ready_at(9) == pytest.approx(clock() + 7)
    start = clock()
    pacer.acquire(9)
    assert clock() - start == pytest.approx(7.0)
    assert pacer.ready_at(10) <= clock()


def test_chat_pacer_forgets_old_chats():
    clock = FakeClock()
    pacer = ChatPacer(clock=clock, sleep=clock.sleep)
    for chat in range(1, 2001):
        pacer.acquire(chat)
    assert pacer.tracked() == 2000
    clock.advance(61)
    pacer.acquire(99999)
    assert pacer.tracked() == 1


def test_chat_pacer_threads_never_share_a_chat_slot():
    clock = FakeClock(advance_on_sleep=False)
    pacer = ChatPacer(clock=clock, sleep=clock.sleep)
    threads = [threading.Thread(target=lambda: [pacer.acquire(5) for _ in range(10)])
               for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted([0.0] + clock.sleeps) == pytest.approx([float(i) for i in range(40)])
