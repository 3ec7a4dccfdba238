"""The real pump at the default rate vs hand-written senders, at 20/80/150 ms latency.

Simulator: 30 msg/s bot-wide, 1/s per chat, latency ± 10 % (--jitter). Each contender gets
its own fresh simulator process with the same settings.

--bound (no database, no HTTP): a Monte-Carlo of evenly spaced sends whose arrivals jitter
uniformly by each latency's spread (2 × jitter × latency) against a strict 30-per-sliding-second
limit: the share of runs that break it at 0.90-1.00 of the 29/s cap, beside the bound
30 / (1 + spread) the free lane's spacing follows (docs/BROADCAST.md, *Arrival jitter*).

    .venv/bin/python -m bench.throughput [--users 750] [--latencies 20 80 150] [--db sqlite|mariadb] [--jitter 0.25]
    .venv/bin/python -m bench.throughput --bound --latencies 20 80 150 300 --jitter 0.25 [--runs 200]
"""
from __future__ import annotations

import argparse
import os
import random
import sys
import time

if __package__ in (None, ""):
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bench import alternatives, questions
from bench.common import (
    ADMIN_ID,
    BASE_ID,
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
    window_rate,
)
from bench.output import print_table, write_results
from bench.traces import BudgetStatements, Connections, DbClock, SendTrace

COLUMNS = ["latency_ms", "sender", "msg_s", "of_cap", "delivered_s", "delivered", "lost", "not_attempted", "429s",
           "failures", "early_calls", "edits", "busiest_all",
           "dups", "wall_s", "call_ms", "in_flight_avg", "db_ms_item", "db_stmts_item", "budget_stmts_item",
           "queries_msg", "spread_ms", "lane_rate"]


def cap() -> float:
    """The broadcast's share of the bot-wide cap at default settings (min of the two rates): 29."""
    s = engine_settings()
    return min(s["broadcast_rate_per_second"], s["telegram_rate_per_second"])


def summarize(sim: Simulator, sender: str, latency: float, n: int, wall: float, extra: dict) -> dict:
    """Read the simulator's own record: delivered, 429s, duplicates, rate over the sending window."""
    stats = sim.stats()
    sent = broadcast_deliveries(sim)
    delivered = len({d["chat_id"] for d in sent})
    rate = window_rate(sent)
    return {"latency_ms": latency, "sender": sender, "msg_s": round(rate, 2), "of_cap": round(rate / cap(), 3),
            "delivered_s": round(delivered / wall, 2) if wall else 0.0, "delivered": delivered,
            "lost": extra.get("attempted", n) - delivered, "not_attempted": n - extra.get("attempted", n),
            "429s": stats["429_total"], "failures": extra.get("failures", 0),
            "early_calls": stats.get("calls_during_retry_after", 0), "busiest_all": stats.get("busiest_second_all", 0),
            "edits": len(sim.deliveries("editMessageText")),
            "429_global": stats["429_global"], "429_per_chat": stats["429_per_chat"], "sim_calls": stats["calls"],
            "dups": stats["duplicates"], "wall_s": round(wall, 1), "sim_busiest_second": stats["busiest_second"],
            **{k: v for k, v in extra.items() if k not in ("failures", "wall_s")}}


