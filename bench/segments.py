"""Segments at scale: a segment's count and a job's population (one INSERT … SELECT per chunk) on N users.

Builds N users (scale.py's mix) with tags (vip 5 %, news 30 %, churn 10 %) and fields (plan: gold 3 %,
silver 12 %, free otherwise; city for half), and one delivered broadcast (every 4th user, a tenth of
them clicked); then times, per rule, `count` (median of --repeat) and create_job's whole population.

    .venv/bin/python -m bench.segments [--db mariadb] [--users 1000000] [--repeat 3] [--reuse NAME]
                                       [--history N] [--only RULE]

--history N first delivers N older broadcasts to every user (N million more item rows at 1M users), as
weeks of broadcasts leave them: a population writes into every index of the items table.

--reuse NAME keeps the database (MariaDB: database NAME; SQLite: the file NAME) and reuses it the next
time when it already holds the N users: a 1M build takes minutes, a rerun only the measurements. The
migrations run either way (a new index lands on the kept database), and each rule's job is deleted
after it is timed, so every rule and every run sees the same tables.
"""
from __future__ import annotations

import argparse
import contextlib
import os
import sys
import time

if __package__ in (None, ""):
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bench.common import (
    BASE_ID,
    MARIADB_SERVER,
    bound_app,
    db_choices,
    db_kinds,
    engine_settings,
    fresh_database,
    migrate,
)
from bench.output import print_table, write_results
from bench.scale import median_time, seed_users

COLUMNS = ["db", "users", "history", "rule", "count", "count_s", "populate_s", "target_count_0.3s",
           "target_populate_8s", "load_1m"]
JOB = 1
HISTORY_BASE = 1000  # --history's broadcasts are jobs 1001, 1002, …
CITIES = ("تهران", "شیراز", "مشهد", "تبریز")


def seed_audience(n: int, chunk: int = 20_000) -> float:
    """Insert tags, fields and one delivered broadcast for the n users; return seconds."""
    from sqlalchemy import insert

    from app.clock import utcnow
    from app.extensions import db
    from app.models import BroadcastJob, BroadcastJobItem
    from app.models.user_data import UserField, UserTag

    started, now = time.perf_counter(), utcnow()
    db.session.add(BroadcastJob(id=JOB, status="completed", audience="all", content_type="text", text="x",
                                created_at=now))
    db.session.commit()
    for start in range(0, n, chunk):
        ids = range(start, min(start + chunk, n))
        tags = [dict(user_id=BASE_ID + i, tag=t, origin="cli", created_at=now) for i in ids
                for t, every in (("vip", 20), ("news", 3), ("churn", 10)) if i % every == 0]
        fields = [dict(user_id=BASE_ID + i, name="plan", value="gold" if i % 33 == 0 else
                       "silver" if i % 8 == 0 else "free", updated_at=now) for i in ids]
        fields += [dict(user_id=BASE_ID + i, name="city", value=CITIES[i % 4], updated_at=now) for i in ids if i % 2]
        items = [dict(job_id=JOB, user_id=BASE_ID + i, status="sent", clicked_at=now if i % 40 == 0 else None)
                 for i in ids if i % 4 == 0]
        for model, rows in ((UserTag, tags), (UserField, fields), (BroadcastJobItem, items)):
            db.session.execute(insert(model), rows)
        db.session.commit()
    return time.perf_counter() - started


def seed_history(jobs: int, users: int, chunk: int = 100_000) -> float:
    """Make sure `jobs` older broadcasts delivered a copy to every user (a bot's history); return seconds spent.

    A broadcast's items stay: after weeks of broadcasts the items table holds many copies per user, and a
    new population writes into every index the table has. Kept with --reuse, so only missing jobs are built.
    """
    from sqlalchemy import func, insert, literal, select

    from app.clock import utcnow
    from app.extensions import db
    from app.models import BroadcastJob, BroadcastJobItem, User

    started, now = time.perf_counter(), utcnow()
    have = db.session.execute(select(func.count()).select_from(BroadcastJob)
                              .where(BroadcastJob.id > HISTORY_BASE)).scalar_one()
    for job_id in range(HISTORY_BASE + have + 1, HISTORY_BASE + jobs + 1):
        db.session.add(BroadcastJob(id=job_id, status="completed", audience="all", content_type="text", text="h",
                                    created_at=now, finished_at=now))
        db.session.commit()
        for start in range(BASE_ID, BASE_ID + users, chunk):
            rows = select(literal(job_id), User.id, literal("sent"), literal(now)).where(User.id >= start,
                                                                                          User.id < start + chunk)
            db.session.execute(insert(BroadcastJobItem).from_select(["job_id", "user_id", "status", "sent_at"],
                                                                    rows))
            db.session.commit()
    return time.perf_counter() - started


def rules() -> dict:
    """Return the rules measured, by name."""
    from app.models.audience import Audience
    from app.models.segment_rule import FieldTest, Rule, Target

    vip = Rule(tags_any=("vip",))
    return {
        "tag vip": Target(vip, "vip"),
        "tag news (a third)": Target(Rule(tags_any=("news",)), "news"),
        "news & !churn & fa": Target(Rule(Audience(langs=("fa",)), tags_any=("news",), tags_none=("churn",)), "n"),
        "plan=gold": Target(Rule(fields=(FieldTest("plan", "=", ("gold",)),)), "gold"),
        "plan!=free & city in": Target(Rule(fields=(FieldTest("plan", "!=", ("free",)),
                                                    FieldTest("city", "in", CITIES[:2])),), "paid"),
        "received, not clicked": Target(Rule(not_clicked=(JOB,)), "nc"),
        "not clicked, seen today": Target(Rule(Audience(active_days=1), not_clicked=(JOB,)), "nc1"),
        "all - vip - churn": Target(Rule(), None, (("vip", vip), ("churn", Rule(tags_any=("churn",))))),
    }


