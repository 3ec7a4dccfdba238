"""Tracked-link redirects (/r/<token>) through gunicorn while a broadcast runs: p50/p95/p99 of a click burst.

A fresh database, --users recipients and a running text broadcast with a
tracked link button (PUBLIC_URL set), pumped in this process against the
simulator (Telegram's limits, --latency ms). Once the broadcast has started,
--clicks GETs of /r/<token> (every --repeat-th one a second click of a
recipient already clicked) go from --threads client threads to
`gunicorn -w --workers wsgi:app`, redirects not followed. Afterwards the job's
counters must say exactly what was sent: every click in clicks_total, each
recipient once in clicks_unique; the broadcast must have kept sending.

    .venv/bin/python -m bench.clicks [--db sqlite|mariadb|both] [--clicks 500] [--threads 20] [--workers 2]
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

if __package__ in (None, ""):
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import requests

from bench.common import (
    BUTTON_URL,
    Simulator,
    bound_app,
    create_text_job,
    db_choices,
    db_kinds,
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

COLUMNS = ["db", "workers", "threads", "clicks", "ok_302", "errors", "clicks_s", "p50_ms", "p95_ms", "p99_ms",
           "max_ms", "unique", "counted_total", "counted_unique", "sent_during", "wall_s"]
# The broadcast must be sending when the burst starts: wait for this many copies first.
STARTED_AFTER = 20
START_SECONDS = 60
CLICK_TIMEOUT = 30


def tokens(job_id: int) -> list[str]:
    """Return every item's token, in item id order (as the pump signs them)."""
    from sqlalchemy import select

    from app.extensions import db
    from app.models import BroadcastJobItem as I  # noqa: N817
    from app.services.broadcast.reporting import clicks

    rows = db.session.execute(select(I.id, I.user_id).where(I.job_id == job_id).order_by(I.id)).all()
    db.session.commit()
    key = clicks._key()
    return [clicks.make_token(key, job_id, item_id, user_id) for item_id, user_id in rows]


def sent_so_far(job_id: int) -> int:
    """Return the job's committed sent counter."""
    from app.extensions import db
    from app.models import BroadcastJob

    db.session.expire_all()
    n = db.session.get(BroadcastJob, job_id).sent_count
    db.session.commit()
    return n


def burst(port: int, paths: list[str], threads: int) -> tuple[list[float], dict, float]:
    """GET every path from a thread pool (no redirect followed); return latencies (ms), statuses, wall time."""
    local = threading.local()

    def get(path: str):
        session = getattr(local, "session", None) or requests.Session()
        local.session = session
        t = time.perf_counter()
        try:
            r = session.get(f"http://127.0.0.1:{port}{path}", allow_redirects=False, timeout=CLICK_TIMEOUT)
            status = r.status_code if r.status_code != 302 or r.headers["Location"] == BUTTON_URL else "bad_location"
        except requests.RequestException as exc:
            status = type(exc).__name__
        return (time.perf_counter() - t) * 1000, status

    started = time.monotonic()
    with ThreadPoolExecutor(max_workers=threads) as pool:
        results = list(pool.map(get, paths))
    wall = time.monotonic() - started
    statuses: dict = {}
    for _, status in results:
        statuses[status] = statuses.get(status, 0) + 1
    return [ms for ms, _ in results], statuses, wall


def run(kind: str, url: str, args) -> dict:
    """One burst on one database while a tracked broadcast pumps in a thread of this process."""
    from app.extensions import db
    from app.models import BroadcastJob
    from app.services.broadcast.jobs import control
    from app.services.broadcast.sending.drain import pump

    settings = engine_settings()
    with Simulator(**telegram_limits(args.latency)) as sim, bound_app(url, sim.base_url) as app:
        insert_users(args.users)
        port = free_port()
        gunicorn = start_gunicorn(url, sim.base_url, args.workers, port, channel=False)
        # A plain id, never the ORM object: the pump thread reading job.id would lazy-load it through this
        # thread's session once expire_all() expired it, and two threads in one session fail (then hang).
        job_id = create_text_job(settings, tracking=True).id
        signed = tokens(job_id)
        done, stops = threading.Event(), []

        def pump_loop():
            # Pump calls back to back, as cron would, until the burst is over or the job ends.
            with app.app_context():
                while not done.is_set():
                    stops.append(pump(job_id, 5, settings=settings).stop)
                    if stops[-1] in ("done", "cancelled"):
                        return
                    if stops[-1] != "budget":
                        time.sleep(0.2)

        pumper = threading.Thread(target=pump_loop)
        pumper.start()
        try:
            deadline = time.monotonic() + START_SECONDS
            while sent_so_far(job_id) < STARTED_AFTER:
                if time.monotonic() > deadline:
                    raise RuntimeError(f"the broadcast did not start sending (pump stops: {stops})")
                time.sleep(0.05)
            unique = [signed[i % len(signed)] for i in range(args.clicks - args.clicks // args.repeat)]
            paths = []
            for i, token in enumerate(unique):
                paths.append(f"/r/{token}")
                if (i + 1) % (args.repeat - 1) == 0 and len(paths) < args.clicks:
                    paths.append(f"/r/{unique[i // 2]}?next=https://evil.example")  # a second click, a bogus query
            paths = paths[:args.clicks]
            before = sent_so_far(job_id)
            latencies, statuses, wall = burst(port, paths, args.threads)
            during = sent_so_far(job_id) - before
        finally:
            done.set()
            control.cancel_job(job_id)
            pumper.join(60)
            stop_gunicorn(gunicorn)
        db.session.expire_all()
        row = db.session.get(BroadcastJob, job_id)
        counted_total, counted_unique = row.clicks_total, row.clicks_unique
        db.session.commit()
    ok = statuses.get(302, 0)
    return {"db": kind, "workers": args.workers, "threads": args.threads, "clicks": len(latencies), "ok_302": ok,
            "errors": len(latencies) - ok, "clicks_s": round(ok / wall, 1),
            "p50_ms": round(statistics.median(latencies), 1), "p95_ms": pct(latencies, 95),
            "p99_ms": pct(latencies, 99), "max_ms": round(max(latencies), 1), "unique": len(set(unique)),
            "counted_total": counted_total, "counted_unique": counted_unique, "sent_during": during,
            "wall_s": round(wall, 2), "statuses": statuses, "pump_stops": ",".join(map(str, stops))}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    db_choices(parser, default="both", both=True)
    parser.add_argument("--users", type=int, default=2000, help="the broadcast's recipients")
    parser.add_argument("--clicks", type=int, default=500)
    parser.add_argument("--threads", type=int, default=20)
    parser.add_argument("--workers", type=int, default=2, help="gunicorn sync workers")
    parser.add_argument("--latency", type=float, default=50, help="simulated Bot API latency (ms)")
    parser.add_argument("--repeat", type=int, default=5, help="one click in this many is a recipient's second")
    args = parser.parse_args(argv)
    rows = []
    for kind in db_kinds(args.db):
        with fresh_database(kind) as url:
            migrate(url)
            rows.append(run(kind, url, args))
            print_table(rows[-1:], COLUMNS)
    print_table(rows, COLUMNS, title=f"/r/<token> through gunicorn -w {args.workers}, {args.threads} client "
                                     f"threads, while a tracked broadcast sends (simulator, {args.latency:g} ms)")
    write_results("clicks", args, rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