def run_engine(url: str, latency: float, users: list[int], args) -> dict:
    """Create a job through create_job and drain it with pump_all() (cron's code) back to back."""
    from app.services.broadcast.sending.drain import pump_all
    from app.services.telegram_factory import get_client

    # Defaults: telegram_rate_per_second 29 (the bot-wide cap), broadcast_rate_per_second 29, 6 in flight.
    settings = engine_settings(**({"broadcast_concurrency": args.concurrency} if args.concurrency else {}))
    with Simulator(**telegram_limits(latency, args.jitter)) as sim, bound_app(url, sim.base_url):
        from app.extensions import db

        # Everything the database receives from the job's creation to its end, COMMITs included.
        queries = questions.start(db.engine, budget_engine(db.engine))
        job = create_text_job(settings)
        if not args.no_progress:
            attach_progress_message(job.id, settings)
        created = queries.read()
        trace, clock = SendTrace(), DbClock(db.engine)
        budget_clock, budget = DbClock(budget_engine(db.engine)), BudgetStatements(budget_engine(db.engine))
        connections = Connections(db.engine, budget_engine(db.engine))
        started = time.monotonic()
        stops, calls = [], 0
        try:
            while time.monotonic() - started < 600:
                results = pump_all(args.pump_seconds, settings=settings)
                calls += 1
                stops += [r.stop for r in results]
                if not results or results[-1].stop in ("done", "paused", "cancelled"):
                    break
        finally:
            wall = time.monotonic() - started
            done = queries.read()
            queries.close()
            cycle = trace.close(wall)
            clock.close()
            budget_clock.close()
            budget.close()
        counts = tallies(job.id)
        cycle["db_ms_item"] = round(1000 * clock.total_s / max(len(users), 1), 3)
        # Statements per broadcast item: the app engine's (fenced transactions) and the budget's (slots, holds, chats).
        cycle["db_stmts_item"] = round(clock.statements / max(len(users), 1), 2)
        cycle["budget_stmts_item"] = round(budget_clock.statements / max(len(users), 1), 2)
        cycle["budget_ms_item"] = round(1000 * budget_clock.total_s / max(len(users), 1), 3)
        cycle["budget_by_kind_item"] = budget.per(len(users))
        cycle["connections"] = connections.peak  # the most this process held open at once
        # The free lane's arrival jitter margin at the end (absent in engines without one).
        lane = get_client(settings).budget
        gauge = getattr(lane, "jitter", None)
        cycle["spread_ms"] = round(1000 * gauge.spread(), 1) if gauge is not None else None
        cycle["lane_rate"] = round(1 / lane.interval, 2) if hasattr(lane, "interval") else None
        extra = {"failures": counts.get("failed", 0) + counts.get("unknown", 0), "pump_calls": calls,
                 "stops": ",".join(stops), "items": counts, **cycle}
        name = f"engine pump_all ({settings['broadcast_rate_per_second']:g}/s of cap " \
               f"{settings['telegram_rate_per_second']:g}, {settings['broadcast_concurrency']} in flight" \
               + ("" if args.no_progress else ", progress edits") + ")"
        row = summarize(sim, name, latency, len(users), wall, extra)
        return row | questions.figures(queries, created, done, row["delivered"])


def attach_progress_message(job_id: int, settings: dict) -> None:
    """Give the job a live progress message in the admin's chat, as the admin's wizard does (edited while it runs)."""
    from app.services.broadcast.jobs.control import set_progress_message
    from app.services.telegram_factory import get_client

    message = get_client(settings).call("sendMessage", {"chat_id": ADMIN_ID, "text": "progress"})
    set_progress_message(job_id, ADMIN_ID, message["message_id"])


def run_alternative(kind: str, latency: float, users: list[int], args) -> dict:
    """Run one hand-written sender against a fresh simulator."""
    with Simulator(**telegram_limits(latency, args.jitter)) as sim:
        if kind == "naive":
            extra = alternatives.naive_loop(sim.api_url, users, args.alt_max_seconds)
            name = "naive requests loop"
        elif kind == "retry":
            extra = alternatives.naive_loop(sim.api_url, users, args.alt_max_seconds, retry_429=True)
            name = "requests loop + sleep on 429"
        else:
            extra = alternatives.ptb_rate_limited(sim.base_url, users, args.alt_max_seconds,
                                                  args.ptb_concurrency, args.ptb_max_retries)
            name = f"PTB AIORateLimiter (sem {args.ptb_concurrency}, retries {args.ptb_max_retries})"
        return summarize(sim, name, latency, len(users), extra["wall_s"], extra)


BOUND_LIMIT, BOUND_FRACTIONS = 30, (0.90, 0.93, 0.95, 0.96, 0.97, 0.98, 1.0)


