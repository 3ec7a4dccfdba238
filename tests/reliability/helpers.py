"""Plain helpers for the reliability suite: real processes, settings, and the end-of-scenario checks."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import requests
from sqlalchemy import func, select

from app.extensions import db
from app.models import BroadcastJob, BroadcastJobItem
from app.models.broadcast import COMPLETED, PENDING, SENDING, SENT, UNKNOWN
from app.services.settings import load_settings, set_setting
from tests import forkserver
from tests.broadcast.helpers import BASE_ID, assert_consistent, reload
from tests.conftest import ADMIN_ID, PUMP_TOKEN, TOKEN, WEBHOOK_SECRET
from tests.ports import free_port

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
SECRETS = (TOKEN, WEBHOOK_SECRET, PUMP_TOKEN)
BROADCAST_METHODS = ("sendMessage", "copyMessage")


def process_env(database_url: str, simulator) -> dict:
    """Return the environment of a production-like process on the test database and the simulator."""
    return {**os.environ, "DATABASE_URL": database_url, "TELEGRAM_API_BASE_URL": simulator.base_url,
            "TELEGRAM_BOT_TOKEN": TOKEN, "WEBHOOK_SECRET": WEBHOOK_SECRET, "PUMP_TOKEN": PUMP_TOKEN,
            "ADMIN_IDS": str(ADMIN_ID), "PYTHONUNBUFFERED": "1", "LOG_LEVEL": "INFO"}


# The simulator stands in for Telegram's servers, which a loaded bot host does
# not slow down: the bot's processes run one notch below the test process, so
# the simulator stamps a request when it arrives, not when 2 busy cores get
# round to it (that stall bunched arrivals that were sent evenly spaced).
BOT_NICENESS = 5


def spawn_flask(args: list[str], env: dict, log_path: Path) -> forkserver.Child | subprocess.Popen:
    """Start `flask --app wsgi ARGS` with stdout and stderr in log_path."""
    with open(log_path, "ab") as log:  # the child keeps its own copy of the descriptor
        return forkserver.start([str(BIN / "flask"), "--app", "wsgi", *args], cwd=ROOT, env=env,
                                stdout=log, stderr=subprocess.STDOUT)



def start_gunicorn(env: dict, log_path: Path, workers: int = 2, *, host: str = "127.0.0.1",
                   app: str = "wsgi:app", graceful_timeout: int = 5,
                   extra: tuple[str, ...] = ()) -> tuple[subprocess.Popen, str]:
    """Serve app with gunicorn (sync workers; extra: more options) on loopback; return the process and its URL."""
    port = free_port(host)
    with open(log_path, "ab") as log:
        proc = forkserver.start([str(BIN / "gunicorn"), "--workers", str(workers), "--worker-class", "sync",
                                 "--bind", f"{host}:{port}", "--timeout", "60",
                                 "--graceful-timeout", str(graceful_timeout), *extra,
                                 app], module="gunicorn", cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
                                nice=BOT_NICENESS)
    base = f"http://{host}:{port}"
    ready = wait_until(lambda: proc.poll() is not None or _answers(base + "/healthz"), 60, interval=0.1)
    if not ready or proc.poll() is not None:
        stop_process(proc)
        raise RuntimeError(f"gunicorn did not start; see {log_path}")
    return proc, base


def _answers(url: str) -> bool:
    """Tell whether url answers 200."""
    try:
        return requests.get(url, timeout=2).status_code == 200
    except requests.RequestException:
        return False


def stop_process(proc: subprocess.Popen, timeout: float = 10) -> None:
    """Terminate a child we started, killing it if it does not stop in time."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout)


def wait_until(predicate: Callable[[], bool], timeout: float, interval: float = 0.01) -> bool:
    """Poll predicate until it is true (True) or timeout passes (False)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(interval)
    return predicate()


def after_deliveries(simulator, n: int, action: Callable[[], object], timeout: float = 60) -> threading.Thread:
    """Run action in a background thread as soon as the simulator has delivered n messages."""
    def watch() -> None:
        if wait_until(lambda: simulator.stats()["deliveries"] >= n, timeout, interval=0.002):
            action()

    thread = threading.Thread(target=watch, name="after-deliveries", daemon=True)
    thread.start()
    return thread


def use_settings(**values) -> dict:
    """Store settings through the settings service (validated like `flask settings set`); return them all."""
    for key, value in values.items():
        set_setting(key, value)
    return load_settings()


def item_ids(job_id: int, status: str) -> set[int]:
    """Return the ids of the job's items in one status."""
    ids = set(db.session.execute(select(BroadcastJobItem.id).where(
        BroadcastJobItem.job_id == job_id, BroadcastJobItem.status == status)).scalars())
    db.session.commit()
    return ids


def users_in(job_id: int, *statuses: str) -> set[int]:
    """Return the recipients whose items are in any of statuses."""
    users = set(db.session.execute(select(BroadcastJobItem.user_id).where(
        BroadcastJobItem.job_id == job_id, BroadcastJobItem.status.in_(statuses))).scalars())
    db.session.commit()
    return users


def item_errors(job_id: int) -> list[str]:
    """Return every error text recorded on the job's items."""
    errors = [e for e in db.session.execute(select(BroadcastJobItem.error).where(
        BroadcastJobItem.job_id == job_id, BroadcastJobItem.error.isnot(None))).scalars()]
    db.session.commit()
    return errors


def job_count() -> int:
    """Count every broadcast job."""
    n = db.session.execute(select(func.count()).select_from(BroadcastJob)).scalar_one()
    db.session.commit()
    return n


def recipients(simulator) -> list[int]:
    """Return the broadcast recipients the simulator delivered to, in order (one entry per copy)."""
    return [d["chat_id"] for d in simulator.deliveries() if d["method"] in BROADCAST_METHODS
            and d["chat_id"] >= BASE_ID]


def assert_final(job_id: int, simulator) -> dict:
    """The checks every scenario ends with; return the item tallies.

    No recipient got two copies; nobody got a copy the job does not account
    for as sent or unknown; every 'sent' item was delivered; nothing is left
    'sending'; a completed job has nothing pending; counters equal tallies.
    """
    counts = assert_consistent(job_id, simulator)
    chats = recipients(simulator)
    assert len(chats) == len(set(chats)), "a recipient received two copies"
    assert set(chats) <= users_in(job_id, SENT, UNKNOWN), "a copy went to a recipient recorded as not sent"
    job = reload(job_id)
    if job.status == COMPLETED:
        assert counts.get(PENDING, 0) == 0 and counts.get(SENDING, 0) == 0, counts
        assert sum(counts.values()) == job.total_count
    return counts


def record(figures: dict, scenario: str, **values) -> None:
    """Store one scenario's figures for the run's JSON and print them (visible with -s)."""
    figures[scenario] = values
    print(f"\n[reliability] {scenario}: " + json.dumps(values, ensure_ascii=False))


def assert_no_secret(text: str, where: str) -> None:
    """Fail if any configured secret appears in text."""
    for secret in SECRETS:
        assert secret not in text, f"a secret leaked into {where}"


def assert_logs_clean(folder: Path) -> int:
    """Fail if a secret appears in any *.log a child process wrote in folder; return how many were read."""
    logs = sorted(folder.glob("*.log"))
    for log in logs:
        assert_no_secret(log.read_text(errors="replace"), f"the process log {log.name}")
    return len(logs)

