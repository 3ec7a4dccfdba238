"""Fixtures: a migrated test database (SQLite or MariaDB), the app, and the simulated Bot API."""
from __future__ import annotations

import os

import pytest
from sqlalchemy import text

from tests.dbutil import base_test_url, create_fresh_mysql_database, drop_mysql_database, is_mysql

TOKEN = "123456:TEST-token-abcdefghijklmnop"
WEBHOOK_SECRET = "test-webhook-secret-XYZ"
PUMP_TOKEN = "test-pump-token-QRS"
ADMIN_ID = 1001
MAIN_CHANNEL_ID = -1001234567890
# Child tables first so foreign keys never block the cleanup.
TABLES = ("chain_deliveries", "chain_steps", "chains", "recurring_occurrences", "recurring_broadcasts", "audit_log",
          "broadcast_job_items", "broadcast_jobs", "admin_states", "processed_updates", "settings", "source_tags",
          "import_rows", "user_tags", "user_fields",
          "segments", "users", "telegram_budget", "telegram_chat_pace", "album_parts", "pump_runs", "cron_watch",
          "stats_snapshots")
SIM_DEFAULTS = dict(
    latency_ms=0, latency_jitter_ms=0, global_rate=30, paid_rate=1000, per_chat_limits=True,
    fail_429_ratio=0.0, fail_5xx_ratio=0.0, fail_5xx_after_delivery_ratio=0.0,
    hang_after_delivery_ratio=0.0, strict_copy=True, fault_methods=(), per_chat_edits=False,
    retry_after_range=(1, 5), hang_seconds=5.0, star_balance=1000.0, message_age_offset=0.0, copy_skip=(),
    paid_free_rate=0,  # every paid message billed: a test counts Stars exactly (the simulator alone frees 30 a second)
)


# Load-sensitive tests run one at a time at normal priority, the parallel phase beside them only on the
# CPU they leave (tests/run_suite.py): real worker processes, kills, bot-wide timelines shared across
# processes, rates and gaps judged by arrival, and the database's statements per block of sends (a send
# whose thread wakes late goes back to pending and is read again: starved of CPU, the blocks shrink).
# Kills, races, database trouble and fuzzing judge exact counts, not time: they run in parallel,
# as do the rest of tests/telegram/ (fake clocks, pure rules, outcomes), the pump's outcomes
# judged by counts (tests/broadcast/test_pump_outcomes.py), the 429 storm (pumps looped until the
# job is done, judged by counts) and the schedule's end-to-end test (nothing may arrive before its
# time, which load cannot cause; everything within 15 s after). The virtualenv built from requirements.txt
# (tests/deploy/test_production_requirements.py) judges what it installs, not time: it runs in parallel,
# and its burst of pip's CPU and disk writes never lands just before a timing test. So do the unsend and
# edit coverage tests (tests/cli/test_action_coverage.py): exact copies left, a refusal while sends of
# 1.5 s each are in flight (they passed twice at load average 13-15).
# A test in one of these files that is judged by outcomes alone (no pacing, no timeline) carries
# @pytest.mark.parallel and runs in the parallel phase (e.g. the fast_telegram tests of test_wizard_album_busy.py).
SERIAL_FILES = frozenset({
    "tests/deploy/test_apache_passenger.py",
    "tests/telegram/test_broadcast_rate.py", "tests/telegram/test_client_sim.py",
    "tests/telegram/test_outbox_bounded.py", "tests/telegram/test_outbox_sim.py",
    "tests/telegram/test_shared_budget.py", "tests/telegram/test_shared_budget_api.py",
    "tests/telegram/test_transport_urllib3.py",
    "tests/reliability/test_budget_multiprocess.py", "tests/reliability/test_one_chat_burst.py",
    "tests/reliability/test_late_outbox_exit.py",
    "tests/bot/test_busy_chat.py", "tests/bot/test_wizard_album_busy.py", "tests/bot/test_wizard_album_e2e.py",
    "tests/bot/test_wizard_e2e.py",
    "tests/broadcast/test_album_pump.py", "tests/broadcast/test_concurrency.py", "tests/broadcast/test_guarantees.py",
    "tests/broadcast/test_pump.py", "tests/broadcast/test_completion.py", "tests/broadcast/test_population_webhook.py",
    "tests/broadcast/test_estimate_run.py", "tests/broadcast/test_db_cost.py", "tests/broadcast/test_action_landing.py",
    "tests/cli/test_pump_cmd.py",
    "tests/web/test_webhook_bounded.py", "tests/web/test_internal_pump.py",
    "tests/simulator/test_limits.py", "tests/simulator/test_faults.py",
    "tests/reliability/test_cron_missing.py", "tests/reliability/test_two_servers.py",
})


