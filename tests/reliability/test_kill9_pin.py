"""Kill -9 during a pin: real `flask broadcast pump` processes SIGKILLed while pinning, round after round.

A pin is not safe to repeat (a second "pinned" notice), so the items a dead
pump left 'sending' become 'unknown', as a send's do, and are never pinned
again. In the end every copy is pinned at most once, every item is pinned or
unknown, and the unknown ones are at most a block and the window per kill.
"""
from __future__ import annotations

import random
import signal
import time
from collections import Counter

import pytest

from app.models.broadcast import COMPLETED, SENDING, SENT, UNKNOWN
from app.services.broadcast.actions import pin
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
    spawn_flask,
    stop_process,
    use_settings,
    users_in,
)
from tests.reliability.test_kill9 import drain

USERS = 300
ROUNDS = 5
SEED = 20261202
PUMP_SECONDS = "45"


def pin_requests(simulator) -> list[dict]:
    """Return the pinChatMessage requests that reached the recipients' chats."""
    return [a for a in simulator.pin_attempts() if a["chat_id"] >= BASE_ID and a["method"] == "pinChatMessage"]


def kill_rounds(job_id: int, env: dict, simulator, tmp_path, bound: int) -> tuple[list[int], set[int]]:
    """SIGKILL a CLI pump ROUNDS times, a few pins into its work; return items in flight per kill, their users."""
    rng = random.Random(SEED)
    per_kill, users = [], set()
    for round_no in range(ROUNDS):
        log_path = tmp_path / f"round{round_no}.log"
        child = spawn_flask(["broadcast", "pump", "--job", str(job_id), "--seconds", PUMP_SECONDS], env, log_path)
        try:
            target = len(pin_requests(simulator)) + rng.randint(1, 30)
            deadline = time.monotonic() + 60
            while len(pin_requests(simulator)) < target and child.poll() is None:
                assert time.monotonic() < deadline, "the pump process pinned nothing for 60 s"
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
        expire_lease(job_id)  # as if the lease had run out: the next pump counts these unknown
    return per_kill, users


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_sigkilled_pin_pumps_pin_every_copy_at_most_once(app, simulator, database_url, tmp_path):
    users = set(create_users(USERS))
    settings = use_settings(broadcast_rate_per_second=28)
    bound = crash_bound(settings)
    simulator.configure(latency_ms=30, latency_jitter_ms=10, seed=SEED)
    source = create_text_job(settings=settings).id
    while pump(source, 60, settings=settings).stop != "done":
        pass
    job_id = pin.pin_job(source, settings=settings).id
    env = process_env(database_url, simulator)
    per_kill, stranded_users = kill_rounds(job_id, env, simulator, tmp_path, bound)
    drains = drain(job_id, env, tmp_path)

    job = reload(job_id)
    assert job.status == COMPLETED
    assert_consistent(job_id)
    per_chat = Counter(a["chat_id"] for a in pin_requests(simulator))
    assert max(per_chat.values()) == 1, "a copy was pinned twice"
    assert job.sent_count + job.unknown_count == USERS == job.total_count
    # Only items in flight at a kill are unknown; every pinned item's copy was pinned, silently.
    assert set(users_in(job_id, UNKNOWN)) <= stranded_users and job.unknown_count <= sum(per_kill)
    assert set(users_in(job_id, SENT)) <= set(per_chat) and all(a["silent"] for a in pin_requests(simulator))
    assert set(per_chat) <= users
    assert assert_logs_clean(tmp_path) == ROUNDS + drains
