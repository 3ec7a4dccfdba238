"""Exporting a job's ledger as CSV (keyset pages), time and peak memory, on MariaDB and SQLite.

A job of --rows items (9 in 10 sent with a message id, 1 in 10 failed with an
error) is exported twice through app.services.broadcast.reporting.export.export_csv:
once timed (to a file on disk, as the CLI writes), once under tracemalloc for
the peak of Python allocations; ru_maxrss (the process's peak RSS) is read
before and after. The bot's path (a SpooledTemporaryFile, 1 MiB in memory
then disk) is timed too.

    .venv/bin/python -m bench.export_ledger [--db both] [--rows 200000]
"""
from __future__ import annotations

import argparse
import os
import resource
import sys
import tempfile
import time
import tracemalloc

if __package__ in (None, ""):
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bench.common import BASE_ID, bound_app, create_text_job, db_choices, db_kinds, engine_settings, fresh_database
from bench.common import migrate as migrate_db
from bench.output import print_table, write_results

COLUMNS = ["db", "rows", "csv_mb", "export_s", "rows_per_s", "spooled_s", "peak_py_mb", "maxrss_mb_before",
           "maxrss_mb_after", "setup_s"]


def seed(rows: int, chunk: int = 5000) -> int:
    """Insert rows users (usernames on most) and a finished-looking job over them; return its id."""
    from sqlalchemy import case, insert, update

    from app.clock import utcnow
    from app.extensions import db
    from app.models import BroadcastJobItem, User

    now = utcnow()
    for start in range(0, rows, chunk):
        db.session.execute(insert(User), [
            dict(id=BASE_ID + i, first_name=f"کاربر {i}", username=f"user_{i}" if i % 7 else None,
                 is_blocked=False, main_channel_status="unknown", started_at=now, last_seen_at=now)
            for i in range(start, min(start + chunk, rows))])
        db.session.commit()
    job = create_text_job(engine_settings())
    job_id = job.id
    item = BroadcastJobItem
    failed = (item.id % 10) == 0
    db.session.execute(update(item).where(item.job_id == job_id).values(
        status=case((failed, "failed"), else_="sent"),
        error=case((failed, "Bad Request: message is too long, سلام"), else_=None),
        sent_at=case((failed, None), else_=now), message_id=case((failed, None), else_=item.id + 1000)))
    db.session.commit()
    return job_id


def mb(value: float) -> float:
    return round(value / (1 << 20), 1)


def maxrss_bytes() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # kilobytes on Linux


def run(kind: str, rows: int) -> dict:
    from app.services.broadcast.reporting.export import export_csv

    with fresh_database(kind) as url:
        migrate_db(url)
        with bound_app(url, "http://127.0.0.1:9"):
            started = time.perf_counter()
            job_id = seed(rows)
            setup_s = time.perf_counter() - started
            rss_before = maxrss_bytes()
            with tempfile.TemporaryDirectory() as folder:
                path = os.path.join(folder, "ledger.csv")
                started = time.perf_counter()
                with open(path, "wb") as out:
                    written = export_csv(job_id, out)
                export_s = time.perf_counter() - started
                size = os.path.getsize(path)
            started = time.perf_counter()
            with tempfile.SpooledTemporaryFile(max_size=1 << 20) as spool:
                export_csv(job_id, spool)
            spooled_s = time.perf_counter() - started
            tracemalloc.start()
            with open(os.devnull, "wb") as sink:
                export_csv(job_id, sink)
            _, peak = tracemalloc.get_traced_memory()
            tracemalloc.stop()
            rss_after = maxrss_bytes()
    assert written == rows, (written, rows)
    return {"db": kind, "rows": rows, "csv_mb": mb(size), "export_s": round(export_s, 2),
            "rows_per_s": round(rows / export_s), "spooled_s": round(spooled_s, 2), "peak_py_mb": mb(peak),
            "maxrss_mb_before": mb(rss_before), "maxrss_mb_after": mb(rss_after), "setup_s": round(setup_s, 1)}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    db_choices(parser, default="both", both=True)
    parser.add_argument("--rows", type=int, default=200_000)
    args = parser.parse_args(argv)
    rows = []
    for kind in db_kinds(args.db):
        rows.append(run(kind, args.rows))
        print_table(rows[-1:], COLUMNS)
    print_table(rows, COLUMNS, title=f"Ledger export: {args.rows} rows, CSV in keyset pages")
    write_results("export_ledger", args, rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