def pytest_collection_modifyitems(config, items):
    """Mark the load-sensitive tests `serial` (by file, less any marked `parallel`) for the runner; slow files first."""
    root = str(config.rootpath) + os.sep
    for item in items:
        path = str(item.path).removeprefix(root).replace(os.sep, "/")
        if path in SERIAL_FILES and not item.get_closest_marker("parallel"):
            item.add_marker(pytest.mark.serial)
    # In the parallel phase, files with a long scenario (marked slow) run first: pytest-xdist's loadfile
    # gives each file to one worker, and a long file handed out last holds the phase open alone. The
    # serial phase keeps the files' own order (its multi-process timing tests ran last there, and
    # failed 3 of 3 CI runs when moved right after the CLI's forever-worker tests).
    if os.environ.get("UPK_SLOW_FILES_FIRST"):
        slow_files = {item.path for item in items if item.get_closest_marker("slow")}
        items.sort(key=lambda item: item.path not in slow_files)


@pytest.fixture(scope="session")
def database_url(tmp_path_factory):
    """Yield a fresh, migrated database URL for this test run."""
    url = base_test_url(str(tmp_path_factory.mktemp("db")))
    if is_mysql(url):
        # Fail loudly: a MariaDB run must never pass by skipping its database.
        url = create_fresh_mysql_database(url)
    os.environ["UPK_TEST_DATABASE_URL"] = url
    upgrade(url)
    yield url
    if is_mysql(url):
        drop_mysql_database(url)


@pytest.fixture
def empty_database(database_url, tmp_path):
    """Yield the URL of a brand-new database with no tables, of this run's kind."""
    if is_mysql(database_url):
        url = create_fresh_mysql_database(database_url.rsplit("/", 1)[0] + "/empty?charset=utf8mb4")
        yield url
        drop_mysql_database(url)
    else:
        yield f"sqlite:///{tmp_path}/empty.sqlite3"


def upgrade(url: str) -> None:
    """Run the real migrations on url."""
    from flask_migrate import upgrade as migrate_upgrade

    from app import create_app
    from app.extensions import db

    app = create_app(app_config(url, "http://127.0.0.1:9"))
    with app.app_context():
        migrate_upgrade()
        db.engine.dispose()


# A test process plays several processes at once on one app engine (a pump in a
# thread beside the test's own session, a second connection holding a lock): it
# gets SQLAlchemy's default pool. A real process keeps engine_options' one
# connection per engine (tests/reliability/test_connections.py runs pumps so).
TEST_POOL = {"pool_size": 5, "max_overflow": 10}


def app_config(url: str, api_base: str) -> dict:
    """Return the app config used by tests."""
    from app.config import engine_options

    options = engine_options(url)
    return {
        "TESTING": True,
        "SQLALCHEMY_DATABASE_URI": url,
        "SQLALCHEMY_ENGINE_OPTIONS": {**options, **TEST_POOL} if "pool_size" in options else options,
        "TELEGRAM_BOT_TOKEN": TOKEN,
        "TELEGRAM_API_BASE_URL": api_base,
        "WEBHOOK_SECRET": WEBHOOK_SECRET,
        "PUMP_TOKEN": PUMP_TOKEN,
        "ADMIN_IDS": frozenset({ADMIN_ID}),
        "MAIN_CHANNEL_ID": MAIN_CHANNEL_ID,
        # Each finished job would draw its results picture on a shared thread: only the tests that judge it do.
        "RESULTS_PICTURE": False,
    }


@pytest.fixture(scope="session")
def _simulator_server():
    """Run one simulated Bot API for the whole session."""
    from app.simulator import SimulatorServer

    sim = SimulatorServer(token=TOKEN, **SIM_DEFAULTS).start()
    yield sim
    sim.stop()


@pytest.fixture
def simulator(_simulator_server):
    """Yield the simulator reset to its defaults."""
    _simulator_server.configure(**SIM_DEFAULTS)
    _simulator_server.restore_token()
    _simulator_server.reset()
    yield _simulator_server


@pytest.fixture
def app(database_url, simulator):
    """Yield an app bound to the test database and the simulator, with a clean slate."""
    from app import create_app
    from app.extensions import db
    from app.services import telegram_factory

    app = create_app(app_config(database_url, simulator.base_url))
    with app.app_context():
        clean_tables(db)
        yield app
        db.session.remove()
        clean_tables(db)
        db.engine.dispose()
    telegram_factory.reset_clients()


# One round trip tells which tables hold rows: most tests touch few of them,
# and on MariaDB a DELETE of an empty table still costs a few milliseconds.
ANY_ROWS = text("SELECT " + ", ".join(f"EXISTS (SELECT 1 FROM {table})" for table in TABLES))


def clean_tables(db) -> None:
    """Delete every row so each test starts empty."""
    db.session.rollback()
    filled = db.session.execute(ANY_ROWS).one()
    for table, has_rows in zip(TABLES, filled, strict=True):
        if has_rows:
            db.session.execute(text(f"DELETE FROM {table}"))
    db.session.commit()


@pytest.fixture
def client(app):
    """A Flask test client."""
    return app.test_client()


@pytest.fixture
def runner(app):
    """A Flask CLI runner."""
    return app.test_cli_runner()


PUBLIC_URL = "https://bot.example.com"


@pytest.fixture
def public_url(app):
    """The app with PUBLIC_URL set, as a deployment that tracks clicks."""
    app.config["PUBLIC_URL"] = PUBLIC_URL
    yield app
    app.config["PUBLIC_URL"] = None
