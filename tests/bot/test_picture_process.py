"""The results picture is drawn in a short-lived child: a web worker never imports matplotlib.

The app runs under gunicorn (one sync worker, a fresh interpreter) on the
test database and the simulated Bot API; the test presses 📊 and drains a
broadcast by /internal/pump as cron does, then asks the worker which
libraries it has imported. Without matplotlib (tests/no_matplotlib blocks
its import in the worker and every child) the admin gets the numbers as
one line of text, with how to add pictures, and nothing ends in a traceback.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import requests

from app.services.broadcast.reporting.numbers_line import numbers_line
from app.services.broadcast.reporting.results import compute
from app.simulator.updates import callback_update
from app.simulator.webhook import register_update
from app.texts import t
from tests.broadcast.helpers import create_text_job, create_users, reload
from tests.conftest import ADMIN_ID, PUMP_TOKEN, WEBHOOK_SECRET
from tests.ports import free_port
from tests.reliability.helpers import process_env, stop_process, wait_until

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
NO_MATPLOTLIB = str(ROOT / "tests" / "no_matplotlib")
HINT = "pip install -r requirements-pictures.txt"

pytestmark = [pytest.mark.slow, pytest.mark.timeout(240)]


@pytest.fixture
def serve(database_url, simulator, tmp_path):
    """Start gunicorn (1 worker, a fresh interpreter: sitecustomize applies) with env; yield a starter."""
    procs = []

    def start(blocked: bool = False) -> str:
        env = process_env(database_url, simulator)
        if blocked:
            env["PYTHONPATH"] = os.pathsep.join(filter(None, (NO_MATPLOTLIB, env.get("PYTHONPATH"))))
        port = free_port("127.0.0.1")
        log = open(tmp_path / "web.log", "ab")  # noqa: SIM115 - the child keeps it open
        proc = subprocess.Popen([str(BIN / "gunicorn"), "--workers", "1", "--bind", f"127.0.0.1:{port}",
                                 "--timeout", "60", "tests.bot.loaded_wsgi:app"], cwd=ROOT, env=env,
                                stdout=log, stderr=subprocess.STDOUT)
        procs.append(proc)
        base = f"http://127.0.0.1:{port}"
        assert wait_until(lambda: _answers(base), 60, interval=0.1), (tmp_path / "web.log").read_text()
        return base

    yield start
    for proc in procs:
        stop_process(proc)
    assert "Traceback" not in (tmp_path / "web.log").read_text()


def _answers(base: str) -> bool:
    try:
        return requests.get(base + "/healthz", timeout=2).status_code == 200
    except requests.RequestException:
        return False


def loaded(base: str, name: str = "matplotlib") -> bool:
    """Tell whether the worker that serves base has imported name."""
    return requests.get(base + "/_test/loaded", params={"name": name}, timeout=10).json()[name]


def press_chart(base: str, simulator, job_id: int) -> None:
    """POST the admin's 📊 press on job_id's view to the webhook."""
    update = callback_update(ADMIN_ID, f"j.chart:{job_id}", ADMIN_ID, 1)
    register_update(simulator.state, update)
    response = requests.post(base + "/telegram/webhook", data=json.dumps(update, ensure_ascii=False).encode(),
                             headers={"Content-Type": "application/json",
                                      "X-Telegram-Bot-Api-Secret-Token": WEBHOOK_SECRET}, timeout=30)
    assert response.status_code == 200


def finish_broadcast(base: str) -> int:
    """Create a three-user broadcast and drain it by /internal/pump as cron does; return its id."""
    create_users(3)
    job = create_text_job()
    for _ in range(20):
        requests.get(base + "/internal/pump", params={"seconds": 2},
                     headers={"Authorization": f"Bearer {PUMP_TOKEN}"}, timeout=30).raise_for_status()
        if reload(job.id).status == "completed":
            return job.id
    raise AssertionError(f"job {job.id} did not complete: {reload(job.id).status}")


def admin_got(simulator, method: str, count: int, seconds: float = 60.0) -> list[dict]:
    """Wait until the admin got count deliveries of method; return them."""
    wait_until(lambda: len(simulator.deliveries(method, ADMIN_ID)) >= count, seconds, interval=0.1)
    return simulator.deliveries(method, ADMIN_ID)


def numbers_lines(simulator) -> list[dict]:
    """Return the admin's text messages that are a results' numbers line."""
    head = t("chart_numbers").split(":")[0].split("#")[0]
    return [d for d in simulator.deliveries("sendMessage", ADMIN_ID) if d["text"].startswith(head)]


def test_the_web_worker_never_imports_matplotlib_yet_the_pictures_arrive(app, serve, simulator):
    base = serve()
    finished = finish_broadcast(base)
    [photo] = admin_got(simulator, "sendPhoto", 1)
    summary = [d for d in simulator.deliveries("sendMessage", ADMIN_ID)
               if d["text"].startswith(t("summary").split("{status}")[0].format(id=finished))]
    assert summary and summary[-1]["seq"] < photo["seq"]  # the summary first, its picture after it
    assert photo["caption"] == t("chart_caption", "fa", id=finished)
    assert not loaded(base), "the final summary's picture loaded matplotlib into the web worker"
    press_chart(base, simulator, finished)
    assert len(admin_got(simulator, "sendPhoto", 2)) == 2
    assert not loaded(base), "📊 loaded matplotlib into the web worker"
    assert loaded(base, "flask")  # the route answers for the worker itself


def test_without_matplotlib_the_bot_gives_the_numbers_as_one_line(app, serve, simulator):
    base = serve(blocked=True)
    finished = finish_broadcast(base)
    assert wait_until(lambda: numbers_lines(simulator), 30, interval=0.1)
    [line] = numbers_lines(simulator)
    assert line["text"] == numbers_line(compute(finished), "fa", hint=True)
    assert HINT in line["text"] and "\n" not in line["text"]
    summary = [d for d in simulator.deliveries("sendMessage", ADMIN_ID)
               if d["text"].startswith(t("summary").split("{status}")[0].format(id=finished))]
    assert summary[-1]["seq"] < line["seq"]  # the summary first, its numbers after it
    press_chart(base, simulator, finished)
    assert wait_until(lambda: len(numbers_lines(simulator)) == 2, 30, interval=0.1)
    assert numbers_lines(simulator)[-1]["text"] == line["text"]
    assert simulator.deliveries("sendPhoto", ADMIN_ID) == []
