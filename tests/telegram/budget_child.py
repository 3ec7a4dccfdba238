"""A process sharing the Telegram budget, for cross-process tests: python -m tests.telegram.budget_child MODE JSON.

Prints one JSON line with what its threads saw. Times are wall clock
(time.time()), comparable across processes on one machine.
"""
import json
import os
import sys
import threading
import time
from pathlib import Path

from app.db_setup import install_engine_hooks
from app.repository.budget import lanes as lanes_repo
from app.repository.budget.engine import NO_LIMIT_US, budget_engine
from app.services.budget.chats import SharedChatPacer
from app.services.budget.clock import BudgetClock
from app.services.budget.lane import SharedRateLimiter

BARRIER_SECONDS = 60


def wall(mono: float) -> float:
    """Convert a monotonic time of this process to wall-clock time."""
    return mono + (time.time() - time.monotonic())


def run_threads(count: int, target) -> None:
    """Run target(i) in count threads and wait for them."""
    threads = [threading.Thread(target=target, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def anchored(engine) -> BudgetClock:
    """Return a database clock read now, before the timed part starts."""
    clock = BudgetClock(engine)
    clock.to_us(time.monotonic())  # the first mapping reads the database's clock
    return clock


def wait_for(a: dict, delay: float = 0.0) -> None:
    """Say this process is ready, wait for the test's go (a wall-clock start for all), then sleep until it + delay.

    The test writes the go once every process is ready (tests/telegram/test_shared_budget.py, run_children):
    all start at one moment however long each took to start, with no fixed margin to guess.
    """
    barrier = Path(a["barrier"])
    barrier.joinpath(f"ready.{os.getpid()}").touch()
    go, give_up = barrier / "go", time.monotonic() + BARRIER_SECONDS
    while not go.exists():
        if time.monotonic() > give_up:
            raise SystemExit(f"no go from the test within {BARRIER_SECONDS} s")
        time.sleep(0.001)
    time.sleep(max(0.0, float(go.read_text()) + delay - time.time()))


def rate(engine, a: dict) -> dict:
    """Threads acquire from a lane until the end; report each slot and when its acquire returned."""
    limiter = SharedRateLimiter(engine, a["rate"], a.get("lane", "free"), db_clock=anchored(engine))
    uses, lock = [], threading.Lock()
    wait_for(a)
    end = time.monotonic() + a["seconds"]

    def work(_):
        while (slot := limiter.acquire_slot(deadline=end)) is not None:
            used = time.time()
            with lock:
                uses.append((wall(slot), used))

    run_threads(a["threads"], work)
    return {"uses": uses, "statements": limiter.statements}


def raw(engine, a: dict) -> dict:
    """Threads reserve 1..3 slots straight from the repository; report every (start_us, n)."""
    booked, lock = [], threading.Lock()
    wait_for(a)

    def work(i):
        for k in range(a["per_thread"]):
            n = 1 + (i + k) % 3
            got = lanes_repo.reserve(engine, "free", n, a["interval_us"], NO_LIMIT_US)
            with lock:
                booked.append((got.start_us, n))

    run_threads(a["threads"], work)
    return {"booked": booked}


def hold_setter(engine, a: dict) -> dict:
    """Record a 429 hold of retry_after seconds once every lane in busy_lanes has bookings (not before start + delay).

    Waiting for the others' bookings, not for a fixed time, puts the hold on
    running traffic however slowly a loaded machine starts the processes.
    """
    limiter = SharedRateLimiter(engine, a["rate"], db_clock=anchored(engine))
    wait_for(a, a["delay"])
    give_up = time.time() + a["seconds"]
    while not all(lanes_repo.read_lane(engine, lane)[0] for lane in a["busy_lanes"]) and time.time() < give_up:
        time.sleep(0.01)
    busy = {lane: lanes_repo.read_lane(engine, lane)[0] > 0 for lane in a["busy_lanes"]}
    before = time.time()
    limiter.block_until(time.monotonic() + a["retry_after"])
    return {"before": before, "after": time.time(), "busy": busy}


class HoldWatch:
    """Count the slots used after the shared hold ended, to stop once enough were (no fixed duration)."""

    def __init__(self, engine, lane: str, clock: BudgetClock, enough: int):
        self.engine, self.lane, self.clock, self.enough = engine, lane, clock, enough
        self.hold_end: float | None = None  # monotonic, once the hold is recorded
        self.after = 0
        self.lock = threading.Lock()

    def used(self, slot: float) -> bool:
        """Note a slot used; True once `enough` slots after the hold's end were used."""
        with self.lock:
            if self.hold_end is None:
                hold_us = lanes_repo.read_lane(self.engine, self.lane)[1]
                self.hold_end = self.clock.to_mono(hold_us) if hold_us else None
            self.after += self.hold_end is not None and slot >= self.hold_end
            return self.after >= self.enough


def hold_acquirer(engine, a: dict) -> dict:
    """Threads acquire until `after` slots past the hold were used; report (acquire started, slot), wall clock."""
    clock = anchored(engine)
    limiter = SharedRateLimiter(engine, a["rate"], recheck=a["recheck"], db_clock=clock)
    watch = HoldWatch(engine, "free", clock, a["after"])
    calls, lock, done = [], threading.Lock(), threading.Event()
    wait_for(a)
    end = time.monotonic() + a["seconds"]

    def work(_):
        while not done.is_set():
            started = time.time()
            slot = limiter.acquire_slot(deadline=end)
            if slot is None:
                return
            with lock:
                calls.append((started, wall(slot)))
            if watch.used(slot):
                done.set()

    run_threads(a["threads"], work)
    return {"calls": calls}


def hold_batch(engine, a: dict) -> dict:
    """One thread books `batch` slots per statement and uses each when due, if still clear; report (booked, slot)."""
    clock = anchored(engine)
    limiter = SharedRateLimiter(engine, a["rate"], a["lane"], recheck=a["recheck"], db_clock=clock)
    watch = HoldWatch(engine, a["lane"], clock, a["after"])
    calls = []
    wait_for(a)
    end = time.monotonic() + a["seconds"]
    enough = False
    while not enough and (slots := limiter.acquire_many(a["batch"], deadline=end)):
        booked_at = time.monotonic()
        for slot in slots:
            time.sleep(max(0.0, slot - time.monotonic()))
            if not limiter.clear_at(slot, booked_at):
                break  # a 429 hold covers the rest: book again after it
            calls.append((wall(booked_at), wall(slot)))
            if enough := watch.used(slot):
                break
    return {"calls": calls}


def chat(engine, a: dict) -> dict:
    """One thread per chat acquires its slots until the end; report when each acquire returned."""
    pacer = SharedChatPacer(engine, db_clock=anchored(engine))
    uses, lock = {c: [] for c in a["chats"]}, threading.Lock()
    wait_for(a)
    end = time.monotonic() + a["seconds"]

    def work(i):
        chat_id = a["chats"][i]
        while pacer.acquire(chat_id, deadline=end):
            with lock:
                uses[chat_id].append(time.time())

    run_threads(len(a["chats"]), work)
    return {"uses": {str(c): t for c, t in uses.items()}}


MODES = {"rate": rate, "raw": raw, "hold_setter": hold_setter, "hold_acquirer": hold_acquirer,
         "hold_batch": hold_batch, "chat": chat}

if __name__ == "__main__":
    install_engine_hooks()
    budget = budget_engine(os.environ["UPK_TEST_DATABASE_URL"])
    print(json.dumps(MODES[sys.argv[1]](budget, json.loads(sys.argv[2]))), flush=True)
