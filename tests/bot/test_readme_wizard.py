"""The README's scripted wizard run (curl against the simulator) creates the broadcast it says it does."""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
import requests

from tests.bot.wizard import all_jobs
from tests.conftest import ADMIN_ID, PUMP_TOKEN
from tests.factories import create_users

README = Path(__file__).resolve().parents[2] / "README.md"
MARKER = "<!-- wizard-by-hand"


def readme_script(sim_url: str) -> str:
    """Return the README's wizard block, aimed at this run's simulator and Python."""
    block = README.read_text(encoding="utf-8").split(MARKER, 1)[1]
    script = re.search(r"```sh\n(.*?)```", block, re.S).group(1)
    assert "SIM=http://127.0.0.1:8081\n" in script and ".venv/bin/python" in script
    return script.replace("SIM=http://127.0.0.1:8081", f"SIM={sim_url}").replace(".venv/bin/python", sys.executable)


@pytest.mark.usefixtures("fast_telegram")
def test_the_readme_wizard_run_queues_a_broadcast_and_the_admin_sees_the_preview_then_the_copy(simulator, served):
    create_users([9101, 9102])
    simulator.send_update(kind="message", user_id=ADMIN_ID, text="/start", first_name="Admin")
    done = subprocess.run(["bash", "-euo", "pipefail", "-c", readme_script(simulator.base_url)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    [job] = all_jobs()
    assert (job.audience, job.total_count) == ("all", 3)  # the admin sent /start: a user too
    for _ in range(30):  # as cron would, should the confirm's own bounded pumps not have finished it
        if job_status(job.id) == "completed":
            break
        requests.get(f"{served}/internal/pump", headers={"Authorization": f"Bearer {PUMP_TOKEN}"}, timeout=60)
    assert job_status(job.id) == "completed"

    to_admin = simulator.deliveries(chat_id=ADMIN_ID)
    copies = [i for i, d in enumerate(to_admin) if d["method"] == "copyMessage"]
    confirm_screen = next(i for i, d in enumerate(to_admin) if "w.confirm:" in str(d["reply_markup"]))
    assert len(copies) == 2 and copies[0] == confirm_screen - 1 < copies[1]  # the preview, then the broadcast
    assert {to_admin[i]["text"] for i in copies} == {"📢 <b>نسخهٔ جدید</b> منتشر شد"}
    for user_id in (9101, 9102):
        assert len(simulator.deliveries("copyMessage", user_id)) == 1
    assert simulator.stats()["duplicates"] == 1  # the admin's chat, as the README says


def job_status(job_id: int) -> str:
    """Read a job's status afresh."""
    from app.extensions import db
    from app.models import BroadcastJob

    db.session.expire_all()
    return db.session.get(BroadcastJob, job_id).status
