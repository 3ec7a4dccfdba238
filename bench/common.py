"""Shared benchmark plumbing: a simulator process, gunicorn, a fresh database, the app, users, jobs, rates.

Every benchmark runs the real engine (create_job, pump, pump_all) against the
simulated Bot API running in a separate process, so the simulator's CPU does
not share the engine's GIL (it still shares the machine's 2 cores).
"""
from __future__ import annotations

import argparse
import contextlib
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import uuid

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

RESULTS = os.path.join(ROOT, "bench", "results")
TOKEN = "123456:BENCH-token-abcdefghijklmnop"
WEBHOOK_SECRET = "bench-webhook-secret-XYZ"
PUMP_TOKEN = "bench-pump-token-QRS"
ADMIN_ID = 1001
BASE_ID = 5_000_000_000  # above 2^31, like real Telegram user ids
MARIADB_SERVER = os.environ.get("BENCH_MARIADB_URL", "mysql+pymysql://root@127.0.0.1:3306/")
# Telegram's bot-wide limit and the allow_paid_broadcast one, as the benches' simulator enforces them.
TELEGRAM_RATE, PAID_RATE = 30, 1000
TEXT = "<b>سلام</b> به همه 👋 — benchmark broadcast"
# --tracking: the app's public base for tracked links, and the button's own URL.
PUBLIC_URL = "https://bench.example.com"
BUTTON_URL = "https://example.com/offer"


# -- simulator in its own process ---------------------------------------------------------------

class Simulator:
    """`python -m app.simulator --port 0 ...` in a child process, driven over /_sim/."""

    def __init__(self, **config):
        self.config = config
        self.proc: subprocess.Popen | None = None
        self.base_url = ""
        self.control = None

    def start(self) -> Simulator:
        """Spawn the process and wait for its 'listening on' line."""
        from app.simulator.control import SimulatorControl

        cmd = [sys.executable, "-m", "app.simulator", "--port", "0", "--token", TOKEN]
        for key, value in self.config.items():
            flag = "--" + key.replace("_", "-")
            if isinstance(value, bool):
                cmd.append(flag if value else "--no-" + flag[2:])
            elif isinstance(value, (tuple, list)):
                cmd += [flag, *map(str, value)]
            elif value is not None:
                cmd += [flag, str(value)]
        self.proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, text=True)
        line = self.proc.stdout.readline()
        match = re.search(r"listening on (http://\S+)", line)
        if not match:
            self.stop()
            raise RuntimeError(f"simulator did not start: {line!r}")
        self.base_url = match.group(1)
        self.control = SimulatorControl(self.base_url).wait_ready()
        return self

    @property
    def api_url(self) -> str:
        return f"{self.base_url}/bot{TOKEN}"

    def stats(self) -> dict:
        return self.control.stats()

    def deliveries(self, method: str | None = None) -> list[dict]:
        return self.control.deliveries(method)

    def cpu_seconds(self) -> float:
        """CPU time (user+system) the simulator process has used so far."""
        with open(f"/proc/{self.proc.pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def stop(self) -> None:
        if self.control is not None:
            self.control.close()
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def __enter__(self) -> Simulator:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()


def jittered(latency_ms: float, jitter: float = 0.10) -> dict:
    """Simulator latency of latency_ms ± jitter (the simulator adds uniform(0, jitter_ms))."""
    return {"latency_ms": latency_ms * (1 - jitter), "latency_jitter_ms": latency_ms * 2 * jitter}


def telegram_limits(latency_ms: float, jitter: float = 0.10) -> dict:
    """Simulator config of Telegram's limits (30/s bot-wide, 1000/s paid, 1/s per chat), latency ± jitter (10 %)."""
    return dict(global_rate=TELEGRAM_RATE, paid_rate=PAID_RATE, per_chat_limits=True, **jittered(latency_ms, jitter))


# -- gunicorn serving the app, as production's web server would --------------------------------

MAIN_CHANNEL_ID = -1001234567890
# gunicorn imports the app and binds in a second or two; a loaded machine takes longer (30 s was seen to fail).
GUNICORN_START_SECONDS = 120
# How often, and how patiently, /healthz is asked while gunicorn starts.
HEALTH_POLL_SECONDS, HEALTH_TIMEOUT = 0.2, 2
# A webhook POST still unanswered this long is counted as an error, not waited for.
POST_TIMEOUT = 30
# SIGTERM lets workers finish their request; one not gone after this long is stuck.
GUNICORN_STOP_SECONDS = 30


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_gunicorn(url: str, api_base: str, workers: int, port: int, channel: bool) -> subprocess.Popen:
    """Start `gunicorn -w workers wsgi:app` with the app's production environment; wait for /healthz."""
    import requests

    env = dict(os.environ, DATABASE_URL=url, TELEGRAM_API_BASE_URL=api_base, TELEGRAM_BOT_TOKEN=TOKEN,
               WEBHOOK_SECRET=WEBHOOK_SECRET, PUMP_TOKEN=PUMP_TOKEN, ADMIN_IDS=str(ADMIN_ID), LOG_LEVEL="WARNING")
    if channel:
        env["MAIN_CHANNEL_ID"] = str(MAIN_CHANNEL_ID)
    exe = os.path.join(os.path.dirname(sys.executable), "gunicorn")
    proc = subprocess.Popen([exe, "-w", str(workers), "-b", f"127.0.0.1:{port}", "--log-level", "warning",
                             "wsgi:app"], cwd=ROOT, env=env)
    deadline = time.monotonic() + GUNICORN_START_SECONDS
    while time.monotonic() < deadline:
        try:
            if requests.get(f"http://127.0.0.1:{port}/healthz", timeout=HEALTH_TIMEOUT).status_code < 500:
                return proc
        except requests.RequestException:
            pass
        if proc.poll() is not None:
            raise RuntimeError("gunicorn exited during start-up")
        time.sleep(HEALTH_POLL_SECONDS)
    proc.terminate()
    raise RuntimeError(f"gunicorn did not answer /healthz within {GUNICORN_START_SECONDS} s")


def stop_gunicorn(proc: subprocess.Popen) -> None:
    """Stop gunicorn and wait for it to exit."""
    proc.terminate()
    proc.wait(timeout=GUNICORN_STOP_SECONDS)


def pct(values: list[float], p: float) -> float:
    """The p-th percentile of values (nearest rank), rounded to 0.1."""
    if not values:
        return 0.0
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))], 1)


