"""kill -9 between a chain step's claim and its job's commit: nothing is kept, and the next pass sends once."""
import os
import signal
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

from app.services.broadcast.sending.drain import pump
from app.services.chains import due
from tests.broadcast.helpers import assert_consistent, reload
from tests.chains.helpers import BASE, FAST, T0, add_user, deliveries, make_chain, recipients, step_jobs

ROOT = str(Path(__file__).resolve().parents[2])


def test_killed_inside_the_claim_leaves_nothing_and_the_next_pass_claims_each_once(app, simulator):
    add_user(BASE)
    add_user(BASE + 1)
    make_chain("joined", "0|Welcome")
    now = T0 + timedelta(minutes=2)
    done = subprocess.run([sys.executable, "-m", "tests.chains.chain_child", simulator.base_url, now.isoformat()],
                          cwd=ROOT, env=dict(os.environ, PYTHONPATH=ROOT), capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == -signal.SIGKILL, done.stderr[-2000:]
    assert deliveries() == [] and step_jobs() == []  # the claim and the job were one transaction
    [job] = due.run_due(FAST, now=now + timedelta(minutes=1))
    assert recipients(job) == [BASE, BASE + 1]
    assert due.run_due(FAST, now=now + timedelta(minutes=2)) == []
    pump(job, 10, settings=FAST)
    assert reload(job).sent_count == 2
    assert_consistent(job, simulator)
    assert len([d for d in simulator.deliveries("sendMessage") if d["chat_id"] >= BASE]) == 2
