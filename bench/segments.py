"""Segments at scale: a segment's count and a job's population (one INSERT … SELECT per chunk) on N users.

Builds N users (scale.py's mix) with tags (vip 5 %, news 30 %, churn 10 %) and fields (plan: gold 3 %,
silver 12 %, free otherwise; city for half), and one delivered broadcast (every 4th user, a tenth of
them clicked); then times, per rule, `count` (median of --repeat) and create_job's whole population.

    .venv/bin/python -m bench.segments [--db mariadb] [--users 1000000] [--repeat 3]
"""
from __future__ import annotations

import argparse
import os
import sys
import time

if __package__ in (None, ""):
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bench.common import BASE_ID, bound_app, db_choices, db_kinds, engine_settings, fresh_database, migrate
from bench.output import print_table, write_results
from bench.scale import median_time, seed_users

COLUMNS = ["db", "users", "rule", "count", "count_s", "populate_s", "target_count_0.3s", "target_populate_8s"]
JOB = 1
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


def rules() -> dict:
    """Return the rules measured, by name."""
    from app.models.audience import Audience
    from app.models.segment_rule import FieldTest, Rule, Target

    vip = Rule(tags_any=("vip",))
    return {
        "tag vip": Target(vip, "vip"),
        "news & !churn & fa": Target(Rule(Audience(langs=("fa",)), tags_any=("news",), tags_none=("churn",)), "n"),
        "plan=gold": Target(Rule(fields=(FieldTest("plan", "=", ("gold",)),)), "gold"),
        "plan!=free & city in": Target(Rule(fields=(FieldTest("plan", "!=", ("free",)),
                                                    FieldTest("city", "in", CITIES[:2])),), "paid"),
        "received, not clicked": Target(Rule(not_clicked=(JOB,)), "nc"),
        "all - vip - churn": Target(Rule(), None, (("vip", vip), ("churn", Rule(tags_any=("churn",))))),
    }


def measure(kind: str, users: int, repeat: int) -> list[dict]:
    """Build the users and time each rule's count and population."""
    from app.services.audience.segments import count_rule
    from app.services.broadcast.jobs import creation
    from app.services.broadcast.jobs.control import cancel_job

    out = []
    with fresh_database(kind) as url:
        migrate(url)
        with bound_app(url, "http://127.0.0.1:9"):
            seed_users(users)
            print(f"seeded {users} users (+ tags, fields, items) in {seed_audience(users):.1f} s", file=sys.stderr)
            for name, target in rules().items():
                n = count_rule(target)
                count_s = median_time(lambda t=target: count_rule(t), repeat)
                started = time.perf_counter()
                job = creation.create_job(audience=target, created_by=None, settings=engine_settings(),
                                          content={"type": "text", "text": "x"})
                populate_s = time.perf_counter() - started
                assert job.total_count == n, (name, job.total_count, n)
                cancel_job(job.id)
                out.append({"db": kind, "users": users, "rule": name, "count": n, "count_s": round(count_s, 3),
                            "populate_s": round(populate_s, 2), "target_count_0.3s": count_s <= 0.3,
                            "target_populate_8s": populate_s <= 8})
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    db_choices(parser, default="mariadb")
    parser.add_argument("--users", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    rows = [row for kind in db_kinds(args.db) for row in measure(kind, args.users, args.repeat)]
    print_table(rows, COLUMNS)
    write_results("segments", args, rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