def broken_share(rate: float, spread: float, sends: int, runs: int, rng: random.Random) -> float:
    """Return the share of runs in which more than BOUND_LIMIT arrivals land within one second."""
    interval, broken = 1.0 / rate, 0
    for _ in range(runs):
        arrivals = sorted(k * interval + rng.uniform(0, spread) for k in range(sends))
        if any(arrivals[k + BOUND_LIMIT] - arrivals[k] < 1.0 for k in range(sends - BOUND_LIMIT)):
            broken += 1
    return broken / runs


def bound(args) -> int:
    """--bound: where 429s start when evenly spaced sends' arrivals jitter (pure arithmetic)."""
    rng, rows = random.Random(args.seed), []
    for latency in args.latencies:
        spread = 2 * args.jitter * latency / 1000
        row = {"latency_ms": latency, "spread_ms": round(spread * 1000, 1),
               "bound_of_cap": round(BOUND_LIMIT / (1 + spread) / cap(), 3)}
        for fraction in BOUND_FRACTIONS:
            row[f"{fraction:.2f}"] = broken_share(cap() * fraction, spread, args.users, args.runs, rng)
        rows.append(row)
    print_table(rows, ["latency_ms", "spread_ms", "bound_of_cap", *(f"{f:.2f}" for f in BOUND_FRACTIONS)],
                title=f"Share of runs with > {BOUND_LIMIT} arrivals in some second, sending evenly at a fraction of "
                      f"{cap():g}/s ({args.users} sends, {args.runs} runs, latency ± {args.jitter:.0%})")
    write_results("throughput-bound", args, rows)
    return 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    db_choices(parser)
    parser.add_argument("--users", type=int, default=750, help="recipients per latency and per sender")
    parser.add_argument("--latencies", type=float, nargs="+", default=[20, 80, 150])
    parser.add_argument("--jitter", type=float, default=0.10,
                        help="latency ± this fraction (0.25: 150 ms is 112.5-187.5 ms, uniform)")
    parser.add_argument("--pump-seconds", type=float, default=50, help="budget of each pump_all call")
    parser.add_argument("--concurrency", type=int, default=0,
                        help="the engine's broadcast_concurrency (default: the setting's default, 6)")
    parser.add_argument("--no-progress", action="store_true",
                        help="no progress message (by default the job has one, edited as it runs, like the admin's)")
    parser.add_argument("--alt-max-seconds", type=float, default=120, help="time cap of each alternative")
    parser.add_argument("--ptb-concurrency", type=int, default=8)
    parser.add_argument("--ptb-max-retries", type=int, default=0, help="AIORateLimiter's default is 0")
    parser.add_argument("--tag", default="", help="results go to throughput-TAG-*.json")
    parser.add_argument("--senders", nargs="+", default=["engine", "naive", "retry", "ptb"],
                        choices=["engine", "naive", "retry", "ptb"])
    parser.add_argument("--bound", action="store_true",
                        help="only the Monte-Carlo of jittered arrivals (--users sends a run, --runs runs)")
    parser.add_argument("--runs", type=int, default=200, help="--bound: runs per latency and fraction")
    parser.add_argument("--seed", type=int, default=1, help="--bound: random seed")
    args = parser.parse_args(argv)
    if args.bound:
        return bound(args)
    users = list(range(BASE_ID, BASE_ID + args.users))
    rows = []
    with fresh_database(args.db) as url:
        migrate(url)
        with bound_app(url, "http://127.0.0.1:9"):
            insert_users(args.users)
        for latency in args.latencies:
            for kind in args.senders:
                row = run_engine(url, latency, users, args) if kind == "engine" \
                    else run_alternative(kind, latency, users, args)
                rows.append(row)
                print_table([row], COLUMNS)
    print_table(rows, COLUMNS, title=f"Throughput vs the limit ({args.users} recipients, db={args.db}); "
                                     f"latency ± {args.jitter:.0%}; "
                                     f"msg_s = simulator-side rate over the sending window; of_cap = msg_s / {cap():g}"
                                     f"; queries_msg = all the database received per message delivered, "
                                     f"job creation and COMMITs included ({questions.SOURCE[args.db]})")
    tag = args.tag or (f"conc{args.concurrency}" if args.concurrency else "")
    write_results("throughput" + (f"-{tag}" if tag else ""), args, rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
