"""Populating a job's items with one INSERT … SELECT, on MariaDB and SQLite.

Times the bare repository call (broadcast_population.populate() plus its COMMIT, on
a draft job row) and the whole create_job() (job row, populate, total, queue,
promote), each --repeat times on the same users; the median is reported.

    .venv/bin/python -m bench.population [--db both] [--users 100000] [--repeat 3]
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

if __package__ in (None, ""):
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bench.common import (
    ADMIN_ID,
    bound_app,
    create_text_job,
    db_choices,
    db_kinds,
    engine_settings,
    fresh_database,
    insert_users,
    migrate,
)
from bench.output import print_table, write_results

COLUMNS = ["db", "users", "populate_s", "create_job_s", "items_per_s", "target_2s", "insert_users_s"]


def time_populate() -> float:
    """Insert a draft job row, then time populate() + COMMIT alone."""
    from app.clock import utcnow
    from app.extensions import db
    from app.models.broadcast import BroadcastJob
    from app.repository.broadcast_population import populate

    job = BroadcastJob(status="draft", audience="all", content_type="text", text="x", created_by=ADMIN_ID,
                       created_at=utcnow())
    db.session.add(job)
    db.session.commit()
    started = time.perf_counter()
    populate(job.id, "all")
    db.session.commit()
    return time.perf_counter() - started


def time_create_job() -> float:
    """Time create_job() end to end, then cancel the job so the next one can run."""
    from app.services.broadcast.jobs.control import cancel_job

    settings = engine_settings()
    started = time.perf_counter()
    job = create_text_job(settings)
    elapsed = time.perf_counter() - started
    cancel_job(job.id)
    return elapsed


def run(kind: str, users: int, repeat: int) -> dict:
    with fresh_database(kind) as url:
        migrate(url)
        with bound_app(url, "http://127.0.0.1:9"):
            started = time.perf_counter()
            insert_users(users)
            insert_s = time.perf_counter() - started
            populate_s = [time_populate() for _ in range(repeat)]
            create_s = [time_create_job() for _ in range(repeat)]
    pop, create = statistics.median(populate_s), statistics.median(create_s)
    return {"db": kind, "users": users, "populate_s": round(pop, 3), "create_job_s": round(create, 3),
            "items_per_s": round(users / create), "target_2s": "met" if create <= 2 else "missed",
            "insert_users_s": round(insert_s, 2), "populate_runs_s": [round(x, 3) for x in populate_s],
            "create_job_runs_s": [round(x, 3) for x in create_s]}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    db_choices(parser, default="both", both=True)
    parser.add_argument("--users", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    rows = []
    for kind in db_kinds(args.db):
        rows.append(run(kind, args.users, args.repeat))
        print_table(rows[-1:], COLUMNS)
    print_table(rows, COLUMNS, title=f"Population: INSERT … SELECT of {args.users} users (median of {args.repeat})")
    write_results("population", args, rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
