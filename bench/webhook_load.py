"""/start through gunicorn (2 sync workers) on MariaDB, loaded from loopback.

Starts a simulator process, a fresh migrated database, and
`gunicorn -w 2 -b 127.0.0.1:PORT wsgi:app` with the app's real environment
(DATABASE_URL, TELEGRAM_API_BASE_URL, TELEGRAM_BOT_TOKEN, WEBHOOK_SECRET,
PUMP_TOKEN, ADMIN_IDS, MAIN_CHANNEL_ID). A thread pool then POSTs --updates
distinct /start updates (distinct update_id and user each) to /telegram/webhook,
bounded by --max-seconds. Each /start stores the user, answers the welcome
(sendMessage, before the webhook answers) and asks getChatMember once.

The simulator's bot-wide 30/s limit is off by default (--sim-global-rate 0):
this measures the web app; with it on, welcome replies above 30/s get 429s.

    .venv/bin/python -m bench.webhook_load [--db mariadb] [--updates 2000] [--threads 16]
"""
from __future__ import annotations

import argparse
import os
import socket
import statistics
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

if __package__ in (None, ""):
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import requests

from bench import profiling
from bench.common import (
    ADMIN_ID,
    BASE_ID,
    PUMP_TOKEN,
    RESULTS,
    ROOT,
    TOKEN,
    WEBHOOK_SECRET,
    Simulator,
    db_choices,
    fresh_database,
    migrate,
)
from bench.output import print_table, write_results

COLUMNS = ["db", "workers", "threads", "updates", "ok", "errors", "updates_s", "p50_ms", "p90_ms", "p99_ms",
           "max_ms", "welcomes", "users_stored", "wall_s"]
MAIN_CHANNEL_ID = -1001234567890
# gunicorn imports the app and binds in a second or two; a start slower than this is broken.
GUNICORN_START_SECONDS = 30
# How often, and how patiently, /healthz is asked while gunicorn starts.
HEALTH_POLL_SECONDS, HEALTH_TIMEOUT = 0.2, 2
# A webhook POST still unanswered this long is counted as an error, not waited for.
POST_TIMEOUT = 30
# SIGTERM lets workers finish their request; one not gone after this long is stuck.
GUNICORN_STOP_SECONDS = 30


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_gunicorn(url: str, api_base: str, workers: int, port: int, channel: bool) -> subprocess.Popen:
    """Start gunicorn with the app's production environment; wait for /healthz."""
    env = dict(os.environ, DATABASE_URL=url, TELEGRAM_API_BASE_URL=api_base, TELEGRAM_BOT_TOKEN=TOKEN,
               WEBHOOK_SECRET=WEBHOOK_SECRET, PUMP_TOKEN=PUMP_TOKEN, ADMIN_IDS=str(ADMIN_ID), LOG_LEVEL="WARNING")
    if channel:
        env["MAIN_CHANNEL_ID"] = str(MAIN_CHANNEL_ID)
    exe = os.path.join(os.path.dirname(sys.executable), "gunicorn")
    proc = subprocess.Popen([exe, "-w", str(workers), "-b", f"127.0.0.1:{port}", "--log-level", "warning",
                             "wsgi:app"], cwd=ROOT, env=env)
    deadline = time.monotonic() + GUNICORN_START_SECONDS
    while time.monotonic() < deadline:
        try:
            if requests.get(f"http://127.0.0.1:{port}/healthz", timeout=HEALTH_TIMEOUT).status_code < 500:
                return proc
        except requests.RequestException:
            pass
        if proc.poll() is not None:
            raise RuntimeError("gunicorn exited during start-up")
        time.sleep(HEALTH_POLL_SECONDS)
    proc.terminate()
    raise RuntimeError(f"gunicorn did not answer /healthz within {GUNICORN_START_SECONDS} s")


def stop_gunicorn(proc: subprocess.Popen) -> None:
    """Stop gunicorn and wait for it to exit."""
    proc.terminate()
    proc.wait(timeout=GUNICORN_STOP_SECONDS)


def start_update(i: int) -> dict:
    """A private /start from user BASE_ID + i with update_id i + 1."""
    from app.simulator.updates import message_update

    return message_update(BASE_ID + i, text="/start", first_name=f"کاربر {i}", update_id=i + 1)


