"""Statements one handled webhook update costs, counted black-box: what a host's per-hour query cap sees.

Real webhook updates are POSTed over HTTP to the app (served by werkzeug in
this process, its replies going to the simulated Bot API in another), one at
a time, and the database's own count is read around each case:

- MariaDB: the server's `Questions` (and `Com_*`) counters, less the bench's
  own reads (bench/questions.py), on a private server started for the run
  (tests/idle_mariadb.py), so nothing else on the machine is counted;
  `--shared` uses BENCH_MARIADB_URL's server instead (then keep it quiet).
- SQLite: sqlite3's trace of every statement (BEGIN and COMMIT included).

Updates go out at --rate a second (10 by default: a busy sign-up hour is
2,000, under one a second). Back to back (--rate 0) the replies outrun the
bot-wide 30/s and some wait for a slot, which adds the late reply's checks.
The traffic fallback's look at cron (app/web/fallback.py, at most every 30 s
per process) is counted in whichever case it falls.

Cases, each over --users different users: a new user's /start, a repeat
/start, a returning user's plain message, a button press (the subscribe
button under /stop's answer), a replayed update (already processed) and a
press of a broadcast's tag-on-tap button (the broadcast sent first, not counted).

    .venv/bin/python -m bench.webhook_queries --db both --users 30
"""
from __future__ import annotations

import argparse
import contextlib
import json
import threading
import time

from bench.common import MARIADB_SERVER, Simulator, bound_app, fresh_database, migrate
from bench.output import print_table
from bench.questions import start as start_counting

BASE = 7_000_000_000
# Each user's chat takes one message a second: a case waits this long before the next writes to the same chats.
CHAT_GAP_SECONDS = 1.2
CASES = ("new /start", "repeat /start", "message", "button", "replay", "tap button")
# The three kinds the budget names (the average is over these).
HANDLED = ("new /start", "message", "button")
COLUMNS = ["db", "case", "per_update", "by_kind"]


def updates_for(case: str, users: list[int], update_ids, tap_data: str = "") -> list[dict]:
    """The case's updates, one per user."""
    from app.simulator.updates import callback_update, message_update

    if case in ("new /start", "repeat /start"):
        return [message_update(u, "/start", update_id=next(update_ids)) for u in users]
    if case == "message":
        return [message_update(u, "hello there", update_id=next(update_ids)) for u in users]
    if case == "tap button":
        return [callback_update(u, tap_data, u, 1, update_id=next(update_ids)) for u in users]
    return [callback_update(u, "u.sub", u, 1, update_id=next(update_ids)) for u in users]


def tap_broadcast() -> str:
    """Send every user a broadcast with a tag-on-tap button (not counted); return the button's callback data."""
    from app.services.audience import tap
    from app.services.broadcast.jobs.creation import create_job
    from app.services.broadcast.sending.drain import pump
    from bench.common import ADMIN_ID, engine_settings

    settings = engine_settings()
    job_id = create_job(audience="all", created_by=ADMIN_ID, content={"type": "text", "text": "🎁 offer"},
                        settings=settings, tap={"text": "🎁 I want it", "tag": "offer"}).id
    while pump(job_id, 10, settings=settings).stop not in ("done", "cancelled"):
        pass
    return tap.callback_data(job_id)


def serve(app):
    """Serve the app with werkzeug on a free loopback port in a daemon thread; return (server, port)."""
    import logging

    from werkzeug.serving import make_server

    logging.getLogger("werkzeug").setLevel(logging.WARNING)  # no line per request
    server = make_server("127.0.0.1", 0, app, threaded=False)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, server.server_port


def post(port: int, update: dict) -> str:
    """POST one update as Telegram does; return the outcome the app answered."""
    import requests

    from bench.common import WEBHOOK_SECRET

    response = requests.post(f"http://127.0.0.1:{port}/telegram/webhook", data=json.dumps(update),
                             headers={"Content-Type": "application/json",
                                      "X-Telegram-Bot-Api-Secret-Token": WEBHOOK_SECRET}, timeout=30)
    response.raise_for_status()
    return response.json()["outcome"]


