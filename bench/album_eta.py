"""Benchmark: an album broadcast's real duration against the pre-send screen's estimate (the slot model).

The simulator runs at its defaults (30/s bot-wide, 1/s per chat) with 80 ms
latency ± 10 %; the engine at its defaults (cap and broadcast rate 29/s). For
each album size, one job of --users recipients is pumped to the end; the
duration is the pump's wall time, the estimate what the screen shows
(app.services.broadcast.jobs.estimate.estimate_seconds, nothing queued ahead).

    .venv/bin/python -m bench.album_eta [--users 100] [--parts 3 10] [--db sqlite|mariadb|both]
"""
from __future__ import annotations

import argparse
import os
import sys
import time

if __package__ in (None, ""):
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bench.common import (
    ADMIN_ID,
    Simulator,
    bound_app,
    broadcast_deliveries,
    db_choices,
    db_kinds,
    engine_settings,
    fresh_database,
    insert_users,
    jittered,
    migrate,
    tallies,
)
from bench.output import print_table, write_results

COLUMNS = ["db", "parts", "recipients", "estimate_s", "old_estimate_s", "real_s", "real_over_estimate", "sent",
           "429s"]


def run(db_kind: str, url: str, parts: int, users: int) -> dict:
    """Create one album job to every user and pump it to the end; return the row."""
    from app.services.broadcast.jobs.creation import create_job
    from app.services.broadcast.jobs.estimate import estimate_seconds, send_rate
    from app.services.broadcast.sending.drain import pump

    settings = engine_settings()
    with Simulator(**jittered(80)) as sim, bound_app(url, sim.base_url):
        insert_users(users)
        ids = [sim.control.add_message(ADMIN_ID, photo=f"p{i}", caption="album" if i == 0 else None)
               for i in range(parts)]
        job = create_job(audience="all", created_by=ADMIN_ID, settings=settings,
                         content={"type": "album", "from_chat_id": ADMIN_ID, "message_ids": ids})
        estimate = estimate_seconds(users, parts, False, settings, {})
        started = time.monotonic()
        while time.monotonic() - started < 600 and pump(job.id, 50, settings=settings).stop == "budget":
            pass
        real = time.monotonic() - started
        return {"db": db_kind, "parts": parts, "recipients": users, "estimate_s": round(estimate, 1),
                "old_estimate_s": round(users * parts / send_rate(settings, False), 1), "real_s": round(real, 1),
                "real_over_estimate": round(real / estimate, 3), "sent": tallies(job.id).get("sent", 0),
                "429s": sim.stats()["429_total"], "deliveries": len(broadcast_deliveries(sim))}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    db_choices(parser)
    parser.add_argument("--users", type=int, default=100)
    parser.add_argument("--parts", type=int, nargs="+", default=[3, 10])
    args = parser.parse_args(argv)
    rows = []
    for kind in db_kinds(args.db):
        for parts in args.parts:
            with fresh_database(kind) as url:
                migrate(url)
                rows.append(run(kind, url, parts, args.users))
    print_table(rows, COLUMNS, "album broadcast: real duration vs the screen's estimate")
    write_results("album_eta", args, rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
