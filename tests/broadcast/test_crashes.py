"""Crashes judged by counts: a stalled pump fenced off, pumps killed mid-batch."""
import os
import random
import signal
import subprocess
import time

import pytest

from app.services.broadcast.sending import outcomes
from app.services.broadcast.sending.drain import pump
from app.services.broadcast.sending.pump import Pump
from app.services.telegram_factory import get_client, new_outbox
from tests import forkserver
from tests.broadcast.helpers import (
    BASE_ID,
    assert_consistent,
    crash_bound,
    create_text_job,
    create_users,
    engine_settings,
    expire_lease,
    recorder_for,
    reload,
)

FAST = engine_settings(broadcast_rate_per_second=28)
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def delivered(simulator) -> list[int]:
    """Return broadcast recipients in delivery order."""
    return [d["chat_id"] for d in simulator.deliveries() if d["chat_id"] >= BASE_ID]


def test_a_stalled_pump_is_fenced_off_after_its_lease_expires(app, simulator):
    create_users(30)
    job_id = create_text_job(settings=FAST).id
    client = get_client(FAST)
    stalled = Pump(job_id, 30, FAST, client, new_outbox(client), time.monotonic, time.sleep)
    assert stalled.lease.acquire()
    recorder = recorder_for(stalled, reload(job_id), window=4)
    in_flight = recorder.step([], 3, 0).claimed
    assert len(in_flight) == 3
    # The stalled pump hangs past its lease; another pump takes over and finishes.
    expire_lease(job_id)
    result = pump(job_id, 20, settings=FAST)
    assert result.stop == "done"
    job = reload(job_id)
    assert (job.sent_count, job.unknown_count) == (27, 3), "the stalled pump's items became unknown, not re-sent"
    chats = delivered(simulator)
    assert not set(chats) & {c.user_id for c in in_flight}, "nobody re-sent the uncertain items"
    # The stalled pump wakes up and its sends had succeeded: it claims nothing, and only turns the
    # items the new holder counted unknown into sent (within the landing window), each once.
    done = [(c.item_id, c.user_id, outcomes.delivered({"message_id": 7})) for c in in_flight]
    woke = recorder.step(done, 4, 0)
    assert woke.claimed == ()
    assert woke.stop == "lease_lost"
    assert recorder.step(done, 4, 0).claimed == ()  # the same answers again change nothing
    assert assert_consistent(job_id) == {"sent": 30}
    assert delivered(simulator) == chats, "the woken pump sent nothing"


def start_child(job_id: int, simulator, log) -> subprocess.Popen:
    """Start a pump process on the job (its stop reasons on stdout, its errors in log)."""
    env = dict(os.environ, PYTHONPATH=ROOT)
    return forkserver.start(["pump_child", str(job_id), simulator.base_url, "30"], module="tests.broadcast.pump_child",
                            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=log)


@pytest.mark.slow
def test_pumps_killed_mid_batch_never_duplicate_and_bound_unknowns(app, simulator, tmp_path):
    create_users(300)
    simulator.configure(latency_ms=40, latency_jitter_ms=20)
    job_id = create_text_job(settings=FAST).id
    rng = random.Random(11)
    kills, early_exits = 0, []
    for _ in range(3):
        before = len(delivered(simulator))
        with open(tmp_path / "children.log", "ab") as log:
            child = start_child(job_id, simulator, log)
        target = before + rng.randint(20, 60)
        deadline = time.monotonic() + 30
        while len(delivered(simulator)) < target and child.poll() is None and time.monotonic() < deadline:
            time.sleep(0.01)
        if child.poll() is None:
            child.send_signal(signal.SIGKILL)
            kills += 1
        else:  # it stopped on its own: say how (its stop reasons, its errors)
            early_exits.append((child.returncode, child.stdout.read()))
        child.wait(10)
        unknown_before = reload(job_id).unknown_count
        expire_lease(job_id)  # as if 55 s had passed
        pump(job_id, 0.5, settings=FAST)  # the next holder turns orphans into unknown
        assert reload(job_id).unknown_count - unknown_before <= crash_bound(FAST)
    while reload(job_id).status == "running":
        pump(job_id, 10, settings=FAST)
    job = reload(job_id)
    assert kills == 3, (early_exits, (tmp_path / "children.log").read_text())
    assert job.status == "completed"
    assert job.unknown_count <= kills * crash_bound(FAST)
    counts = assert_consistent(job_id, simulator)
    assert counts["sent"] + counts.get("unknown", 0) == 300
    chats = delivered(simulator)
    assert len(chats) == len(set(chats)), "nobody received two copies"
    assert len(chats) >= counts["sent"]
