"""How fast evenly spaced sends may go when their arrivals jitter: a Monte-Carlo of a strict sliding second.

Sends go out evenly at `rate`/s; each arrives after a uniform random delay
spread over `spread` seconds (the simulator's latency_jitter_ms). A run "breaks"
when more than `limit` arrivals fall inside some 1 s window (Telegram's 429).
Prints, per spread, the share of runs that break at each fraction of the cap,
next to the bound 30 / (1 + spread) that the free lane's spacing follows
(docs/BROADCAST.md, *Arrival jitter*). No database, no HTTP: pure arithmetic.

    .venv/bin/python -m bench.jitter_bound [--spreads 0.01 0.04 0.075 0.15] [--sends 600] [--runs 200]
"""
from __future__ import annotations

import argparse
import random
import sys

from bench.output import print_table, write_results

CAP, LIMIT = 29, 30
FRACTIONS = (0.90, 0.93, 0.95, 0.96, 0.97, 0.98, 1.0)


def broken_share(rate: float, spread: float, sends: int, runs: int, rng: random.Random) -> float:
    """Return the share of runs in which more than LIMIT arrivals land within one second."""
    interval, broken = 1.0 / rate, 0
    for _ in range(runs):
        arrivals = sorted(k * interval + rng.uniform(0, spread) for k in range(sends))
        if any(arrivals[k + LIMIT] - arrivals[k] < 1.0 for k in range(sends - LIMIT)):
            broken += 1
    return broken / runs


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--spreads", type=float, nargs="+", default=[0.01, 0.04, 0.075, 0.15],
                        help="arrival spread in seconds (± 25 %% of 20/80/150/300 ms)")
    parser.add_argument("--sends", type=int, default=600, help="sends per run (~21 s at 29/s)")
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    rows = []
    for spread in args.spreads:
        row = {"spread_ms": round(spread * 1000, 1), "bound_of_cap": round(LIMIT / (1 + spread) / CAP, 3)}
        for fraction in FRACTIONS:
            row[f"{fraction:.2f}"] = broken_share(CAP * fraction, spread, args.sends, args.runs, rng)
        rows.append(row)
    print_table(rows, ["spread_ms", "bound_of_cap", *(f"{f:.2f}" for f in FRACTIONS)],
                title=f"Share of runs with > {LIMIT} arrivals in some second, sending at a fraction of {CAP}/s "
                      f"({args.sends} sends, {args.runs} runs)")
    write_results("jitter_bound", args, rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
