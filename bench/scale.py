"""A bot of 10,000 / 100,000 / 1,000,000 users on one database: population, webhook, admin reads, export, pump, purge.

For each --sizes N, on a fresh database (MariaDB bench_<random>, or a SQLite
file), dropped afterwards:

1. seeds N users straight into `users` (multi-row INSERTs; languages, sources,
   start and last-seen dates varied so every filter selects a part);
2. population: `create_job` to everyone (chunks of 20,000 users on SQLite,
   100,000 on MariaDB, each its own transaction) — and, when --webhook, at the same time a burst of block /
   unblock / `/start` updates of users in that audience from --threads client
   threads through `gunicorn -w 4 wsgi:app` (against the simulated Bot API):
   p50 / p95 / max of the updates answered during the population; also the
   old single `INSERT … SELECT` timed on a draft for comparison;
3. admin reads at N users and N items: /stats as shown (`stats.figures`: a live
   count below 50,000 users, else the snapshot) and the live recount
   (`user_stats` + `source_stats`, what cron's housekeeping runs),
   the job view (`job_status` + `offers`), `broadcast status`, the pre-send
   count for every filter, the recent-jobs list (median of 3 each);
4. the pump's database cost per item with N pending items: claim
   (`next_pending_named`), mark (`mark_sending` + COMMIT), record (`set_sent`
   + counters + COMMIT), batches of 100;
5. export of the N-item ledger as CSV to a file: time and tracemalloc peak
   (with --export-only on MariaDB, also the export written row by row in Python, as before MySQL wrote the lines);
6. purge of the N-item job (finished 3 days ago) while a claim / mark / record
   loop keeps sending another job: the longest DELETE, the total time, the
   loop's slowest batch before and during, and the table's size in use before
   population, with the items, after the purge.

    .venv/bin/python -m bench.scale --db mariadb --sizes 10000 100000 1000000
    .venv/bin/python -m bench.scale --db sqlite --sizes 10000 --no-webhook
    .venv/bin/python -m bench.scale --db both --sizes 10000 100000 1000000 --reads-only   # 1, 2 (no burst), 3
    .venv/bin/python -m bench.scale --db mariadb --sizes 100000 1000000 --population-only  # 1, 2
    .venv/bin/python -m bench.scale --db both --sizes 10000 100000 1000000 --export-only  # 1, 2 (no burst), 5
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import threading
import time
import tracemalloc

if __package__ in (None, ""):
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import requests

from bench.common import (
    ADMIN_ID,
    BASE_ID,
    WEBHOOK_SECRET,
    Simulator,
    bound_app,
    db_choices,
    db_kinds,
    engine_settings,
    free_port,
    fresh_database,
    migrate,
    start_gunicorn,
    stop_gunicorn,
)
from bench.output import print_table, write_results

COLUMNS = ["db", "users", "populate_s", "single_stmt_s", "hook_n", "hook_p50_ms", "hook_p95_ms", "hook_max_ms",
           "stats_s", "stats_live_s", "job_view_s", "status_s", "presend_max_s", "list_s", "export_s", "export_peak_mb",
           "export_python_s",
           "pump_ms_item", "purge_s", "purge_max_stmt_s", "loop_max_before_ms", "loop_max_during_ms",
           "mb_before", "mb_items", "mb_after_purge"]
LANGS = ("fa", "fa-IR", "en", "en-US", None, "de")
SOURCES = (None, None, "ads", "channel", "friend")
FILTERS = {  # name: Audience keyword arguments
    "all": {}, "non_members": {"base": "non_members"}, "lang=fa": {"langs": ("fa",)},
    "lang=en,other": {"langs": ("en", "other")}, "active=7": {"active_days": 7}, "joined=30": {"joined_days": 30},
    "source=ads": {"sources": ("ads",)},
    "fa+active=30+channel": {"langs": ("fa",), "active_days": 30, "sources": ("channel",)},
}


def seed_users(n: int, chunk: int = 10_000) -> float:
    """Insert n users with raw multi-row INSERTs (fast); return seconds."""
    from datetime import timedelta

    from sqlalchemy import insert

    from app.clock import utcnow
    from app.extensions import db
    from app.models import User

    started = time.perf_counter()
    now = utcnow()
    for start in range(0, n, chunk):
        db.session.execute(insert(User), [
            dict(id=BASE_ID + i, first_name=f"کاربر {i}", username=f"user_{i}" if i % 7 else None,
                 language_code=LANGS[i % len(LANGS)], start_source=SOURCES[i % len(SOURCES)],
                 is_blocked=i % 50 == 0, main_channel_status="unknown",
                 started_at=now - timedelta(days=i % 90), last_seen_at=now - timedelta(days=i % 45))
            for i in range(start, min(start + chunk, n))])
        db.session.commit()
    return time.perf_counter() - started


def median_time(fn, repeat: int = 3) -> float:
    """Median seconds of fn() over repeat runs."""
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        fn()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def table_mb(kind: str) -> float:
    """Megabytes broadcast_job_items uses (free pages not counted): InnoDB data + indexes, SQLite dbstat-less."""
    from sqlalchemy import text

    from app.extensions import db

    if kind == "mariadb":
        db.session.execute(text("ANALYZE TABLE broadcast_job_items"))
        row = db.session.execute(text(
            "SELECT data_length + index_length FROM information_schema.tables "
            "WHERE table_schema = DATABASE() AND table_name = 'broadcast_job_items'")).one()
        used = row[0]  # InnoDB's estimate after ANALYZE; freed pages are reused, the file keeps its size
    else:
        size = db.session.execute(text("PRAGMA page_size")).scalar()
        pages = db.session.execute(text("PRAGMA page_count")).scalar()
        free = db.session.execute(text("PRAGMA freelist_count")).scalar()
        used = (pages - free) * size  # the whole file in use (users too): the change is the items'
    db.session.commit()
    return round(used / (1 << 20), 1)


# -- 2. population, with the webhook burst --------------------------------------------------------

def single_statement(n: int) -> float:
    """Time the old population, one INSERT … SELECT of the whole audience, on a draft; then remove it."""
    from app.clock import utcnow
    from app.extensions import db
    from app.repository import broadcast_population as population
    from app.services.broadcast.jobs import creation
    from app.services.broadcast.jobs import population as jobs_population

    job = creation.insert_draft(engine_settings(), audience="all", content_type="text", text="x", created_by=ADMIN_ID,
                                created_at=utcnow())
    db.session.commit()
    started = time.perf_counter()
    population.populate(job.id, "all")
    db.session.commit()
    elapsed = time.perf_counter() - started
    jobs_population.discard_draft(job.id)
    return elapsed


def burst(port: int, users: int, stop: threading.Event, threads: int, out: list) -> list[threading.Thread]:
    """Start client threads POSTing block / unblock / /start updates until stop; (sent_at, seconds, ok) into out."""
    from app.simulator.updates import message_update, my_chat_member_update

    url = f"http://127.0.0.1:{port}/telegram/webhook"
    headers = {"X-Telegram-Bot-Api-Secret-Token": WEBHOOK_SECRET, "Content-Type": "application/json"}

    def run(worker: int):
        session = requests.Session()
        k = 0
        while not stop.is_set():
            k += 1
            update_id = 1_000_000 * (worker + 1) + k
            user = BASE_ID + (update_id * 7919) % users
            if k % 3 == 0:
                update = message_update(user, "/start")
                update["update_id"] = update_id
            else:
                old, new = ("member", "kicked") if k % 3 == 1 else ("kicked", "member")
                update = my_chat_member_update(user, old, new, update_id=update_id)
            started = time.monotonic()
            try:
                ok = session.post(url, json=update, headers=headers, timeout=30).status_code == 200
            except requests.RequestException:
                ok = False
            out.append((started, time.monotonic() - started, ok))

    workers = [threading.Thread(target=run, args=(w,), daemon=True) for w in range(threads)]
    for w in workers:
        w.start()
    return workers


def populate_with_burst(url: str, kind: str, users: int, webhook: bool, threads: int, sim_url: str) -> dict:
    """Create the job to everyone; with webhook, while gunicorn -w 4 answers a burst of updates."""
    from app.services.broadcast.jobs.creation import create_job

    result = {}
    proc = None
    samples: list = []
    stop = threading.Event()
    if webhook:
        port = free_port()
        proc = start_gunicorn(url, sim_url, 4, port, channel=False)
        warm = burst(port, users, stop, threads, [])
        time.sleep(2)  # every worker connected and warm
        stop.set()
        for w in warm:
            w.join()
        stop.clear()
        clients = burst(port, users, stop, threads, samples)
        time.sleep(0.5)
    try:
        started = time.monotonic()
        job = create_job(audience="all", created_by=ADMIN_ID, content={"type": "text", "text": "scale"},
                         settings=engine_settings())
        ended = time.monotonic()
    finally:
        if webhook:
            stop.set()
            for w in clients:
                w.join()
            stop_gunicorn(proc)
    result["populate_s"] = round(ended - started, 2)
    result["job_id"], result["total"] = job.id, job.total_count
    if webhook:
        during = [(s, ok) for t0, s, ok in samples if t0 <= ended and t0 + s >= started]  # in flight during it
        lat = sorted(s for s, _ in during)
        result.update(hook_n=len(lat), hook_errors=sum(1 for _, ok in during if not ok))
        if lat:
            result.update(hook_p50_ms=round(lat[len(lat) // 2] * 1000), hook_max_ms=round(lat[-1] * 1000),
                          hook_p95_ms=round(lat[min(len(lat) - 1, int(len(lat) * 0.95))] * 1000))
    return result


# -- 3. admin reads -------------------------------------------------------------------------------

def admin_reads(job_id: int) -> dict:
    from app.extensions import db
    from app.models.audience import Audience
    from app.services import stats
    from app.services.broadcast.jobs import control, creation
    from app.services.broadcast.jobs.offers import offers
    from app.services.broadcast.jobs.status import job_status

    def view():
        job = control.get_job(job_id)
        job_status(job)
        offers(job)
        db.session.commit()

    def status():
        db.session.expire_all()
        job_status(control.get_job(job_id)).as_dict()
        db.session.commit()

    presend = {name: median_time(lambda kw=kw: creation.count_recipients(Audience(**kw)))
               for name, kw in FILTERS.items()}
    recount = median_time(stats.refresh)  # the live count (cron's recount), stored as the snapshot
    return {"stats_s": round(median_time(stats.figures), 3), "stats_live_s": round(recount, 3),
            "job_view_s": round(median_time(view), 3), "status_s": round(median_time(status), 3),
            "presend_max_s": round(max(presend.values()), 3),
            "presend_s": {f: round(s, 3) for f, s in presend.items()},
            "list_s": round(median_time(lambda: [job_status(j) for j in control.list_jobs(20)]), 3)}


# -- 4. the pump's database cost per item ---------------------------------------------------------

def pump_cost(job_id: int, batches: int = 20, batch: int = 100) -> float:
    """Milliseconds of database work per item: claim, mark sending, record sent (+ counters), batch by batch."""
    from app.clock import utcnow
    from app.extensions import db
    from app.repository import broadcast_claims as claims
    from app.repository import broadcast_jobs as jobs_repo

    after, done, started = 0, 0, time.perf_counter()
    for _ in range(batches):
        rows = claims.next_pending_named(job_id, after, batch)
        ids = [r[0] for r in rows]
        claims.mark_sending(ids)
        db.session.commit()
        n = claims.set_sent([(i, i + 7) for i in ids], utcnow())
        jobs_repo.add_counts(job_id, sent=n)
        db.session.commit()
        after, done = ids[-1], done + len(ids)
    return (time.perf_counter() - started) * 1000 / done


# -- 5. export --------------------------------------------------------------------------------------

def export(job_id: int, compare: bool = False) -> dict:
    from app.extensions import db
    from app.repository import broadcast_ledger as ledger
    from app.services.broadcast.reporting.export import export_csv

    def timed() -> tuple[float, int]:
        with tempfile.TemporaryDirectory() as folder:
            started = time.perf_counter()
            with open(os.path.join(folder, "ledger.csv"), "wb") as out:
                rows = export_csv(job_id, out)
            return time.perf_counter() - started, rows

    elapsed, rows = timed()
    tracemalloc.start()
    with open(os.devnull, "wb") as sink:
        export_csv(job_id, sink)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    row = {"export_s": round(elapsed, 2), "export_rows": rows, "export_peak_mb": round(peak / (1 << 20), 1)}
    if compare and db.engine.dialect.name == "mysql":
        # The same ledger with MySQL's lines refused: every page read row by row and written by the csv module.
        server_lines = ledger.csv_ledger_page

        def refused(*args, **kwargs):
            raise ledger.PageCut("bench: written in Python")

        ledger.csv_ledger_page = refused
        try:
            row["export_python_s"] = round(timed()[0], 2)
        finally:
            ledger.csv_ledger_page = server_lines
    return row


# -- 6. purge while a pump sends -------------------------------------------------------------------

def purge_under_load(app, job_id: int) -> dict:
    """Finish job_id 3 days ago and purge it while another job's claim / mark / record loop runs."""
    from datetime import timedelta

    from sqlalchemy import event, update

    from app.clock import utcnow
    from app.extensions import db
    from app.models import BroadcastJob
    from app.repository import broadcast_claims as claims
    from app.repository import broadcast_population as population
    from app.services.broadcast.jobs import creation
    from app.services.broadcast.jobs import purge as jobs_purge

    db.session.execute(update(BroadcastJob).where(BroadcastJob.id == job_id).values(
        status="completed", active_slot=None, finished_at=utcnow() - timedelta(days=3)))
    other = creation.insert_draft(engine_settings(), audience="all", content_type="text", text="y",
                                  created_by=ADMIN_ID, created_at=utcnow())
    db.session.commit()
    other_id = other.id
    population.populate(other_id, "all", upto=population.user_id_after(None, 50_000))
    db.session.commit()

    batch_times: list[tuple[float, float]] = []
    stop = threading.Event()

    def loop():
        with app.app_context():
            after = 0
            while not stop.is_set():
                started = time.monotonic()
                rows = claims.next_pending(other_id, after, 25)
                if not rows:
                    after = 0
                    continue
                ids = [r[0] for r in rows]
                claims.mark_sending(ids)
                db.session.commit()
                claims.set_sent([(i, 1) for i in ids], utcnow())
                db.session.commit()
                after = ids[-1]
                batch_times.append((started, time.monotonic() - started))
                time.sleep(25 / 29 / 4)  # four times the pump's free rate of batches
            db.session.remove()

    stmt_times: list[float] = []

    def before(conn, cursor, statement, *args):
        conn.info["t"] = time.perf_counter()

    def after(conn, cursor, statement, *args):
        if statement.lstrip().upper().startswith("DELETE") and threading.current_thread() is main:
            stmt_times.append(time.perf_counter() - conn.info["t"])

    main = threading.current_thread()
    worker = threading.Thread(target=loop, daemon=True)
    worker.start()
    time.sleep(3)
    event.listen(db.engine, "before_cursor_execute", before)
    event.listen(db.engine, "after_cursor_execute", after)
    started = time.monotonic()
    try:
        removed = jobs_purge.purge_items(1)["items"]
    finally:
        ended = time.monotonic()
        event.remove(db.engine, "before_cursor_execute", before)
        event.remove(db.engine, "after_cursor_execute", after)
        time.sleep(1)
        stop.set()
        worker.join()
    before_ms = [s for t, s in batch_times if t < started]
    during_ms = [s for t, s in batch_times if started <= t <= ended]
    return {"purge_s": round(ended - started, 2), "purged": removed,
            "purge_max_stmt_s": round(max(stmt_times), 3) if stmt_times else None,
            "loop_max_before_ms": round(max(before_ms) * 1000) if before_ms else None,
            "loop_max_during_ms": round(max(during_ms) * 1000) if during_ms else None,
            "loop_batches_during": len(during_ms)}


