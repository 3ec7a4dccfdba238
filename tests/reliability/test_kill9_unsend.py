"""Kill -9 during an unsend: real `flask broadcast pump` processes SIGKILLed while deleting, round after round.

A delete is safe to repeat, so the items a dead pump left 'sending' go back
to pending (never 'unknown') and the next pump deletes them again: a copy
whose first delete had reached Telegram is then "already gone". In the end no
copy remains, every item is deleted or gone, and the only repeated requests
are those of items claimed at a kill (at most a block and the window per kill).
"""
from __future__ import annotations

import random
import signal
import time

import pytest

from app.models.broadcast import COMPLETED, GONE, SENDING, SENT
from app.repository.broadcast_ledger import tallies
from app.services.broadcast.actions import unsend_edit
from app.services.broadcast.sending.drain import pump
from tests.broadcast.helpers import (
    BASE_ID,
    assert_consistent,
    crash_bound,
    create_text_job,
    create_users,
    expire_lease,
    reload,
)
from tests.reliability.helpers import (
    assert_logs_clean,
    item_ids,
    process_env,
    record,
    spawn_flask,
    stop_process,
    use_settings,
    users_in,
)
from tests.reliability.test_kill9 import drain

# Enough for every round to find work: the seeded rounds wait for 66 deletes in all, plus at most 2 more
# each before the kill (0-40 ms at 28/s) and a block and the window (28 + 6) claimed per kill: 354 at most.
USERS = 400
ROUNDS = 8
SEED = 20261201
PUMP_SECONDS = "45"


def deletes(simulator) -> int:
    """Return how many deleteMessage requests reached the recipients' chats (an admin's chat is not counted)."""
    return sum(1 for a in simulator.delete_attempts() if a["chat_id"] >= BASE_ID)


def kill_rounds(job_id: int, env: dict, simulator, tmp_path, bound: int) -> tuple[list[int], set[int]]:
    """SIGKILL a CLI pump ROUNDS times, a few deletes into its work; return items in flight per kill, their users."""
    rng = random.Random(SEED)
    per_kill, users = [], set()
    for round_no in range(ROUNDS):
        log_path = tmp_path / f"round{round_no}.log"
        child = spawn_flask(["broadcast", "pump", "--job", str(job_id), "--seconds", PUMP_SECONDS], env, log_path)
        try:
            target = deletes(simulator) + rng.randint(1, 30)
            deadline = time.monotonic() + 60
            while deletes(simulator) < target and child.poll() is None:
                assert time.monotonic() < deadline, "the pump process deleted nothing for 60 s"
                time.sleep(0.005)
            time.sleep(rng.uniform(0, 0.04))
            assert child.poll() is None, f"round {round_no}: the pump exited before the kill:\n{log_path.read_text()}"
            child.send_signal(signal.SIGKILL)
            child.wait(10)
        finally:
            stop_process(child)
        stranded = item_ids(job_id, SENDING)
        assert len(stranded) <= bound, (round_no, len(stranded))
        per_kill.append(len(stranded))
        users |= users_in(job_id, SENDING)
        expire_lease(job_id)  # as if the lease's 55 s had passed: the next pump redoes these
    return per_kill, users


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_sigkilled_unsend_pumps_delete_every_copy_once_and_redo_only_what_was_in_flight(
        app, simulator, database_url, tmp_path, figures):
    started = time.monotonic()
    users = set(create_users(USERS))
    settings = use_settings(broadcast_rate_per_second=28)
    bound = crash_bound(settings)
    simulator.configure(latency_ms=30, latency_jitter_ms=10, seed=SEED)
    source = create_text_job(settings=settings).id
    while pump(source, 60, settings=settings).stop != "done":
        pass
    assert {m["chat_id"] for m in simulator.bot_messages()} >= users
    job_id = unsend_edit.unsend_job(source, settings=settings).id
    env = process_env(database_url, simulator)
    per_kill, stranded_users = kill_rounds(job_id, env, simulator, tmp_path, bound)
    drains = drain(job_id, env, tmp_path)

    job = reload(job_id)
    assert job.status == COMPLETED
    assert not users & {m["chat_id"] for m in simulator.bot_messages()}, "a copy survived the unsend"
    counts = assert_consistent(job_id)
    assert counts.get(GONE, 0) == job.gone_count and job.unknown_count == 0
    assert job.sent_count + job.gone_count == USERS == job.total_count, tallies(job_id)
    # Work done twice: only items in flight at a kill (a delete that had reached Telegram is then "not found").
    attempts = [a for a in simulator.delete_attempts() if a["chat_id"] >= BASE_ID]
    deleted = [a["chat_id"] for a in attempts if a["result"] == "deleted"]
    assert sorted(deleted) == sorted(users)  # each copy deleted exactly once
    repeated = [a["chat_id"] for a in attempts if a["result"] != "deleted"]
    assert set(repeated) <= stranded_users and len(repeated) <= sum(per_kill), (repeated, per_kill)
    assert job.gone_count == len(set(repeated))  # each redone copy is counted "already gone" once
    assert job.gone_count <= sum(per_kill)
    assert len(item_ids(job_id, SENT)) == job.sent_count
    assert assert_logs_clean(tmp_path) == ROUNDS + drains
    record(figures, "kill9_unsend", users=USERS, rounds=ROUNDS, bound=bound, in_flight_per_kill=per_kill,
           deleted=job.sent_count, already_gone_redone=job.gone_count, delete_requests=len(attempts),
           repeated_requests=len(repeated), drain_pumps=drains, total_seconds=round(time.monotonic() - started, 1))
