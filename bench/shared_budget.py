"""The bot-wide Telegram budget in the database: cost per reservation and the cap held by 1/2/4 processes.

Database only (no HTTP): each process runs threads that take slots from the
shared 'free' lane at --rate and "use" each slot when it is due. Prints the
µs and round trips per reservation (the budget's own autocommit engine vs the
app's engine), statements per slot, the achieved fraction of the cap, and
the most slots used in any 1 s window (the promise: at most cap + 1).

    .venv/bin/python -m bench.shared_budget [--db sqlite|mariadb|both] [--seconds 3] [--procs 1,2,4]
"""
from __future__ import annotations

import argparse
import bisect
import json
import os
import subprocess
import sys
import threading
import time

if __package__ in (None, ""):
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bench.common import ROOT, db_choices, db_kinds, fresh_database, migrate
from bench.output import print_table, write_results

COLUMNS = ["db", "procs", "threads", "batch", "slots", "of_cap", "max_in_1s", "stmts_per_slot", "late_ms_p99"]
COST_COLUMNS = ["db", "engine", "us_per_reservation", "round_trips"]


def child(args: dict) -> dict:
    """Take slots in threads until the end; return when each was used and the statements issued."""
    from app.db_setup import install_engine_hooks
    from app.repository.budget.engine import budget_engine
    from app.services.budget.clock import BudgetClock
    from app.services.budget.lane import SharedRateLimiter

    install_engine_hooks()
    engine = budget_engine(args["url"])
    clock = BudgetClock(engine)
    clock.to_us(time.monotonic())  # the first mapping reads the database's clock, before the timed part
    limiter = SharedRateLimiter(engine, args["rate"], db_clock=clock)
    uses, lateness, lock = [], [], threading.Lock()
    time.sleep(max(0.0, args["start_at"] - time.time()))
    end = time.monotonic() + args["seconds"]

    def work():
        while slots := limiter.acquire_many(args["batch"], deadline=end):
            reserved_at = time.monotonic()
            for slot in slots:
                time.sleep(max(0.0, slot - time.monotonic()))
                if not limiter.clear_at(slot, reserved_at):
                    break
                with lock:
                    uses.append(time.time())
                    lateness.append(time.monotonic() - slot)

    threads = [threading.Thread(target=work) for _ in range(args["threads"])]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return {"uses": uses, "lateness": lateness, "statements": limiter.statements}


def cap_run(kind: str, url: str, procs: int, batch: int, args) -> dict:
    """Run `procs` child processes against one lane and merge what they saw."""
    spec = {"url": url, "rate": args.rate, "threads": args.threads, "batch": batch,
            "seconds": args.seconds, "start_at": time.time() + 2.0 + 0.3 * procs}
    children = [subprocess.Popen([sys.executable, "-m", "bench.shared_budget", "--child", json.dumps(spec)],
                                 cwd=ROOT, stdout=subprocess.PIPE, text=True) for _ in range(procs)]
    reports = [json.loads(c.communicate(timeout=120)[0].strip().splitlines()[-1]) for c in children]
    uses = sorted(t for r in reports for t in r["uses"])
    late = sorted(x for r in reports for x in r["lateness"])
    statements = sum(r["statements"] for r in reports)
    return {"db": kind, "procs": procs, "threads": args.threads, "batch": batch, "slots": len(uses),
            # Over the span the slots were used: a child that wakes late (a loaded machine) starts its
            # --seconds window late, so the nominal length would count the cap more than once.
            "of_cap": len(uses) / max(uses[-1] - uses[0] if uses else 0.0, args.seconds) / args.rate,
            "max_in_1s": busiest_second(uses),
            "stmts_per_slot": statements / max(1, len(uses)),
            "late_ms_p99": 1000 * late[int(0.99 * (len(late) - 1))] if late else 0.0}


def busiest_second(times: list[float]) -> int:
    """Return the most events in any 1 s window [t, t + 1)."""
    return max((bisect.bisect_left(times, t + 1.0) - i for i, t in enumerate(times)), default=0)


def cost_rows(kind: str, url: str, count: int) -> list[dict]:
    """Time `count` single-slot reservations on the budget's engine and on an app-style engine."""
    from sqlalchemy import create_engine

    from app.config import engine_options
    from app.db_setup import install_engine_hooks
    from app.repository.budget import lanes as lanes_repo
    from app.repository.budget.engine import NO_LIMIT_US, budget_engine

    install_engine_hooks()
    trips = _count_round_trips()
    rows = []
    engines = (("budget_engine", budget_engine(url)), ("app engine", create_engine(url, **engine_options(url))))
    for name, engine in engines:
        lanes_repo.reserve(engine, "bench", 1, 1, NO_LIMIT_US)
        before, started = trips[0], time.perf_counter()
        for _ in range(count):
            lanes_repo.reserve(engine, "bench", 1, 1, NO_LIMIT_US)
        elapsed = time.perf_counter() - started
        rows.append({"db": kind, "engine": name, "us_per_reservation": 1e6 * elapsed / count,
                     "round_trips": (trips[0] - before) / count if kind == "mariadb" else "n/a (embedded)"})
        engine.dispose()
    return rows


def _count_round_trips() -> list[int]:
    """Count PyMySQL commands sent to the server (queries, pings), process-wide."""
    from pymysql.connections import Connection

    counter = [0]
    original = Connection._execute_command
    if getattr(original, "_counted", False):
        return original._counter

    def counted(self, command, sql):
        counter[0] += 1
        return original(self, command, sql)

    counted._counted, counted._counter = True, counter
    Connection._execute_command = counted
    return counter


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    db_choices(parser, default="both", both=True)
    parser.add_argument("--rate", type=float, default=29, help="the cap, slots per second")
    parser.add_argument("--seconds", type=float, default=3.0, help="length of each cap run")
    parser.add_argument("--threads", type=int, default=3, help="threads per process")
    parser.add_argument("--procs", default="1,2,4", help="process counts to try")
    parser.add_argument("--batches", default="1,4", help="slots reserved per statement to try")
    parser.add_argument("--reservations", type=int, default=1000, help="reservations timed for the cost table")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(json.loads(args.child))), flush=True)
        return
    rows, costs = [], []
    for kind in db_kinds(args.db):
        with fresh_database(kind) as url:
            migrate(url)
            costs += cost_rows(kind, url, args.reservations)
            for procs in map(int, args.procs.split(",")):
                for batch in map(int, args.batches.split(",")):
                    rows.append(cap_run(kind, url, procs, batch, args))
    print_table(costs, COST_COLUMNS, "Cost of one reservation (one statement, autocommit)")
    print_table(rows, COLUMNS, f"Cap {args.rate:g}/s shared by processes ({args.seconds:g} s each)")
    write_results("shared_budget", args, rows, costs=costs)


if __name__ == "__main__":
    main()