# -- databases ----------------------------------------------------------------------------------

@contextlib.contextmanager
def fresh_database(kind: str):
    """Yield the URL of a new empty SQLite file or MariaDB database bench_<random>; remove it after."""
    if kind == "sqlite":
        folder = tempfile.mkdtemp(prefix="bench_")
        try:
            yield "sqlite:///" + os.path.join(folder, "bench.sqlite3")
        finally:
            shutil.rmtree(folder, ignore_errors=True)
        return
    if kind != "mariadb":
        raise ValueError("--db must be sqlite or mariadb")
    from sqlalchemy import create_engine, text

    name = f"bench_{uuid.uuid4().hex[:10]}"
    server = create_engine(MARIADB_SERVER, isolation_level="AUTOCOMMIT")
    with server.connect() as conn:
        conn.execute(text(f"CREATE DATABASE `{name}` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci"))
    try:
        yield f"{MARIADB_SERVER.rstrip('/')}/{name}?charset=utf8mb4"
    finally:
        with server.connect() as conn:
            conn.execute(text(f"DROP DATABASE IF EXISTS `{name}`"))
        server.dispose()


def make_app(url: str, api_base: str = "http://127.0.0.1:9"):
    """Create the real app bound to url and a Bot API base URL."""
    from app import create_app
    from app.config import engine_options

    return create_app({
        "TESTING": True, "SQLALCHEMY_DATABASE_URI": url, "SQLALCHEMY_ENGINE_OPTIONS": engine_options(url),
        "TELEGRAM_BOT_TOKEN": TOKEN, "TELEGRAM_API_BASE_URL": api_base, "WEBHOOK_SECRET": WEBHOOK_SECRET,
        "PUMP_TOKEN": PUMP_TOKEN, "ADMIN_IDS": frozenset({ADMIN_ID}), "LOG_LEVEL": "WARNING",
    })


def migrate(url: str) -> None:
    """Run the real Alembic migrations on url."""
    from flask_migrate import upgrade

    from app.extensions import db

    app = make_app(url)
    with app.app_context():
        upgrade()
        db.engine.dispose()


@contextlib.contextmanager
def bound_app(url: str, api_base: str):
    """Yield an app context bound to url and api_base; forget cached clients after."""
    from app.extensions import db
    from app.services import telegram_factory

    app = make_app(url, api_base)
    with app.app_context():
        try:
            yield app
        finally:
            db.session.remove()
            db.engine.dispose()
            telegram_factory.reset_clients()


