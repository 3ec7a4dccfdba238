"""A broadcast's results picture at scale: the SQL that groups its numbers, and the drawing, on MariaDB and SQLite.

A job of --rows items is seeded as if sent over an hour (one copy every 36 ms),
1 in 20 failed, 1 in 25 clicked within two hours, 1 in 200 blocked the bot
after their copy, plus 10 earlier broadcasts over the same users (the bars
beside it). Timed: compute() (every query the picture needs) and
render_png() (cold: the first matplotlib import and picture; warm: the next).
Python's peak allocation during compute() shows no row is loaded.

    .venv/bin/python -m bench.results_picture [--db both] [--rows 100000]
"""
from __future__ import annotations

import argparse
import os
import sys
import time
import tracemalloc

if __package__ in (None, ""):
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bench.common import bound_app, create_text_job, db_choices, db_kinds, engine_settings, fresh_database, insert_users
from bench.common import migrate as migrate_db
from bench.output import print_table, write_results

COLUMNS = ["db", "rows", "compute_s", "peak_py_kb", "render_cold_s", "render_warm_s", "png_kb", "setup_s"]
EARLIER = 10


def seed(rows: int) -> int:
    """Insert the users, 10 earlier broadcasts and the measured one; return its id."""
    from datetime import datetime

    from sqlalchemy import case, func, literal, update

    from app.extensions import db
    from app.models import BroadcastJob, BroadcastJobItem, User

    insert_users(rows)
    item, start = BroadcastJobItem, datetime(2026, 12, 1, 9, 0, 0)
    dialect = db.engine.dialect.name
    for _ in range(EARLIER + 1):
        job_id = create_text_job(engine_settings()).id
        ms = item.id * 36 % 3_600_000
        if dialect == "sqlite":
            sent_at = func.datetime(literal(start.isoformat(" ")), func.printf("+%d seconds", ms / 1000))
            clicked = func.datetime(literal(start.isoformat(" ")), func.printf("+%d seconds", ms / 1000 + 600))
        else:
            sent_at = func.timestampadd(text_unit("SECOND"), ms / 1000, start)
            clicked = func.timestampadd(text_unit("SECOND"), ms / 1000 + 600, start)
        failed = (item.id % 20) == 0
        db.session.execute(update(item).where(item.job_id == job_id).values(
            status=case((failed, "failed"), else_="sent"), sent_at=case((failed, None), else_=sent_at),
            clicked_at=case(((item.id % 25) == 0, clicked), else_=None)))
        sent = db.session.query(func.count()).filter(item.job_id == job_id, item.status == "sent").scalar()
        db.session.execute(update(BroadcastJob).where(BroadcastJob.id == job_id).values(
            status="completed", sent_count=sent, clicks_unique=sent // 25, clicks_total=sent // 20,
            button_text="بیشتر", button_url="https://example.ir/x", started_at=start))
        db.session.commit()
    db.session.execute(update(User).where(User.id % 200 == 0).values(is_blocked=True,
                                                                     blocked_at=datetime(2026, 12, 2)))
    db.session.commit()
    return job_id


def text_unit(unit: str):
    """Return a bare SQL keyword (TIMESTAMPADD's unit)."""
    from sqlalchemy import literal_column

    return literal_column(unit)


def run(kind: str, rows: int) -> dict:
    from app.services.broadcast.reporting.chart import render_png
    from app.services.broadcast.reporting.results import compute

    with fresh_database(kind) as url:
        migrate_db(url)
        with bound_app(url, "http://127.0.0.1:9"):
            started = time.perf_counter()
            job_id = seed(rows)
            setup_s = time.perf_counter() - started
            compute(job_id)  # warm the database's cache: a picture is asked for after a send, pages in memory
            tracemalloc.start()
            started = time.perf_counter()
            results = compute(job_id)
            compute_s = time.perf_counter() - started
            _, peak = tracemalloc.get_traced_memory()
            tracemalloc.stop()
            started = time.perf_counter()
            render_png(results, "fa")
            cold = time.perf_counter() - started
            started = time.perf_counter()
            png = render_png(results, "fa")
            warm = time.perf_counter() - started
    assert results.delivered == rows - rows // 20, results.delivered
    return {"db": kind, "rows": rows, "compute_s": round(compute_s, 3), "peak_py_kb": round(peak / 1024),
            "render_cold_s": round(cold, 2), "render_warm_s": round(warm, 2), "png_kb": round(len(png) / 1024),
            "setup_s": round(setup_s, 1)}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    db_choices(parser, default="both", both=True)
    parser.add_argument("--rows", type=int, default=100_000)
    args = parser.parse_args(argv)
    rows = []
    for kind in db_kinds(args.db):
        rows.append(run(kind, args.rows))
        print_table(rows[-1:], COLUMNS)
    print_table(rows, COLUMNS, title=f"Results picture: a job of {args.rows} items beside {EARLIER} earlier ones")
    write_results("results_picture", args, rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
