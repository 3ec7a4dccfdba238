"""A web worker's memory and threads through a day's work, served by gunicorn (1 sync worker) over real HTTP.

The app runs as production runs it (`gunicorn wsgi:app`, one sync worker,
as the tests start it) against the simulated Bot API and a fresh SQLite file
(or MariaDB with --db mariadb). The bench drives, in order:

  rest       the first /healthz answered
  webhooks   --users new users' /start POSTed to the webhook (4 at a time: a /start burst)
  broadcast  a broadcast to them all, drained by /internal/pump calls as cron makes them,
             its final summary and its results picture (drawn inside the web worker's request)
  chart      the admin's 📊 press on that broadcast, until the picture arrives
  export     the admin's CSV export of that broadcast's ledger, until the document arrives

After each phase it reads the worker's /proc/<pid>/status: VmRSS (resident
now), VmHWM (the most it has been) and Threads; during the /start burst, the
broadcast and 📊 it samples Threads every 10 ms and keeps the most, and the
largest RSS of a child of the worker (the picture's short-lived process). A CSV import
(`flask users import`) is a command in its own short-lived process, never a
web worker's work, so it is not a phase here.

--before REF runs the same day on the code of a git ref (exported to a temp
dir, same venv) and prints both side by side.

    .venv/bin/python -m bench.memory [--db sqlite|mariadb] [--users 300] [--before aa76256]
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor

if __package__ in (None, ""):
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import requests

from app.telegram.outbox import IDLE_EXIT_SECONDS
from bench.common import (
    ADMIN_ID,
    BASE_ID,
    PUMP_TOKEN,
    ROOT,
    TOKEN,
    WEBHOOK_SECRET,
    bound_app,
    create_text_job,
    db_choices,
    engine_settings,
    free_port,
    fresh_database,
    migrate,
)
from bench.output import print_table, write_results

PHASES = ("rest", "webhooks", "broadcast", "chart", "export")
WAIT_SECONDS = 120


def status_of(pid: int) -> dict:
    """Return a process's VmRSS and VmHWM (MB) and Threads from /proc/<pid>/status."""
    fields = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            key, _, value = line.partition(":")
            fields[key] = value.split()[0] if value.split() else ""
    return {"rss_mb": round(int(fields["VmRSS"]) / 1024, 1), "hwm_mb": round(int(fields["VmHWM"]) / 1024, 1),
            "threads": int(fields["Threads"])}


class ThreadPeak:
    """Sample a process's Threads, and its children's RSS (the picture's child), every 10 ms while a phase runs."""

    def __init__(self, pid: int):
        self.pid, self.most, self.child_mb, self._stop = pid, 0, 0.0, threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> ThreadPeak:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        while not self._stop.wait(0.01):
            self.most = max(self.most, status_of(self.pid)["threads"])
            for child in children(self.pid):  # the picture's child is started by the picture thread
                try:
                    self.child_mb = max(self.child_mb, status_of(child)["rss_mb"])
                except (OSError, KeyError):  # gone, or not yet a full process
                    pass


def children(pid: int) -> list[int]:
    """Return the child processes any thread of pid started."""
    found = []
    for task in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{task}/children") as f:
                found += [int(child) for child in f.read().split()]
        except OSError:  # the thread ended meanwhile
            pass
    return found


def start_web(code_dir: str, url: str, api_base: str) -> tuple[subprocess.Popen, str, int]:
    """Serve code_dir's wsgi:app with gunicorn (1 sync worker); return the master, its URL and the worker's pid."""
    port = free_port()
    env = dict(os.environ, DATABASE_URL=url, TELEGRAM_API_BASE_URL=api_base, TELEGRAM_BOT_TOKEN=TOKEN,
               WEBHOOK_SECRET=WEBHOOK_SECRET, PUMP_TOKEN=PUMP_TOKEN, ADMIN_IDS=str(ADMIN_ID), LOG_LEVEL="WARNING",
               RESULTS_PICTURE="on", PYTHONPATH=code_dir)
    exe = os.path.join(os.path.dirname(sys.executable), "gunicorn")
    proc = subprocess.Popen([exe, "--workers", "1", "--worker-class", "sync", "--bind", f"127.0.0.1:{port}",
                             "--timeout", "120", "--log-level", "warning", "wsgi:app"], cwd=code_dir, env=env)
    base = f"http://127.0.0.1:{port}"
    wait_for(lambda: _healthy(base), "gunicorn to answer /healthz")
    with open(f"/proc/{proc.pid}/task/{proc.pid}/children") as f:
        [worker] = [int(pid) for pid in f.read().split()]
    return proc, base, worker


def _healthy(base: str) -> bool:
    try:
        return requests.get(base + "/healthz", timeout=2).status_code == 200
    except requests.RequestException:
        return False


def wait_for(predicate, what: str) -> None:
    """Poll predicate until true; fail naming what never happened."""
    end = time.monotonic() + WAIT_SECONDS
    while time.monotonic() < end:
        if predicate():
            return
        time.sleep(0.05)
    raise SystemExit(f"timed out waiting for {what}")