def load(port: int, updates: int, threads: int, max_seconds: float) -> tuple[list[float], dict, float]:
    """POST the updates from a thread pool; return latencies (ms), status counts and wall time."""
    url = f"http://127.0.0.1:{port}/telegram/webhook"
    headers = {"X-Telegram-Bot-Api-Secret-Token": WEBHOOK_SECRET}
    bodies = [start_update(i) for i in range(updates)]
    sessions: dict[int, requests.Session] = {}
    started = time.monotonic()

    def post(body: dict):
        if time.monotonic() - started > max_seconds:
            return None, None
        import threading

        session = sessions.setdefault(threading.get_ident(), requests.Session())
        t = time.perf_counter()
        try:
            r = session.post(url, json=body, headers=headers, timeout=POST_TIMEOUT)
            status = r.status_code
        except requests.RequestException as exc:
            status = type(exc).__name__
        return (time.perf_counter() - t) * 1000, status

    with ThreadPoolExecutor(max_workers=threads) as pool:
        results = list(pool.map(post, bodies))
    wall = time.monotonic() - started
    for s in sessions.values():
        s.close()
    statuses: dict = {}
    latencies = []
    for ms, status in results:
        if status is None:
            continue
        statuses[status] = statuses.get(status, 0) + 1
        latencies.append(ms)
    return latencies, statuses, wall


def count_users(url: str) -> int:
    from sqlalchemy import create_engine, text

    engine = create_engine(url)
    with engine.connect() as conn:
        n = conn.execute(text("SELECT COUNT(*) FROM users")).scalar()
    engine.dispose()
    return n


def pct(values: list[float], p: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))], 1)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    db_choices(parser, default="mariadb")
    parser.add_argument("--updates", type=int, default=2000)
    parser.add_argument("--threads", type=int, default=16)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--max-seconds", type=float, default=120)
    parser.add_argument("--latency", type=float, default=0, help="simulated Bot API latency (ms)")
    parser.add_argument("--sim-global-rate", type=int, default=0)
    parser.add_argument("--profile", action="store_true", help="sample the gunicorn workers with py-spy")
    parser.add_argument("--no-channel", action="store_true", help="unset MAIN_CHANNEL_ID (no getChatMember)")
    args = parser.parse_args(argv)
    with fresh_database(args.db) as url, Simulator(global_rate=args.sim_global_rate, latency_ms=args.latency,
                                                   per_chat_limits=True) as sim:
        migrate(url)
        port = free_port()
        gunicorn = start_gunicorn(url, sim.base_url, args.workers, port, not args.no_channel)
        workers = {f"worker{i + 1}": pid for i, pid in enumerate(profiling.children(gunicorn.pid))}
        meter = profiling.CpuMeter(sim=sim.proc.pid, db=profiling.find_pid("mariadbd", "mysqld")
                                   if args.db == "mariadb" else None, loadgen=os.getpid(), **workers)
        spies, profiles = [], {}
        try:
            if args.profile:
                for name, pid in workers.items():
                    path = os.path.join(RESULTS, f"webhook-{name}.collapsed")
                    spies.append((name, path, profiling.PySpy(pid, path).__enter__()))
            meter.start()
            latencies, statuses, wall = load(port, args.updates, args.threads, args.max_seconds)
            cpu = meter.stop()
            for name, path, spy in spies:
                spy.__exit__(None, None, None)
                profiles[name] = profiling.summarize(path)
                profiling.print_profile(f"gunicorn {name}", profiles[name])
        finally:
            stop_gunicorn(gunicorn)
        welcomes = len({d["chat_id"] for d in sim.deliveries("sendMessage") if d["chat_id"] >= BASE_ID})
        stats = sim.stats()
        users = count_users(url)
    ok = statuses.get(200, 0)
    row = {"db": args.db, "workers": args.workers, "threads": args.threads, "updates": len(latencies), "ok": ok,
           "errors": len(latencies) - ok, "updates_s": round(ok / wall, 1),
           "p50_ms": round(statistics.median(latencies), 1) if latencies else 0.0,
           "p90_ms": pct(latencies, 90), "p99_ms": pct(latencies, 99), "max_ms": round(max(latencies or [0]), 1),
           "welcomes": welcomes, "users_stored": users, "wall_s": round(wall, 1), "statuses": statuses,
           "sim_calls": stats["calls"], "sim_429s": stats["429_total"], **cpu}
    print_table([row], COLUMNS, title=f"/start through gunicorn -w {args.workers} ({args.db}), "
                                      f"{args.threads} client threads on loopback")
    name = "webhook_load" if args.threads == 16 else f"webhook_load-t{args.threads}"
    write_results(name, args, [row], profiles=profiles)
    return 0


if __name__ == "__main__":
    sys.exit(main())
