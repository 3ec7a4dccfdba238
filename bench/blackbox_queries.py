"""Statements per message, black-box, as an operator runs a broadcast: `broadcast create`, one `broadcast pump`.

The run: a simulated Bot API on loopback (80 ms ± 10 %, Telegram's limits),
a fresh database, the app served by `gunicorn -w 2 wsgi:app`, --users users
inserted (or, with --register webhook, each sending /start through the web
app, which answers them), the web app then idle for --idle seconds, then
`flask broadcast create --audience all --text ...` and one `flask broadcast
pump --job N`, each a process of its own, at the default 29/s.

Counted as a host's query cap counts them (bench/questions.py):
- MariaDB: the server's own `Questions` and `Com_*` counters. The run gets a
  private server started from the same binary (tests/idle_mariadb.py), so
  the global counters hold this run's connections only; the counting reads
  are taken off. Before the broadcast, --idle seconds of the idle web app
  are counted too (they must be 0).
- SQLite: the driver's trace (every statement, BEGIN and COMMIT included) of
  `broadcast create` and the pump run in this process (the same CLI code:
  the click command and run_once), the web app idle under gunicorn beside it.

    .venv/bin/python -m bench.blackbox_queries [--db mariadb|sqlite|both] [--runs 3] [--register webhook] [--idle 10]
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

if __package__ in (None, ""):
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bench import questions
from bench.common import (
    ADMIN_ID,
    BASE_ID,
    POST_TIMEOUT,
    PUMP_TOKEN,
    ROOT,
    TEXT,
    TOKEN,
    WEBHOOK_SECRET,
    Simulator,
    bound_app,
    broadcast_deliveries,
    budget_engine,
    db_kinds,
    free_port,
    fresh_database,
    insert_users,
    migrate,
    start_gunicorn,
    stop_gunicorn,
    telegram_limits,
)
from bench.output import print_table, write_results

COLUMNS = ["db", "run", "users", "sent", "idle_q", "create_q", "pump_q", "queries", "q_per_msg", "pump_s", "by_kind"]
DB_NAME = "blackbox"
PUMP_SECONDS = 600
FLASK = os.path.join(os.path.dirname(sys.executable), "flask")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--db", choices=["sqlite", "mariadb", "both"], default="mariadb")
    parser.add_argument("--users", type=int, default=600)
    parser.add_argument("--latency", type=float, default=80.0, help="simulated Bot API latency (ms)")
    parser.add_argument("--idle", type=float, default=10.0, help="seconds of the idle web app counted first")
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--workers", type=int, default=2, help="gunicorn workers of the idle web app")
    parser.add_argument("--register", choices=["insert", "webhook"], default="insert",
                        help="users inserted, or each sends /start through the web app (then it idles)")
    args = parser.parse_args()
    rows = []
    for kind in db_kinds(args.db):
        for run in range(1, args.runs + 1):
            row = run_mariadb(args) if kind == "mariadb" else run_sqlite(args)
            rows.append({"db": kind, "run": run, **row})
            print(json.dumps(rows[-1], ensure_ascii=False), flush=True)
    print_table(rows, COLUMNS, "Black-box statements per message: broadcast create + one broadcast pump, web idle")
    write_results("blackbox_queries", args, rows)


def run_mariadb(args) -> dict:
    """One run on a private MariaDB server: the app's processes are its only clients."""
    from tests import idle_mariadb

    with idle_mariadb.idle_server(f"mysql+pymysql://root@127.0.0.1/{DB_NAME}?charset=utf8mb4", lambda: None) as url:
        if url is None:
            raise SystemExit("no private MariaDB server (mariadbd and mariadb-install-db are needed)")
        _create_database(url)
        return _run(args, url)


def run_sqlite(args) -> dict:
    """One run on a fresh SQLite file."""
    with fresh_database("sqlite") as url:
        return _run(args, url)


def _create_database(url: str) -> None:
    from sqlalchemy import create_engine, text
    from sqlalchemy.engine import make_url

    server = create_engine(make_url(url).set(database=""), isolation_level="AUTOCOMMIT")
    with server.connect() as conn:
        conn.execute(text(f"CREATE DATABASE `{DB_NAME}` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci"))
    server.dispose()


