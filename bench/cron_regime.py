"""The cron regime — a pump_all(budget) at the start of every tick — and 40,000 users.

Runs --ticks real ticks: at t0 + i*tick, pump_all(pump_seconds) (what
/internal/pump runs), against a simulator with Telegram's limits and 80 ms ± 10 %.
Measured per tick: messages, the sending window (first to last delivery) and the
pump's fixed overhead (pump wall minus sending window).

Projection to the real regime (tick 60 s, the default cron_pump_seconds, 57):
the sending rate r (messages / sending window) and the per-tick fixed overhead o
are taken as independent of the budget, so a real tick sends r × (57 − o)
messages; 40,000 users need N = 40,000 / that ticks, i.e. (ceil(N) − 1) × 60 s
plus the last tick's own sending time. With the default --tick-seconds 60
--pump-seconds 57 nothing is scaled; a shorter tick (e.g. 12/10) measures the
same r and o faster and is projected the same way.

    .venv/bin/python -m bench.cron_regime [--ticks 3] [--tick-seconds 60] [--pump-seconds 57] [--db sqlite|mariadb]
"""
from __future__ import annotations

import argparse
import math
import os
import sys
import time

if __package__ in (None, ""):
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bench.common import (
    Simulator,
    bound_app,
    broadcast_deliveries,
    create_text_job,
    db_choices,
    engine_settings,
    fresh_database,
    insert_users,
    migrate,
    telegram_limits,
)
from bench.output import print_table, write_results
from bench.throughput import attach_progress_message

COLUMNS = ["tick", "pump_s", "sent", "send_window_s", "rate_s", "overhead_s", "429s", "early", "gap_s@", "stops"]
REAL_TICK, AUDIENCE, TARGET_MIN = 60.0, 40_000, 25.0


def _default(name: str) -> float:
    from app.settings_schema import defaults

    return float(defaults()[name])


REAL_BUDGET = _default("cron_pump_seconds")  # 57
DEFAULT_RATE = min(_default("broadcast_rate_per_second"), _default("telegram_rate_per_second"))  # 29


