"""One chat's flood through gunicorn while other users send /start: does the flood slow the others?

A simulator enforcing Telegram's limits (1 message/s per private chat, 30/s
bot-wide, --latency ms), a fresh database and `gunicorn -w 4 wsgi:app` with
the production environment (as bench/webhook_load.py starts it). One
non-admin POSTs --texts texts over --connections connections (each pausing
--flood-pause s before a post) while --others users each POST one /start
over 4 connections (tests/reliability/flood_child.py drives both).
Measured: the flood's and the others' answer times (p50/p95/max), the
flood's replies, the simulator's 429s.

    .venv/bin/python -m bench.one_chat_burst [--db mariadb] [--texts 60] [--connections 12] [--others 40]
"""
from __future__ import annotations

import argparse
import os
import sys
import time

if __package__ in (None, ""):
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bench.common import (
    BASE_ID,
    TELEGRAM_RATE,
    WEBHOOK_SECRET,
    Simulator,
    db_choices,
    fresh_database,
    jittered,
    migrate,
)
from bench.output import print_table, write_results
from bench.webhook_load import free_port, pct, start_gunicorn, stop_gunicorn

FLOOD_USER = BASE_ID + 20_000_000
OTHERS_BASE = FLOOD_USER + 1
COLUMNS = ["db", "workers", "texts", "flood_s", "flood_replies", "flood_p50_ms", "flood_p95_ms", "flood_max_ms",
           "others", "others_p50_ms", "others_p95_ms", "others_max_ms", "not_200", "429s", "wall_s"]


def ms(timings: list) -> list[float]:
    """Return answer times in ms."""
    return [(end - start) * 1000 for start, end, _ in timings]


def main(argv=None) -> int:
    from tests.reliability import flood_child

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    db_choices(parser, default="mariadb")
    parser.add_argument("--texts", type=int, default=60, help="texts the flooding user sends")
    parser.add_argument("--connections", type=int, default=12, help="connections the flood uses")
    parser.add_argument("--others", type=int, default=40, help="other users sending /start meanwhile")
    parser.add_argument("--workers", type=int, default=4, help="gunicorn sync workers")
    parser.add_argument("--latency", type=float, default=30)
    parser.add_argument("--flood-pause", type=float, default=flood_child.FLOOD_PAUSE)
    args = parser.parse_args(argv)
    flood_child.FLOOD_PAUSE = args.flood_pause
    flood_child.WEBHOOK_SECRET = WEBHOOK_SECRET  # the bench's gunicorn has the bench's secret
    with fresh_database(args.db) as url, Simulator(global_rate=TELEGRAM_RATE, per_chat_limits=True,
                                                   **jittered(args.latency)) as sim:
        migrate(url)
        port = free_port()
        gunicorn = start_gunicorn(url, sim.base_url, args.workers, port, channel=False)
        started = time.time()
        try:
            report = flood_child.main(f"http://127.0.0.1:{port}", FLOOD_USER, args.texts, args.connections,
                                      OTHERS_BASE, args.others, 4)
        finally:
            stop_gunicorn(gunicorn)
        wall = time.time() - started
        stats = sim.stats()
        replies = len([d for d in sim.deliveries("sendMessage") if d["chat_id"] == FLOOD_USER])
    flood, others = report["flood"], report["others"]
    row = {"db": args.db, "workers": args.workers, "texts": args.texts,
           "flood_s": round(max(e for _, e, _ in flood) - min(s for s, _, _ in flood), 1),
           "flood_replies": replies, "flood_p50_ms": pct(ms(flood), 50), "flood_p95_ms": pct(ms(flood), 95),
           "flood_max_ms": round(max(ms(flood)), 1), "others": len(others), "others_p50_ms": pct(ms(others), 50),
           "others_p95_ms": pct(ms(others), 95), "others_max_ms": round(max(ms(others)), 1),
           "not_200": sum(s != 200 for _, _, s in flood + others) + len(report["errors"]),
           "429s": stats["429_total"], "wall_s": round(wall, 1)}
    print_table([row], COLUMNS, title=f"One chat's {args.texts} texts over {args.connections} connections and "
                                      f"{args.others} others' /start, gunicorn -w {args.workers}, db={args.db}")
    write_results("one_chat_burst", args, [row])
    return 0


if __name__ == "__main__":
    sys.exit(main())