def post(base: str, sim, update: dict) -> None:
    """POST an update to the webhook as Telegram would (the simulator learns of it first)."""
    from app.simulator.webhook import register_update

    register_update(sim.state, update)
    response = requests.post(base + "/telegram/webhook", data=json.dumps(update, ensure_ascii=False).encode(),
                             headers={"Content-Type": "application/json",
                                      "X-Telegram-Bot-Api-Secret-Token": WEBHOOK_SECRET}, timeout=60)
    response.raise_for_status()


def webhooks(base: str, sim, users: int) -> None:
    """Send users new users' /start, 4 at a time."""
    from app.simulator.updates import message_update

    with ThreadPoolExecutor(4) as pool:
        list(pool.map(lambda uid: post(base, sim, message_update(uid, "/start")), range(BASE_ID, BASE_ID + users)))


def broadcast(base: str, sim, url: str) -> int:
    """Create a broadcast to everyone and drain it with /internal/pump; wait for its summary's picture."""
    from app.extensions import db
    from app.models import BroadcastJob

    with bound_app(url, sim.base_url):
        job_id = create_text_job(engine_settings()).id
    while True:
        requests.get(base + "/internal/pump", params={"seconds": 5}, timeout=60,
                     headers={"Authorization": f"Bearer {PUMP_TOKEN}"}).raise_for_status()
        with bound_app(url, sim.base_url):
            if db.session.get(BroadcastJob, job_id).status not in ("queued", "running"):
                break
    wait_for(lambda: sim.deliveries("sendPhoto", ADMIN_ID), "the final summary's picture")
    return job_id


def press(base: str, sim, data: str, method: str, count: int) -> None:
    """Press an admin button and wait until the admin got count deliveries of method."""
    from app.simulator.updates import callback_update

    post(base, sim, callback_update(ADMIN_ID, data, ADMIN_ID, 1))
    wait_for(lambda: len(sim.deliveries(method, ADMIN_ID)) >= count, f"{method} after {data}")


def run_day(code_dir: str, kind: str, users: int, label: str) -> list[dict]:
    """Serve code_dir and drive the day's phases; return one row per phase."""
    from app.simulator import SimulatorServer

    sim = SimulatorServer(token=TOKEN, latency_ms=20, global_rate=30).start()
    rows: list[dict] = []
    try:
        with fresh_database(kind) as url:
            migrate(url)
            proc, base, worker = start_web(code_dir, url, sim.base_url)
            try:
                def note(phase: str, peak: ThreadPeak | None = None) -> None:
                    row = {"code": label, "db": kind, "phase": phase, **status_of(worker)}
                    row["threads_peak"] = peak.most if peak is not None else row["threads"]
                    row["child_mb"] = peak.child_mb if peak is not None else ""
                    row["master_threads"] = status_of(proc.pid)["threads"]
                    rows.append(row)

                note("rest")
                with ThreadPeak(worker) as peak:
                    webhooks(base, sim, users)
                note(f"webhooks ({users} /start)", peak)
                with ThreadPeak(worker) as peak:
                    job_id = broadcast(base, sim, url)
                note("broadcast + summary picture", peak)
                with ThreadPeak(worker) as peak:
                    press(base, sim, f"j.chart:{job_id}", "sendPhoto", 2)
                note("chart (📊)", peak)
                press(base, sim, f"j.export:{job_id}", "sendDocument", 1)
                note("export (CSV)")
                time.sleep(IDLE_EXIT_SECONDS + 2)  # the late outbox's thread ends when idle
                note("rest after the day")
            finally:
                proc.terminate()
                proc.wait(30)
    finally:
        sim.stop()
    return rows


def exported(ref: str, into: str) -> str:
    """Write the tree of git ref into a directory; return it."""
    archive = subprocess.run(["git", "archive", ref], cwd=ROOT, capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", into], input=archive, check=True)
    return into


def main(argv: list[str] | None = None) -> int:
    """Run the day on this code (and on --before's) and print the worker's memory and threads per phase."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    db_choices(parser)
    parser.add_argument("--users", type=int, default=300, help="new users' /start, then the broadcast's audience")
    parser.add_argument("--before", metavar="REF", help="also run the day on this git ref's code, side by side")
    args = parser.parse_args(argv)
    rows = []
    if args.before:
        with tempfile.TemporaryDirectory(prefix="upk-before-") as tmp:
            rows += run_day(exported(args.before, tmp), args.db, args.users, args.before[:10])
    rows += run_day(ROOT, args.db, args.users, "this code")
    columns = ["code", "db", "phase", "rss_mb", "hwm_mb", "threads", "threads_peak", "master_threads", "child_mb"]
    print_table(rows, columns, "The web worker through a day (gunicorn, 1 sync worker; goals: ≤ 100 MB, ≤ 8 threads)")
    mine = [r for r in rows if r["code"] == "this code"]
    fits = max(r["hwm_mb"] for r in mine) <= 100 and max(r["threads_peak"] for r in mine) <= 8
    print(f"this code {'fits' if fits else 'does NOT fit'}: peak RSS {max(r['hwm_mb'] for r in mine)} MB, "
          f"peak threads {max(r['threads_peak'] for r in mine)}")
    write_results("memory", args, rows)
    return 0 if fits else 1


if __name__ == "__main__":
    sys.exit(main())
