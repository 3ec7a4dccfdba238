"""One pump process sending a paid broadcast (allow_paid_broadcast) as fast as allowed.

Simulator: paid_rate 1000/s, 50 ms latency ± 10 %. Job: broadcast_paid_enabled on,
broadcast_paid_rate_per_second 900, broadcast_paid_concurrency 64 (the defaults).
--profile samples the engine and the simulator with py-spy and buckets the CPU.

    .venv/bin/python -m bench.paid [--users 5000] [--db sqlite|mariadb|both] [--rate 1000] [--profile]
        [--tracking none off on]  (no button / a plain link button / a per-recipient tracked button)
"""
from __future__ import annotations

import argparse
import os
import sys
import time

if __package__ in (None, ""):
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bench import profiling, questions
from bench.common import (
    RESULTS,
    Simulator,
    bound_app,
    broadcast_deliveries,
    budget_engine,
    create_text_job,
    db_choices,
    engine_settings,
    fresh_database,
    insert_users,
    migrate,
    tallies,
    telegram_limits,
    tracking_choices,
    tracking_flag,
    window_rate,
)
from bench.output import print_table, write_results
from bench.traces import BudgetStatements, Connections, DbClock, SendTrace, StepTimer

COLUMNS = ["db", "tracking", "conc", "msg_s", "of_target_800", "sent", "429s", "dups",
           "in_flight_avg", "call_ms", "slot_ms_item", "step_ms", "items_per_step", "db_ms_item", "db_statements_item",
           "budget_stmts_item", "queries_msg", "engine_cpu_ms_msg", "cpu_ms_pump_thread", "cpu_ms_step", "cpu_ms_book",
           "cpu_ms_send", "engine_cpu_s", "sim_cpu_s", "db_cpu_s", "other_cpu_s", "wall_s"]


def run(db_kind: str, url: str, args, tracking: str = "none") -> tuple[dict, dict]:
    """Populate, then drain the job with pump() calls in this one process."""
    from app.extensions import db
    from app.services.broadcast.sending.drain import pump
    from app.services.broadcast.sending.pump import Pump
    from app.services.broadcast.sending.recorder import Recorder

    settings = engine_settings(broadcast_paid_enabled=True, broadcast_paid_rate_per_second=args.rate,
                               broadcast_paid_concurrency=args.concurrency)
    sim_cfg = telegram_limits(args.latency)
    profiles: dict = {}
    with Simulator(**sim_cfg) as sim, bound_app(url, sim.base_url):
        # Everything the database receives from the job's creation to its end, COMMITs included.
        queries = questions.start(db.engine, budget_engine(db.engine))
        job = create_text_job(settings, tracking_flag(tracking))
        created = queries.read()
        clock = DbClock(db.engine)
        budget = BudgetStatements(budget_engine(db.engine))
        connections = Connections(db.engine, budget_engine(db.engine))
        meter = profiling.CpuMeter(engine=os.getpid(), sim=sim.proc.pid,
                                   db=profiling.find_pid("mariadbd", "mysqld") if db_kind == "mariadb" else None)
        spies = []
        if args.profile:
            for name, pid in (("engine", os.getpid()), ("simulator", sim.proc.pid)):
                path = os.path.join(RESULTS, f"paid-{db_kind}-{name}.collapsed")
                spies.append((name, path, profiling.PySpy(pid, path).__enter__()))
        clock.reset()
        trace, steps = SendTrace(), StepTimer()
        # Where the engine's CPU goes, by thread CPU time: the pump's thread (its Recorder
        # steps and slot bookings among it) and the send threads' Pump.send.
        # Slot bookings: take_slots before the block engine, next_block (its step included) after.
        split = profiling.ThreadCpu(pump_thread=(Pump, "run"), step=(Recorder, "step"), book=(Pump, "take_slots"),
                                    block=(Pump, "next_block"), send=(Pump, "send")).__enter__()
        meter.start()
        started = time.monotonic()
        processed, stops = 0, []
        while time.monotonic() - started < 300:
            result = pump(job.id, 50, settings=settings)
            processed += result.processed
            stops.append(result.stop)
            if result.stop != "budget":
                break
        wall = time.monotonic() - started
        done = queries.read()
        queries.close()
        cpu = meter.stop()
        split.__exit__(None, None, None)
        cycle = trace.close(wall)
        steps.close()
        for name, path, spy in spies:
            spy.__exit__(None, None, None)
            profiles[name] = profiling.summarize(path)
        clock.close()
        budget.close()
        stats = sim.stats()
        sent = broadcast_deliveries(sim)
        rate = window_rate(sent)
        row = {"db": db_kind, "tracking": tracking, "conc": args.concurrency, "recipients": args.users,
               "msg_s": round(rate, 1),
               "pump_items_s": round(processed / wall, 1), "of_target_800": round(rate / 800, 3),
               "sent": tallies(job.id).get("sent", 0), "429s": stats["429_total"], "dups": stats["duplicates"],
               "db_ms_item": round(1000 * clock.total_s / max(processed, 1), 3),
               "db_statements_item": round(clock.statements / max(processed, 1), 2),
               "db_commits": clock.commits, "connections": connections.peak, "stops": ",".join(stops), **cycle,
               "budget_stmts_item": round(budget.total / max(processed, 1), 3),
               "budget_by_kind_item": budget.per(processed),
               "steps": steps.calls, "step_ms": round(1000 * steps.seconds / max(steps.calls, 1), 2),
               "items_per_step": round(processed / max(steps.calls, 1), 1), **cpu, **split.per(processed),
               "engine_cpu_ms_msg": round(1000 * cpu["engine_cpu_s"] / max(processed, 1), 3),
               **questions.figures(queries, created, done, len({d["chat_id"] for d in sent}))}
        row["wall_s"] = round(wall, 1)
        return row, profiles


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    db_choices(parser, both=True)
    parser.add_argument("--users", type=int, default=5000)
    parser.add_argument("--latency", type=float, default=50)
    parser.add_argument("--rate", type=float, default=900, help="broadcast_paid_rate_per_second")
    parser.add_argument("--concurrency", type=int, default=64, help="broadcast_paid_concurrency")
    parser.add_argument("--profile", action="store_true", help="sample engine and simulator with py-spy")
    tracking_choices(parser)
    args = parser.parse_args(argv)
    from bench.common import db_kinds

    rows, profiles = [], {}
    for kind in db_kinds(args.db):
        for tracking in args.tracking:
            with fresh_database(kind) as url:
                migrate(url)
                with bound_app(url, "http://127.0.0.1:9"):
                    insert_users(args.users)
                row, prof = run(kind, url, args, tracking)
            rows.append(row)
            profiles[f"{kind}-{tracking}"] = prof
            for name, summary in prof.items():
                profiling.print_profile(f"{kind} ({tracking}): {name}", summary)
    print_table(rows, COLUMNS, title=f"Paid broadcast: one pump, {args.concurrency} in flight, "
                                     f"{args.rate:g}/s configured, simulator 1000/s at {args.latency:g} ms; "
                                     f"queries_msg = all the database received per message delivered, job creation "
                                     f"and COMMITs included (MariaDB: server's Questions; SQLite: driver trace)")
    # compare.py reads paid-latest.json at the defaults and paid-whatif-latest.json with --paid-rate.
    whatif_run = args.concurrency != 64 or args.rate != 900 or args.tracking != ["none"]
    write_results("paid-whatif" if whatif_run else "paid", args, rows, profiles=profiles)
    return 0


if __name__ == "__main__":
    sys.exit(main())