# Users' Telegram languages, in turn.
LANGUAGE_CODES = ("fa", "en-US", "ar", None)


def insert_users(n: int, start: int = BASE_ID, chunk: int = 5000) -> list[int]:
    """Insert n users with multi-row INSERTs; return their ids."""
    from sqlalchemy import insert

    from app.clock import utcnow
    from app.extensions import db
    from app.models import User

    now = utcnow()
    ids = list(range(start, start + n))
    for i in range(0, n, chunk):
        # Mixed Telegram languages (read only by jobs with language variants or greetings).
        db.session.execute(insert(User), [
            dict(id=u, first_name=f"کاربر {u}", is_blocked=False, main_channel_status="unknown",
                 language_code=LANGUAGE_CODES[u % len(LANGUAGE_CODES)], started_at=now, last_seen_at=now)
            for u in ids[i:i + chunk]])
        db.session.commit()
    return ids


def engine_settings(**overrides) -> dict:
    """Return the settings defaults with overrides (a dict pump() takes as is)."""
    from app.settings_schema import defaults

    values = defaults()
    values.update(overrides)
    return values


def create_text_job(settings: dict, tracking: bool | None = None):
    """Create (populate, queue, start) a text job to every user through create_job.

    tracking True/False: the job has a link button, tracked per recipient
    (PUBLIC_URL set on the app) or plain (PUBLIC_URL unset); None: no button.
    """
    from flask import current_app

    from app.services.broadcast.jobs.creation import create_job

    button = {}
    if tracking is not None:
        current_app.config["PUBLIC_URL"] = PUBLIC_URL if tracking else None
        button = dict(button_text="Open", button_url=BUTTON_URL)
    return create_job(audience="all", created_by=ADMIN_ID, content={"type": "text", "text": TEXT},
                      settings=settings, **button)


def tracking_choices(parser: argparse.ArgumentParser) -> None:
    """Add --tracking: the job's link button, plain ("off") or tracked per recipient ("on"); runs each given."""
    parser.add_argument("--tracking", nargs="+", choices=["none", "off", "on"], default=["none"],
                        help="none: no button; off: a plain link button; on: a per-recipient tracked button")


def tracking_flag(value: str) -> bool | None:
    """Map a --tracking value to create_text_job's tracking argument."""
    return {"none": None, "off": False, "on": True}[value]


def tallies(job_id: int) -> dict:
    from app.extensions import db

    try:
        from app.repository.broadcast_ledger import tallies as item_tallies
    except ImportError:  # an engine before the item modules' split (bench.compare runs older revisions)
        from app.repository.broadcast_items import tallies as item_tallies

    counts = item_tallies(job_id)
    db.session.commit()
    return counts


def budget_engine(source):
    """Return the bot-wide budget's own engine, wherever this revision of the app keeps it."""
    try:
        from app.repository.budget.engine import budget_engine as engine_of
    except ImportError:  # before the budget modules' split (bench.compare runs older revisions)
        from app.repository.telegram_budget import budget_engine as engine_of
    return engine_of(source)


# -- measuring deliveries -----------------------------------------------------------------------

def window_rate(deliveries: list[dict], skip: int = 0) -> float:
    """Messages/s over the sending window: (n-1) / (last - first), optionally skipping a warm-up."""
    times = sorted(d["t"] for d in deliveries)[skip:]
    if len(times) < 2 or times[-1] <= times[0]:
        return 0.0
    return (len(times) - 1) / (times[-1] - times[0])


def broadcast_deliveries(sim: Simulator) -> list[dict]:
    """Deliveries to benchmark users (sendMessage/copyMessage), admin messages excluded."""
    return [d for d in sim.deliveries() if d["chat_id"] >= BASE_ID
            and d["method"] in ("sendMessage", "copyMessage")]


def db_choices(parser: argparse.ArgumentParser, default: str = "sqlite", both: bool = False) -> None:
    """Add --db (sqlite|mariadb, or 'both' where a benchmark compares them)."""
    choices = ["sqlite", "mariadb"] + (["both"] if both else [])
    parser.add_argument("--db", choices=choices, default=default, help="database to run against")


def db_kinds(value: str) -> list[str]:
    return ["sqlite", "mariadb"] if value == "both" else [value]