def _run(args, url: str) -> dict:
    """Migrate, insert users, serve the app idle, count idle, create, pump; return the row."""
    migrate(url)
    with Simulator(**telegram_limits(args.latency)) as sim:
        if args.register == "insert":
            with bound_app(url, sim.base_url):
                insert_users(args.users)
        port = free_port()
        gunicorn = start_gunicorn(url, sim.base_url, args.workers, port, channel=False)
        try:
            if args.register == "webhook":
                register(port, args.users)
            welcomes = len(broadcast_deliveries(sim))
            if url.startswith("sqlite"):
                figures = _count_in_process(args, url, sim)
            else:
                figures = _count_server(args, url, sim)
        finally:
            stop_gunicorn(gunicorn)
        sent = len(broadcast_deliveries(sim)) - welcomes
    queries = figures["create"]["queries"] + figures["pump"]["queries"]
    by_kind = {k: round(v / max(sent, 1), 3) for k, v in figures["by_kind"].items()}
    return {"users": args.users, "sent": sent, "idle_q": figures["idle"], "create_q": figures["create"]["queries"],
            "pump_q": figures["pump"]["queries"], "queries": queries, "q_per_msg": round(queries / max(sent, 1), 3),
            "pump_s": figures["pump_s"], "by_kind": by_kind}


def register(port: int, users: int) -> None:
    """Each user sends /start through the web app (a few at a time, as people do); their welcomes go out."""
    import requests

    from app.simulator.updates import message_update

    url = f"http://127.0.0.1:{port}/telegram/webhook"
    headers = {"X-Telegram-Bot-Api-Secret-Token": WEBHOOK_SECRET}
    bodies = [message_update(BASE_ID + i, text="/start", first_name=f"کاربر {i}", update_id=700_000 + i)
              for i in range(users)]
    with requests.Session() as session, ThreadPoolExecutor(max_workers=4) as pool:
        list(pool.map(lambda body: session.post(url, json=body, headers=headers, timeout=POST_TIMEOUT), bodies))


def _env(url: str, api_base: str) -> dict:
    """The production environment the CLI processes run with (as gunicorn's)."""
    return dict(os.environ, DATABASE_URL=url, TELEGRAM_API_BASE_URL=api_base, TELEGRAM_BOT_TOKEN=TOKEN,
                WEBHOOK_SECRET=WEBHOOK_SECRET, PUMP_TOKEN=PUMP_TOKEN, ADMIN_IDS=str(ADMIN_ID), LOG_LEVEL="WARNING")


def _count_server(args, url: str, sim: Simulator) -> dict:
    """MariaDB: the server's counters around idle, `broadcast create` and `broadcast pump --job N` processes."""
    from sqlalchemy import create_engine

    engine = create_engine(url)
    counter = questions.ServerQuestions(engine)
    try:
        time.sleep(args.idle)
        idle = counter.read()["queries"]
        base = counter.read()
        env = _env(url, sim.base_url)
        out = subprocess.run([FLASK, "--app", "wsgi", "broadcast", "create", "--audience", "all", "--text", TEXT],
                             cwd=ROOT, env=env, check=True, capture_output=True, text=True).stdout
        job = int(out.strip().splitlines()[-1])
        created = counter.read()
        started = time.monotonic()
        subprocess.run([FLASK, "--app", "wsgi", "broadcast", "pump", "--job", str(job), "--seconds",
                        str(PUMP_SECONDS)], cwd=ROOT, env=env, check=True, capture_output=True, text=True)
        pump_s = round(time.monotonic() - started, 1)
        done = counter.read()
    finally:
        counter.close()
        engine.dispose()
    by_kind = {k: v - base["by_kind"].get(k, 0) for k, v in done["by_kind"].items()}
    return {"idle": idle, "create": {"queries": created["queries"] - base["queries"]},
            "pump": {"queries": done["queries"] - created["queries"]}, "pump_s": pump_s,
            "by_kind": {k: v for k, v in sorted(by_kind.items()) if v > 0}}


def _count_in_process(args, url: str, sim: Simulator) -> dict:
    """SQLite: the driver's trace of `broadcast create` and the pump, run here through the CLI's own code."""
    from app.cli.pump_cmd import run_once
    from app.extensions import db
    from app.services.settings import load_settings

    with bound_app(url, sim.base_url) as app:
        app.config["ADMIN_IDS"] = frozenset({ADMIN_ID})
        counter = questions.start(db.engine, budget_engine(db.engine))
        try:
            time.sleep(args.idle)  # the web app's idle workers are other processes: not traced here
            result = app.test_cli_runner().invoke(args=["broadcast", "create", "--audience", "all", "--text", TEXT])
            if result.exit_code:
                raise RuntimeError(result.output)
            job = int(result.output.strip().splitlines()[-1])
            created = counter.read()
            started = time.monotonic()
            run_once(job, PUMP_SECONDS, load_settings())
            pump_s = round(time.monotonic() - started, 1)
            done = counter.read()
        finally:
            counter.close()
    by_kind = done["by_kind"]
    return {"idle": None, "create": {"queries": created["queries"]},
            "pump": {"queries": done["queries"] - created["queries"]}, "pump_s": pump_s, "by_kind": by_kind}


if __name__ == "__main__":
    main()