def run(kind: str, users: int, webhook: bool, threads: int, sim_url: str, reads_only: bool = False,
        population_only: bool = False, export_only: bool = False) -> dict:
    row: dict = {"db": kind, "users": users}
    with fresh_database(kind) as url:
        migrate(url)
        with bound_app(url, sim_url) as app:
            row["mb_before"] = table_mb(kind)
            row["seed_s"] = round(seed_users(users), 1)
            if export_only:  # seed, populate (N items), export; nothing else
                row.update(populate_with_burst(url, kind, users, False, threads, sim_url))
                row.update(export(row["job_id"], compare=True))
                return row
            if reads_only:  # seed, populate (N items), the admin reads; nothing else
                row.update(populate_with_burst(url, kind, users, False, threads, sim_url))
                row.update(admin_reads(row["job_id"]))
                return row
            row["single_stmt_s"] = round(single_statement(users), 2)
            row.update(populate_with_burst(url, kind, users, webhook, threads, sim_url))
            if population_only:  # 1 and 2: the population (with the burst) and the single statement
                return row
            row["mb_items"] = table_mb(kind)
            row.update(admin_reads(row["job_id"]))
            row["pump_ms_item"] = round(pump_cost(row["job_id"]), 3)
            row.update(export(row["job_id"]))
            row.update(purge_under_load(app, row["job_id"]))
            row["mb_after_purge"] = table_mb(kind)  # the other job's items (up to 50,000) still there
    return row


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    db_choices(parser, default="mariadb", both=True)
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--threads", type=int, default=8, help="webhook client threads during the population")
    parser.add_argument("--no-webhook", dest="webhook", action="store_false", help="populate without the burst")
    parser.add_argument("--reads-only", action="store_true",
                        help="seed, populate without the burst and time the admin reads; skip the rest")
    parser.add_argument("--population-only", action="store_true",
                        help="seed, time the single statement and the population (with the burst); skip 3-6")
    parser.add_argument("--export-only", action="store_true",
                        help="seed, populate without the burst and time the export (and, on MariaDB, the same "
                             "export written row by row in Python); skip the rest")
    args = parser.parse_args(argv)
    rows = []
    load = os.getloadavg()
    with Simulator() as sim:
        for kind in db_kinds(args.db):
            for users in args.sizes:
                rows.append(run(kind, users, args.webhook, args.threads, sim.base_url, args.reads_only,
                                args.population_only, args.export_only))
                rows[-1]["load_1m"] = round(os.getloadavg()[0], 2)
                print_table(rows[-1:], COLUMNS)
    print_table(rows, COLUMNS, title=f"Scale: {args.sizes} users (load average at start {load[0]:.2f})")
    for r in rows:
        if r.get("pump_ms_item") and rows[0].get("pump_ms_item") and r["db"] == rows[0]["db"]:
            r["pump_ratio_to_first"] = round(r["pump_ms_item"] / rows[0]["pump_ms_item"], 2)
    print({(r["db"], r["users"]): r.get("pump_ratio_to_first") for r in rows})
    write_results("scale", args, rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