@contextlib.contextmanager
def kept_database(kind: str, name: str):
    """Yield the URL of database `name` (a MariaDB database, or an SQLite file path), created if missing, kept."""
    if kind == "sqlite":
        yield "sqlite:///" + os.path.abspath(name)
        return
    from sqlalchemy import create_engine, text

    server = create_engine(MARIADB_SERVER, isolation_level="AUTOCOMMIT")
    with server.connect() as conn:
        conn.execute(text(f"CREATE DATABASE IF NOT EXISTS `{name}` CHARACTER SET utf8mb4 "
                          "COLLATE utf8mb4_unicode_ci"))
    server.dispose()
    yield f"{MARIADB_SERVER.rstrip('/')}/{name}?charset=utf8mb4"


def seeded(users: int) -> bool:
    """Tell whether the bound database already holds the bench's users, tags, fields and delivered job."""
    from sqlalchemy import func, select

    from app.extensions import db
    from app.models import BroadcastJob, User

    found = db.session.execute(select(func.count()).select_from(User)).scalar_one()
    job = db.session.get(BroadcastJob, JOB)
    db.session.commit()
    if found and (found != users or job is None):
        raise SystemExit(f"the kept database holds {found} users (not {users}) or no job {JOB}: drop it first")
    return bool(found)


def drop_job(job_id: int) -> None:
    """Delete a measured job and its items (ON DELETE CASCADE), so the next rule sees the same tables."""
    from sqlalchemy import delete

    from app.extensions import db
    from app.models import BroadcastJob, BroadcastJobItem

    db.session.execute(delete(BroadcastJobItem).where(BroadcastJobItem.job_id == job_id))
    db.session.execute(delete(BroadcastJob).where(BroadcastJob.id == job_id))
    db.session.commit()
    wait_for_purge()


def wait_for_purge(limit: float = 120) -> None:
    """On MariaDB, wait (up to limit s) until InnoDB purged the deleted items: purging would slow the next rule."""
    from sqlalchemy import text

    from app.extensions import db

    if db.engine.dialect.name == "sqlite":
        return
    query = text("SELECT `count` FROM information_schema.innodb_metrics WHERE name = 'trx_rseg_history_len'")
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline and (db.session.execute(query).scalar() or 0) > 1000:
        db.session.commit()
        time.sleep(0.5)
    db.session.commit()


def measure(kind: str, users: int, repeat: int, reuse: str | None = None, history: int = 0,
            only: str | None = None) -> list[dict]:
    """Build the users (or reuse a kept database holding them) and time each rule's count and population."""
    from app.services.audience.segments import count_rule
    from app.services.broadcast.jobs import creation
    from app.services.broadcast.jobs.control import cancel_job

    out = []
    with (kept_database(kind, reuse) if reuse else fresh_database(kind)) as url:
        migrate(url)
        with bound_app(url, "http://127.0.0.1:9"):
            if reuse and seeded(users):
                print(f"reusing {reuse}: {users} users", file=sys.stderr)
            else:
                seed_users(users)
                print(f"seeded {users} users (+ tags, fields, items) in {seed_audience(users):.1f} s",
                      file=sys.stderr)
            if history:
                print(f"history: {history} broadcasts to every user, built in {seed_history(history, users):.1f} s",
                      file=sys.stderr)
            for name, target in rules().items():
                if only and name != only:
                    continue
                n = count_rule(target)
                count_s = median_time(lambda t=target: count_rule(t), repeat)
                started = time.perf_counter()
                job = creation.create_job(audience=target, created_by=None, settings=engine_settings(),
                                          content={"type": "text", "text": "x"})
                populate_s = time.perf_counter() - started
                assert job.total_count == n, (name, job.total_count, n)
                cancel_job(job.id)
                drop_job(job.id)
                print(f"{name}: {n} users, count {count_s:.3f} s, populate {populate_s:.2f} s "
                      f"(load {os.getloadavg()[0]:.2f})", file=sys.stderr)
                out.append({"db": kind, "users": users, "history": history, "rule": name, "count": n,
                            "count_s": round(count_s, 3),
                            "populate_s": round(populate_s, 2), "target_count_0.3s": count_s <= 0.3,
                            "target_populate_8s": populate_s <= 8, "load_1m": round(os.getloadavg()[0], 2)})
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    db_choices(parser, default="mariadb")
    parser.add_argument("--users", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--history", type=int, default=0, metavar="N",
                        help="N older broadcasts delivered to every user first (kept with --reuse)")
    parser.add_argument("--only", metavar="RULE", help="measure this rule alone (its name as printed)")
    parser.add_argument("--reuse", metavar="NAME",
                        help="keep the database NAME (SQLite: a file) and reuse it when it holds the users")
    args = parser.parse_args(argv)
    if args.reuse and args.db == "both":
        parser.error("--reuse names one database: pick --db sqlite or --db mariadb")
    rows = [row for kind in db_kinds(args.db) for row in measure(kind, args.users, args.repeat, args.reuse,
                                                                      args.history, args.only)]
    print_table(rows, COLUMNS)
    write_results("segments", args, rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