def project(rate: float, overhead: float, tick: float = REAL_TICK, budget: float = REAL_BUDGET,
            users: int = AUDIENCE) -> dict:
    """Minutes for `users` at `rate` when each tick sends for budget − overhead seconds."""
    per_tick = rate * max(budget - overhead, 0.0)
    if per_tick <= 0:
        return {"per_tick": 0, "ticks": math.inf, "minutes": math.inf, "sending_share": 0.0}
    ticks = users / per_tick
    last = users - (math.ceil(ticks) - 1) * per_tick
    seconds = (math.ceil(ticks) - 1) * tick + overhead + last / rate
    return {"per_tick": round(per_tick), "ticks": round(ticks, 2), "minutes": round(seconds / 60, 1),
            "sending_share": round((budget - overhead) / tick, 3)}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    db_choices(parser)
    parser.add_argument("--ticks", type=int, default=3)
    parser.add_argument("--tick-seconds", type=float, default=REAL_TICK)
    parser.add_argument("--pump-seconds", type=float, default=REAL_BUDGET)
    parser.add_argument("--latency", type=float, default=80)
    parser.add_argument("--rate", type=float, default=DEFAULT_RATE, help="broadcast_rate_per_second (and the cap)")
    parser.add_argument("--drain", type=int, metavar="USERS",
                        help="broadcast to USERS and tick until every one has it: the drain time is measured, "
                             "not projected (--ticks is then only a safety bound)")
    args = parser.parse_args(argv)
    if args.drain:
        args.ticks = max(args.ticks, math.ceil(args.drain / (args.rate * args.pump_seconds) * 1.5) + 1)
    settings = engine_settings(broadcast_rate_per_second=args.rate, cron_pump_seconds=int(args.pump_seconds),
                               telegram_rate_per_second=max(args.rate, DEFAULT_RATE))
    # Without --drain, more users than the run can reach: every tick sends for its whole budget.
    users = args.drain or int(args.rate * args.pump_seconds * args.ticks * 1.2) + 100
    from app.services.broadcast.sending.drain import pump_all

    rows = []
    with fresh_database(args.db) as url:
        migrate(url)
        sim_cfg = telegram_limits(args.latency)
        with Simulator(**sim_cfg) as sim, bound_app(url, sim.base_url):
            insert_users(users)
            job = create_text_job(settings)
            attach_progress_message(job.id, settings)  # the admin's live progress message, edited as it runs
            t0 = time.time() + 0.5
            seen, before, drained_s = 0, sim.stats(), None
            for tick in range(args.ticks):
                time.sleep(max(0.0, t0 + tick * args.tick_seconds - time.time()))
                started = time.time()
                results = pump_all(args.pump_seconds, settings=settings)
                ended = time.time()
                sent = broadcast_deliveries(sim)[seen:]
                seen += len(sent)
                window = (sent[-1]["t"] - sent[0]["t"]) if len(sent) > 1 else 0.0
                now_stats = sim.stats()
                # A 429's hold shows as the tick's longest pause between deliveries (where it happened, s).
                pairs = zip(sent[:-1], sent[1:], strict=True)
                gap, at = max(((b["t"] - a["t"], a["t"] - sent[0]["t"]) for a, b in pairs), default=(0.0, 0.0))
                rows.append({"tick": tick + 1, "pump_s": round(ended - started, 2), "sent": len(sent),
                             "send_window_s": round(window, 2),
                             "rate_s": round((len(sent) - 1) / window, 2) if window else 0.0,
                             "overhead_s": round(ended - started - window, 2),
                             "429s": now_stats["429_total"] - before["429_total"],
                             "early": now_stats.get("calls_during_retry_after", 0)
                             - before.get("calls_during_retry_after", 0),
                             "gap_s@": f"{gap:.2f}@{at:.1f}",
                             "stops": ",".join(r.stop for r in results)})
                before = now_stats
                print_table(rows[-1:], COLUMNS)
                if args.drain and seen >= args.drain:
                    drained_s = sent[-1]["t"] - t0
                    break
            stats = sim.stats()
    total_sent = sum(r["sent"] for r in rows)
    rate = sum(r["sent"] - 1 for r in rows) / sum(r["send_window_s"] for r in rows)
    overhead = sum(r["overhead_s"] for r in rows) / len(rows)
    measured_share = sum(r["send_window_s"] for r in rows) / (len(rows) * args.tick_seconds)
    proj = project(rate, overhead)
    ideal = project(args.rate, 0.0)
    summary = {"measured_rate": round(rate, 2), "overhead_s_per_tick": round(overhead, 2),
               "measured_sending_share": round(measured_share, 3), "sent": total_sent,
               "429s": stats["429_total"], "early_calls": stats.get("calls_during_retry_after", 0),
               "busiest_all": stats.get("busiest_second_all", 0), "dups": stats["duplicates"],
               "projected": proj, "ideal_at_rate": ideal,
               "target_25_min": "met" if proj["minutes"] <= TARGET_MIN else "missed"}
    if args.drain:
        # Measured: from the first cron call to the last user's delivery.
        summary["drain"] = {"users": args.drain, "delivered": total_sent, "ticks": len(rows),
                            "minutes": round(drained_s / 60, 2) if drained_s is not None else None}
        if args.drain == AUDIENCE:
            met = drained_s is not None and drained_s / 60 <= TARGET_MIN
            summary["target_25_min"] = "met" if met else "missed"
        print(f"drain: {total_sent} of {args.drain} users in {len(rows)} ticks, "
              f"{summary['drain']['minutes']} min from the first cron call to the last delivery")
    print_table(rows, COLUMNS, title=f"Cron regime: {args.ticks} ticks of pump_all({args.pump_seconds:g}) every "
                                     f"{args.tick_seconds:g} s, {args.rate:g}/s configured, db={args.db}")
    print_table([{"measured r (msg/s)": summary["measured_rate"], "overhead/tick s": summary["overhead_s_per_tick"],
                  "share sending (run)": summary["measured_sending_share"],
                  "share sending (60/57)": proj["sending_share"], "msgs/tick (60/57)": proj["per_tick"],
                  "40k minutes": proj["minutes"], "ideal 40k minutes": ideal["minutes"],
                  "429s": summary["429s"], "early calls": summary["early_calls"],
                  "target ≤25 min": summary["target_25_min"]}],
                ["measured r (msg/s)", "overhead/tick s", "share sending (run)", "share sending (60/57)",
                 "msgs/tick (60/57)", "40k minutes", "ideal 40k minutes", "429s", "early calls", "target ≤25 min"],
                title=f"Projection to cron every 60 s with cron_pump_seconds {REAL_BUDGET:g}")
    name = "cron_regime" if args.rate == DEFAULT_RATE else f"cron_regime-rate{args.rate:g}"
    write_results(name, args, rows, summary=summary)
    return 0


if __name__ == "__main__":
    sys.exit(main())
