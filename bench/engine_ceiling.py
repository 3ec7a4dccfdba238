"""The engine's own ceiling and its database cost per item, on SQLite and MariaDB.

Simulator: zero latency, no limits (global_rate 0, paid_rate 0, per_chat_limits off).
Pacing bypass: the settings dict handed to pump() carries broadcast_rate_per_second
1e6 (beyond the schema's max of 30, which only the CLI/admin validation enforces),
so get_client() builds its RateLimiter with a 1 µs interval; the ChatPacer never
waits because every chat gets one message.

Transport "http" sends through the real TelegramClient to the simulator process;
"null" hands pump() a client whose call() returns at once, which leaves the
database work, the Recorder and the thread pool: the engine's pure ceiling.

Database time = every cursor execute (before/after_cursor_execute) plus every
COMMIT/ROLLBACK (dialect.do_commit/do_rollback), summed, divided by items
processed. step_ms_item is the wall time of Recorder.step() (SQLAlchemy's
Python side included) per item.

    .venv/bin/python -m bench.engine_ceiling [--db both] [--items 3000] [--batch 25 100 500] [--concurrency 4 16 48]
        [--tracking none off on]  (no button / a plain link button / a per-recipient tracked button)
        [--variants off on]  (one content / en and ar language variants beside the default)
"""
from __future__ import annotations

import argparse
import os
import sys
import time

if __package__ in (None, ""):
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bench import profiling
from bench.common import (
    Simulator,
    bound_app,
    budget_engine,
    create_text_job,
    db_choices,
    db_kinds,
    engine_settings,
    fresh_database,
    insert_users,
    migrate,
    tallies,
    tracking_choices,
    tracking_flag,
    variants_choices,
)
from bench.output import print_table, write_results
from bench.traces import DbClock, StepTimer

COLUMNS = ["db", "tracking", "variants", "transport", "batch", "conc", "items_s", "db_ms_item", "stmts_item",
           "budget_stmts_item", "all_stmts_item", "commits_item", "step_ms_item", "engine_cpu_ms_item", "wall_s"]
BYPASS_RATE = 1e6


class NullClient:
    """A TelegramClient stand-in that 'delivers' instantly (no HTTP, no pacing)."""

    rate_limiter = chat_pacer = broadcast_budget = None
    max_call_seconds = 1.0
    pace_recipients = False

    def rebook_chat(self, chat_id, at):
        pass

    def warm(self, n):
        pass

    def __init__(self):
        self._next = 0

    def call(self, method, params=None, **kw):
        self._next += 1
        return {"message_id": self._next, "chat": {"id": (params or {}).get("chat_id")}}

    def close(self):
        pass


def run_one(db_kind: str, transport: str, batch: int, conc: int, items: int, tracking: str = "none",
            variants: str = "off") -> dict:
    """Create a job for every user and drain it with pump(); measure items/s and DB time."""
    from app.extensions import db
    from app.services.broadcast.sending.drain import pump

    settings = engine_settings(broadcast_rate_per_second=BYPASS_RATE, broadcast_concurrency=conc,
                               broadcast_batch_size=batch)
    job = create_text_job(settings, tracking_flag(tracking), variants == "on")
    client = NullClient() if transport == "null" else None
    clock, steps = DbClock(db.engine), StepTimer()
    # The bot-wide budget's statements (slots, chat pace, 429 holds) run on an engine of their own: counted apart.
    shared = budget_engine(db.engine)
    budget = DbClock(shared) if shared is not db.engine else None
    meter = profiling.CpuMeter(engine=os.getpid()).start()
    started = time.monotonic()
    processed, stops = 0, []
    try:
        while time.monotonic() - started < 300:
            result = pump(job.id, 50, settings=settings, client=client)
            processed += result.processed
            stops.append(result.stop)
            if result.stop != "budget":
                break
    finally:
        wall = time.monotonic() - started
        cpu = meter.stop()
        clock.close()
        steps.close()
        if budget is not None:
            budget.close()
    n = max(processed, 1)
    return {"db": db_kind, "tracking": tracking, "variants": variants, "transport": transport, "batch": batch,
            "conc": conc,
            "items_s": round(processed / wall, 1), "db_ms_item": round(1000 * clock.total_s / n, 3),
            "db_exec_ms_item": round(1000 * clock.execute_s / n, 3),
            "db_commit_ms_item": round(1000 * clock.commit_s / n, 3),
            "stmts_item": round(clock.statements / n, 2), "commits_item": round(clock.commits / n, 3),
            "budget_stmts_item": round(budget.statements / n, 2) if budget else None,
            "all_stmts_item": round((clock.statements + (budget.statements if budget else 0)) / n, 2),
            "step_ms_item": round(1000 * steps.seconds / n, 3), "steps": steps.calls,
            "engine_cpu_ms_item": round(1000 * cpu["engine_cpu_s"] / n, 3), "cores_busy": cpu["cores_busy"],
            "processed": processed, "items_expected": items, "sent": tallies(job.id).get("sent", 0),
            "stops": ",".join(stops), "wall_s": round(wall, 2)}


def db_probe(kind: str, n: int = 300) -> dict:
    """Floor costs on this database: one round trip (SELECT 1) and one fenced-style UPDATE + COMMIT."""
    from sqlalchemy import text

    from app.extensions import db

    job_id = db.session.execute(text("SELECT MAX(id) FROM broadcast_jobs")).scalar()
    db.session.commit()
    t = time.perf_counter()
    for _ in range(n):
        db.session.execute(text("SELECT 1")).scalar()
    roundtrip = (time.perf_counter() - t) / n
    db.session.commit()
    t = time.perf_counter()
    for _ in range(n):
        db.session.execute(text("UPDATE broadcast_jobs SET sent_count = sent_count WHERE id = :id"), {"id": job_id})
        db.session.commit()
    commit = (time.perf_counter() - t) / n
    return {"db": kind, "select1_ms": round(1000 * roundtrip, 3), "update_commit_ms": round(1000 * commit, 3)}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    db_choices(parser, default="both", both=True)
    parser.add_argument("--items", type=int, default=3000, help="recipients per run")
    parser.add_argument("--batch", type=int, nargs="+", default=[25, 100, 500])
    parser.add_argument("--concurrency", type=int, nargs="+", default=[4, 16, 48])
    parser.add_argument("--transport", nargs="+", default=["http", "null"], choices=["http", "null"])
    tracking_choices(parser)
    variants_choices(parser)
    args = parser.parse_args(argv)
    rows, probes = [], []
    sim_cfg = dict(latency_ms=0, global_rate=0, paid_rate=0, per_chat_limits=False)
    with Simulator(**sim_cfg) as sim:
        for kind in db_kinds(args.db):
            with fresh_database(kind) as url:
                migrate(url)
                with bound_app(url, sim.base_url):
                    insert_users(args.items)
                    for transport in args.transport:
                        for batch in args.batch:
                            for conc in args.concurrency:
                                for tracking in args.tracking:
                                    for variants in args.variants:
                                        row = run_one(kind, transport, batch, conc, args.items, tracking, variants)
                                        rows.append(row)
                                        print_table([row], COLUMNS)
                    probes.append(db_probe(kind))
    print_table(rows, COLUMNS, title=f"Engine ceiling: zero latency, no limits, {args.items} items per run; "
                                     "db_ms_item = driver execute + commit time per item")
    print_table(probes, ["db", "select1_ms", "update_commit_ms"],
                title="Floor costs (same process, nothing else running in it)")
    write_results("engine_ceiling", args, rows, probes=probes)
    return 0


if __name__ == "__main__":
    sys.exit(main())
