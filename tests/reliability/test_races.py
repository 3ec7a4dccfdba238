"""Races: concurrent /internal/pump calls through gunicorn plus CLI pumps, all on one job.

The simulator's bot-wide limit is switched off for this scenario, so two pumps
sending at once could not hide behind its 429s: they would show up as a busiest
second near twice the configured rate. Exactly one pump may send at a time.
"""
from __future__ import annotations

import json
import threading
import time
from collections import Counter

import pytest
import requests

from app.models.broadcast import COMPLETED, SENT
from tests import forkserver
from tests.broadcast.helpers import create_text_job, create_users, reload
from tests.conftest import PUMP_TOKEN
from tests.reliability.helpers import (
    BIN,
    ROOT,
    assert_final,
    assert_logs_clean,
    assert_no_secret,
    process_env,
    record,
    start_gunicorn,
    stop_process,
    use_settings,
)

USERS = 250
RATE = 30  # the highest allowed: rate x 1.1 then leaves 3 sends of slack for pump handovers
HTTP_CALLERS = 4
CLI_PUMPERS = 2
DEADLINE_SECONDS = 180  # a generous bound; the job needs about USERS / RATE = 8 s of sending


class Race:
    """Shared tallies of every pump call's outcome."""

    def __init__(self):
        self.lock = threading.Lock()
        self.stops: Counter[str] = Counter()
        self.http_statuses: Counter[int] = Counter()
        self.cli_exit_codes: Counter[int] = Counter()
        self.finished = threading.Event()
        self.deadline = time.monotonic() + DEADLINE_SECONDS
        self.errors: list[BaseException] = []

    def run(self, target, *args) -> threading.Thread:
        """Start target(*args) in a thread that records any exception instead of losing it."""
        def guarded() -> None:
            try:
                target(*args)
            except BaseException as exc:  # noqa: BLE001 - reported by the test's assertions
                with self.lock:
                    self.errors.append(exc)
                self.finished.set()

        thread = threading.Thread(target=guarded)
        thread.start()
        return thread

    def note(self, report: dict) -> None:
        """Count each job result's stop; the job is over once a pump sees it not running."""
        with self.lock:
            for result in report["jobs"]:
                self.stops[result["stop"]] += 1
                if result["job"].get("status") not in (None, "running"):
                    self.finished.set()
            if not report["jobs"]:
                self.finished.set()  # nothing running any more

    def going(self) -> bool:
        """Tell callers to keep pumping: the job is not over and the deadline has not passed."""
        return not self.finished.is_set() and time.monotonic() < self.deadline


def http_caller(base: str, race: Race) -> None:
    """POST /internal/pump?seconds=3 again and again until the job is over."""
    session = requests.Session()
    while race.going():
        response = session.post(f"{base}/internal/pump", params={"seconds": "3"},
                                headers={"Authorization": f"Bearer {PUMP_TOKEN}"}, timeout=60)
        with race.lock:
            race.http_statuses[response.status_code] += 1
        assert_no_secret(response.text, "a /internal/pump answer")
        if response.status_code == 200:
            race.note(response.json())
            if any(r["stop"] == "lease_miss" for r in response.json()["jobs"]):
                time.sleep(0.05)  # like cron coming back: keep hammering, but leave the 2 cores some air


def cli_pumper(job_id: int, env: dict, race: Race, log_path) -> None:
    """Run `flask broadcast pump --job ID --seconds 3` again and again until the job is over."""
    while race.going():
        with open(log_path, "ab") as log:
            done = forkserver.run([str(BIN / "flask"), "--app", "wsgi", "broadcast", "pump", "--job", str(job_id),
                                   "--seconds", "3"], cwd=ROOT, env=env, stderr=log,
                                  timeout=120)
        with race.lock:
            race.cli_exit_codes[done.returncode] += 1
        if done.returncode == 0:
            race.note(json.loads(done.stdout))


@pytest.mark.slow
def test_http_and_cli_pumps_racing_on_one_job_send_one_at_a_time(app, simulator, database_url, tmp_path, figures):
    started = time.monotonic()
    create_users(USERS)
    settings = use_settings(broadcast_rate_per_second=RATE)
    simulator.configure(global_rate=0, latency_ms=20)
    job_id = create_text_job(settings=settings).id
    env = process_env(database_url, simulator)
    server, base = start_gunicorn(env, tmp_path / "gunicorn.log")
    race = Race()
    try:
        threads = [race.run(http_caller, base, race) for _ in range(HTTP_CALLERS)]
        threads += [race.run(cli_pumper, job_id, env, race, tmp_path / f"cli{i}.log") for i in range(CLI_PUMPERS)]
        for thread in threads:
            thread.join(DEADLINE_SECONDS + 60)
    finally:
        stop_process(server)

    assert not race.errors, race.errors
    job = reload(job_id)
    counts = assert_final(job_id, simulator)
    stats = simulator.stats()
    assert job.status == COMPLETED and counts == {SENT: USERS}, (job.status, counts, race.stops)
    assert set(race.http_statuses) == {200}, race.http_statuses
    assert set(race.cli_exit_codes) == {0}, race.cli_exit_codes
    assert race.stops["done"] == 1, race.stops
    assert race.stops["lease_miss"] >= 1, f"no pump ever found the lease taken: no race happened {race.stops}"
    assert stats["busiest_second"] <= RATE * 1.1, stats["busiest_second"]
    assert stats["429_total"] == 0
    assert assert_logs_clean(tmp_path) == 1 + CLI_PUMPERS
    record(figures, "races", users=USERS, rate=RATE, gunicorn_workers=2, http_callers=HTTP_CALLERS,
           cli_pumpers=CLI_PUMPERS, http_calls=sum(race.http_statuses.values()),
           cli_runs=sum(race.cli_exit_codes.values()), stops=dict(race.stops),
           busiest_second=stats["busiest_second"], duplicates=0, sent=counts[SENT],
           total_seconds=round(time.monotonic() - started, 1))
