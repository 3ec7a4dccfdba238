"""The burst: new users' /start through gunicorn workers while a broadcast runs at full speed.

A simulator enforcing Telegram's limits (30/s bot-wide, 1/s per chat, latency
± 10 %), a fresh database, `gunicorn -w 4 wsgi:app` with the production
environment (bench/common.py `start_gunicorn`), and a broadcaster in this
process. Once the broadcast has run --warmup seconds, a thread pool POSTs
--starts distinct /start updates to /telegram/webhook. Measured: webhook
p50/p95 during the broadcast, the broadcast's rate before, during and after
the burst (simulator timestamps), 429s, calls made while a retry_after was
running, the busiest 1 s of all counted calls, welcomes per new user.

Broadcasters (--broadcaster, several allowed, each against a fresh simulator,
database and gunicorn):
  engine   pump_all() with the app's client: every process draws on the bot-wide budget (the default)
  ptb      python-telegram-bot 22's AIORateLimiter sending the same broadcast (bench/alternatives.py)

    .venv/bin/python -m bench.budget_burst [--db mariadb] [--users 1200] [--starts 300] [--broadcaster engine ptb]
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

if __package__ in (None, ""):
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import requests

from bench import alternatives, profiling
from bench.common import (
    ADMIN_ID,
    BASE_ID,
    POST_TIMEOUT,
    WEBHOOK_SECRET,
    Simulator,
    bound_app,
    create_text_job,
    db_choices,
    engine_settings,
    free_port,
    fresh_database,
    insert_users,
    migrate,
    pct,
    start_gunicorn,
    stop_gunicorn,
    telegram_limits,
)
from bench.output import print_table, write_results

STARTS_BASE = BASE_ID + 10_000_000  # new users: never in the broadcast's audience
COLUMNS = ["broadcaster", "latency_ms", "starts", "ok", "welcomed", "max_welcomes", "p50_ms", "p95_ms", "max_ms",
           "bc_before_s", "bc_during_s", "bc_after_s", "all_during_s", "429s", "early_calls", "busiest_all",
           "edits", "bc_sent", "wall_s"]


def run_broadcast(kind: str, app, users: list[int], settings: dict, stop_at: float, out: dict) -> None:
    """Send the broadcast to every user (in a thread), by the chosen broadcaster, until done or stop_at."""
    if kind == "ptb":
        out.update(alternatives.ptb_rate_limited(app.config["TELEGRAM_API_BASE_URL"], users,
                                                 stop_at - time.monotonic()))
        return
    from app.services.broadcast.sending.drain import pump_all

    with app.app_context():
        stops = []
        while time.monotonic() < stop_at:
            results = pump_all(min(57, stop_at - time.monotonic()), settings=settings)
            stops += [r.stop for r in results]
            if not results or results[-1].stop in ("done", "paused", "cancelled"):
                break
        out["stops"] = ",".join(stops)


def burst(port: int, starts: int, threads: int, max_seconds: float) -> tuple[list[float], Counter, float, float]:
    """POST `starts` distinct /start updates from a thread pool; return latencies (ms), statuses, start, end."""
    from app.simulator.updates import message_update

    url = f"http://127.0.0.1:{port}/telegram/webhook"
    headers = {"X-Telegram-Bot-Api-Secret-Token": WEBHOOK_SECRET}
    bodies = [message_update(STARTS_BASE + i, text="/start", first_name=f"تازه {i}", update_id=900_000 + i)
              for i in range(starts)]
    local = threading.local()
    began = time.time()

    def post(body: dict):
        if time.time() - began > max_seconds:
            return None, None
        session = getattr(local, "session", None) or requests.Session()
        local.session = session
        t = time.perf_counter()
        try:
            status = session.post(url, json=body, headers=headers, timeout=POST_TIMEOUT).status_code
        except requests.RequestException as exc:
            status = type(exc).__name__
        return (time.perf_counter() - t) * 1000, status

    with ThreadPoolExecutor(max_workers=threads) as pool:
        results = [r for r in pool.map(post, bodies) if r[1] is not None]
    return [ms for ms, _ in results], Counter(s for _, s in results), began, time.time()


def rate_between(times: list[float], start: float, end: float) -> float:
    """Deliveries per second with timestamps in [start, end)."""
    n = sum(1 for t in times if start <= t < end)
    return n / (end - start) if end > start else 0.0


def scenario(kind: str, db_kind: str, args) -> dict:
    """One broadcaster: fresh database, simulator and gunicorn; broadcast, then the burst; read the simulator."""
    settings = engine_settings()
    sim_cfg = telegram_limits(args.latency)
    with fresh_database(db_kind) as url, Simulator(**sim_cfg) as sim:
        migrate(url)
        port = free_port()
        gunicorn = start_gunicorn(url, sim.base_url, args.workers, port, channel=not args.no_channel)
        meter = profiling.CpuMeter(sim=sim.proc.pid, loadgen=os.getpid(),
                                   **{f"worker{i + 1}": pid for i, pid in enumerate(profiling.children(gunicorn.pid))})
        try:
            with bound_app(url, sim.base_url) as app:
                users = insert_users(args.users)
                if kind != "ptb":
                    from app.services.broadcast.jobs.control import set_progress_message
                    from app.services.telegram_factory import get_client

                    job = create_text_job(settings)
                    message = get_client(settings).call("sendMessage", {"chat_id": ADMIN_ID, "text": "progress"})
                    set_progress_message(job.id, ADMIN_ID, message["message_id"])
                out: dict = {}
                meter.start()
                started = time.time()
                sender = threading.Thread(target=run_broadcast, daemon=True,
                                          args=(kind, app, users, settings, time.monotonic() + args.max_seconds, out))
                sender.start()
                time.sleep(args.warmup)
                latencies, statuses, b0, b1 = burst(port, args.starts, args.threads, args.max_seconds)
                sender.join(timeout=args.max_seconds + 60)
                wall = time.time() - started
                cpu = meter.stop()
        finally:
            stop_gunicorn(gunicorn)
        stats = sim.stats()
        deliveries = sim.deliveries()
    audience = set(range(BASE_ID, BASE_ID + args.users))
    bc = sorted(d["t"] for d in deliveries if d["chat_id"] in audience)
    every = sorted(d["t"] for d in deliveries)
    welcomes = Counter(d["chat_id"] for d in deliveries if d["chat_id"] >= STARTS_BASE)
    first = bc[0] if bc else started
    last = bc[-1] if bc else started
    ok = statuses.get(200, 0)
    return {"broadcaster": kind, "db": db_kind, "latency_ms": args.latency, "workers": args.workers,
            "threads": args.threads, "starts": len(latencies), "ok": ok, "statuses": dict(statuses),
            "welcomed": len(welcomes), "max_welcomes": max(welcomes.values(), default=0),
            "p50_ms": round(statistics.median(latencies), 1) if latencies else 0.0, "p95_ms": pct(latencies, 95),
            "max_ms": round(max(latencies, default=0), 1), "burst_s": round(b1 - b0, 1),
            "bc_before_s": round(rate_between(bc, first, b0), 2), "bc_during_s": round(rate_between(bc, b0, b1), 2),
            "bc_after_s": round(rate_between(bc, b1, last), 2) if last > b1 + 1 else "ended in burst",
            "all_during_s": round(rate_between(every, b0, b1), 2),
            "429s": stats["429_total"], "429_global": stats["429_global"], "429_per_chat": stats["429_per_chat"],
            "early_calls": stats["calls_during_retry_after"], "busiest_all": stats["busiest_second_all"],
            "edits": stats["calls"].get("editMessageText", 0), "bc_sent": len(set(
                d["chat_id"] for d in deliveries if d["chat_id"] in audience)),
            "bc_dups": len(bc) - len({d["chat_id"] for d in deliveries if d["chat_id"] in audience}),
            "stops": out.get("stops", ""), "sim_calls": stats["calls"], "wall_s": round(wall, 1), **cpu}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    db_choices(parser, default="mariadb")
    parser.add_argument("--broadcaster", nargs="+", default=["engine"], choices=["engine", "ptb"])
    parser.add_argument("--users", type=int, default=1200, help="broadcast audience")
    parser.add_argument("--starts", type=int, default=300, help="new users sending /start in the burst")
    parser.add_argument("--threads", type=int, default=8, help="load generator threads (requests in flight)")
    parser.add_argument("--workers", type=int, default=4, help="gunicorn sync workers")
    parser.add_argument("--latency", type=float, default=80)
    parser.add_argument("--warmup", type=float, default=5, help="seconds of broadcast before the burst")
    parser.add_argument("--max-seconds", type=float, default=150, help="bound on the broadcast and on the burst")
    parser.add_argument("--no-channel", action="store_true", help="unset MAIN_CHANNEL_ID (no getChatMember)")
    args = parser.parse_args(argv)
    rows = []
    for kind in args.broadcaster:
        rows.append(scenario(kind, args.db, args))
        print_table(rows[-1:], COLUMNS)
    print_table(rows, COLUMNS, title=f"Burst: {args.starts} /start through gunicorn -w {args.workers} "
                                     f"({args.threads} client threads) during a {args.users}-user broadcast, "
                                     f"simulator 30/s at {args.latency:g} ms, db={args.db}; rates in msg/s")
    write_results("budget_burst", args, rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
