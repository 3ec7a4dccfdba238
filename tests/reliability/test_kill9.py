"""Kill -9: real `flask broadcast pump` processes SIGKILLed at random moments, round after round.

Each round starts a CLI pump on the job and kills it: mostly a few deliveries
into its sending (plus a random sub-send jitter, so the kill lands anywhere
in the claim / send / record cycle), and every fourth round at a random time
after spawn (during start-up, lease taking or sending). Between rounds the
lease is aged in SQL instead of waiting out its 55 s TTL. Items the dead pump
left 'sending' must become 'unknown' (never re-sent), at most
a block and the window of them per kill; finally an unkilled pump drains the
rest and nothing is duplicated or lost.
"""
from __future__ import annotations

import random
import signal
import statistics
import time

import pytest

from app.models.broadcast import COMPLETED, SENDING, SENT, UNKNOWN
from tests.broadcast.helpers import crash_bound, create_text_job, create_users, expire_lease, reload
from tests.reliability.helpers import (
    assert_final,
    assert_logs_clean,
    item_ids,
    process_env,
    recipients,
    record,
    spawn_flask,
    stop_process,
    use_settings,
    users_in,
)

# Enough for every round to find work: the seeded rounds wait for 542 deliveries in all, plus at most
# 2 more each before the kill (its 0-40 ms jitter at 28/s), 262 in the timed rounds' 9.4 s (at most,
# were start-up instant) and a block and the window (28 + 6) stranded per kill: 1,596 at most. The
# floor is USERS / 28 s of sending plus ROUNDS process start-ups (~2 s each).
USERS = 1600
ROUNDS = 22
SEED = 20240914
PUMP_SECONDS = "45"


def kill_moment(rng: random.Random, round_no: int) -> tuple[str, float]:
    """Pick when to kill: ("time", seconds after spawn) or ("deliveries", new deliveries to wait for)."""
    if round_no % 4 == 3:
        return "time", rng.uniform(0.05, 3.5)
    return "deliveries", rng.randint(1, 50)


def wait_for_moment(child, simulator, moment: tuple[str, float], rng: random.Random) -> None:
    """Block until the chosen moment (or until the child exits on its own)."""
    kind, value = moment
    if kind == "time":
        deadline = time.monotonic() + value
        while time.monotonic() < deadline and child.poll() is None:
            time.sleep(0.005)
        return
    target = simulator.stats()["deliveries"] + value
    deadline = time.monotonic() + 60  # generous: start-up on a loaded 2-core machine
    while simulator.stats()["deliveries"] < target and child.poll() is None:
        assert time.monotonic() < deadline, "the pump process sent nothing for 60 s"
        time.sleep(0.005)
    time.sleep(rng.uniform(0, 0.04))  # land anywhere between two sends (latency ~30 ms, 28/s)


def drain(job_id: int, env: dict, tmp_path) -> int:
    """Run unkilled CLI pumps until the job completes; return how many were needed."""
    for run in range(1, 6):
        log_path = tmp_path / f"drain{run}.log"
        child = spawn_flask(["broadcast", "pump", "--job", str(job_id), "--seconds", PUMP_SECONDS], env, log_path)
        try:
            assert child.wait(120) == 0, log_path.read_text()
        finally:
            stop_process(child)
        if reload(job_id).status == COMPLETED:
            return run
    raise AssertionError(f"job {job_id} still {reload(job_id).status} after 5 unkilled pumps")


def kill_rounds(job_id: int, env: dict, simulator, tmp_path, bound: int) -> list[set[int]]:
    """Start and SIGKILL a CLI pump ROUNDS times; return, per kill, the items it left in flight."""
    rng = random.Random(SEED)
    stranded_before: set[int] = set()
    per_kill: list[set[int]] = []
    for round_no in range(ROUNDS):
        log_path = tmp_path / f"round{round_no}.log"
        child = spawn_flask(["broadcast", "pump", "--job", str(job_id), "--seconds", PUMP_SECONDS], env, log_path)
        try:
            wait_for_moment(child, simulator, kill_moment(rng, round_no), rng)
            assert child.poll() is None, f"round {round_no}: the pump exited before the kill:\n{log_path.read_text()}"
            child.send_signal(signal.SIGKILL)
            child.wait(10)
        finally:
            stop_process(child)  # a no-op unless an assertion stopped the round early
        stranded = item_ids(job_id, SENDING)
        new = stranded - stranded_before
        assert len(stranded) <= bound and len(new) <= bound, (round_no, len(stranded), len(new))
        per_kill.append(new)
        stranded_before = stranded
        expire_lease(job_id)  # as if the lease's 55 s had passed
    return per_kill


@pytest.mark.slow
@pytest.mark.timeout(900)  # ~70 s on 2 idle cores; CI machines are shared
def test_sigkilled_cli_pumps_never_duplicate_lose_or_strand_more_than_a_block_and_the_window(
        app, simulator, database_url, tmp_path, figures):
    started = time.monotonic()
    create_users(USERS)
    settings = use_settings(broadcast_rate_per_second=28)
    bound = crash_bound(settings)
    simulator.configure(latency_ms=30, latency_jitter_ms=10, seed=SEED)
    job_id = create_text_job(settings=settings).id
    env = process_env(database_url, simulator)
    stranded = kill_rounds(job_id, env, simulator, tmp_path, bound)
    drains = drain(job_id, env, tmp_path)
    per_kill = [len(items) for items in stranded]

    counts = assert_final(job_id, simulator)
    job = reload(job_id)
    assert job.status == COMPLETED
    assert counts.get(SENT, 0) + counts.get(UNKNOWN, 0) + counts.get("skipped", 0) + counts.get("failed", 0) \
        == USERS == job.total_count, counts
    # Unknown items are exactly the ones dead pumps left in flight: never re-sent, nothing else uncertain.
    assert item_ids(job_id, UNKNOWN) == set().union(*stranded)
    assert job.unknown_count == sum(per_kill) <= ROUNDS * bound
    delivered = set(recipients(simulator))
    assert len(delivered) == len(recipients(simulator))
    unknown_delivered = len(delivered & users_in(job_id, UNKNOWN))
    assert assert_logs_clean(tmp_path) == ROUNDS + drains
    record(figures, "kill9", users=USERS, rounds=ROUNDS, kills=len(per_kill), bound=bound,
           kills_with_items_in_flight=sum(1 for n in per_kill if n), unknown_per_kill_max=max(per_kill),
           unknown_per_kill_mean=round(statistics.mean(per_kill), 2),
           unknown_total=job.unknown_count, unknown_actually_delivered=unknown_delivered,
           sent=counts.get(SENT, 0), duplicates=0, lost=0, drain_pumps=drains,
           total_seconds=round(time.monotonic() - started, 1))