def post_all(port: int, batch: list[dict], rate: float) -> set[str]:
    """POST the updates at most ``rate`` a second (0: back to back); return the outcomes seen."""
    outcomes, start = set(), time.monotonic()
    for i, update in enumerate(batch):
        if rate > 0:
            time.sleep(max(0.0, start + i / rate - time.monotonic()))
        outcomes.add(post(port, update))
    return outcomes


def measure(kind: str, url: str, n: int, rate: float) -> list[dict]:
    """Run every case on one database; return a row per case."""
    from app.extensions import db
    from app.repository.budget.engine import budget_engine

    migrate(url)
    rows = []
    with Simulator() as sim, bound_app(url, sim.base_url) as app:
        server, port = serve(app)
        update_ids = iter(range(10_000, 10_000_000))
        try:
            # Warm-up (one user, every kind): the process's first connections and clock reading are not a case's.
            for case in CASES[:4]:
                for update in updates_for(case, [BASE - 1], update_ids):
                    post(port, update)
            time.sleep(CHAT_GAP_SECONDS)
            users = [BASE + i for i in range(n)]
            sent: list[dict] = []
            tap_data = ""
            for case in CASES:
                if case == "tap button":
                    tap_data = tap_broadcast()
                    time.sleep(CHAT_GAP_SECONDS)
                batch = sent[:n] if case == "replay" else updates_for(case, users, update_ids, tap_data)
                counter = start_counting(db.engine, budget_engine(db.engine))
                try:
                    outcomes = post_all(port, batch, rate)
                    done = counter.read()
                finally:
                    counter.close()
                want = "duplicate" if case == "replay" else "handled"
                if outcomes != {want}:
                    raise RuntimeError(f"{case}: the app answered {outcomes}, not {want}")
                sent = batch
                rows.append({"db": kind, "case": case, "per_update": round(done["queries"] / n, 2),
                             "by_kind": " ".join(f"{k} {v / n:g}" for k, v in done["by_kind"].items())})
                time.sleep(CHAT_GAP_SECONDS)
        finally:
            server.shutdown()
    average = sum(r["per_update"] for r in rows if r["case"] in HANDLED) / len(HANDLED)
    rows.append({"db": kind, "case": "average of " + ", ".join(HANDLED), "per_update": round(average, 2),
                 "by_kind": ""})
    return rows


@contextlib.contextmanager
def mariadb_database(shared: bool):
    """Yield a fresh database's URL, on a private server unless shared."""
    import bench.common as common

    if shared:
        with fresh_database("mariadb") as url:
            yield url
        return
    from tests.idle_mariadb import idle_server

    with idle_server(MARIADB_SERVER + "x", lambda: None) as moved:
        if moved is None:
            raise RuntimeError("no private MariaDB server could start: use --shared on a quiet server")
        server = moved.rsplit("/", 1)[0] + "/"
        saved, common.MARIADB_SERVER = common.MARIADB_SERVER, server
        try:
            with fresh_database("mariadb") as url:
                yield url
        finally:
            common.MARIADB_SERVER = saved


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", choices=("sqlite", "mariadb", "both"), default="both")
    parser.add_argument("--users", type=int, default=30, help="updates per case (one per user)")
    parser.add_argument("--rate", type=float, default=10.0,
                        help="updates a second (0: back to back; past Telegram's 30/s replies wait for the budget)")
    parser.add_argument("--shared", action="store_true", help="MariaDB: use BENCH_MARIADB_URL's server")
    args = parser.parse_args(argv)
    rows = []
    if args.db in ("sqlite", "both"):
        with fresh_database("sqlite") as url:
            rows += measure("sqlite", url, args.users, args.rate)
    if args.db in ("mariadb", "both"):
        with mariadb_database(args.shared) as url:
            rows += measure("mariadb", url, args.users, args.rate)
    print_table(rows, COLUMNS, title="statements per webhook update (MariaDB: server's Questions; SQLite: driver "
                                     "trace), replies to the simulated Bot API")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
