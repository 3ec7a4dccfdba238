"""Database trouble mid-batch: the pump fails cleanly (an exception, no hang), the next pump resumes.

MariaDB: the pump's connection is KILLed from another connection, once while
the pump is blocked inside its lease-fence UPDATE (a row lock held by the
test keeps it there: certainly mid-batch, mid-statement), then at random
moments. SQLite: another connection holds BEGIN EXCLUSIVE for longer than the
pump's busy timeout, once mid-batch and once before the pump starts.
Each pump runs in a thread with its own app (its own engine and pool).
"""
from __future__ import annotations

import random
import sqlite3
import threading
import time
from collections import Counter

import pytest
from sqlalchemy import event, text
from sqlalchemy.exc import DBAPIError, OperationalError

from app import create_app, db_setup
from app.extensions import db
from app.models.broadcast import COMPLETED, SENT, UNKNOWN
from app.repository.broadcast_ledger import tallies
from app.repository.budget.engine import budget_engine
from app.services.broadcast.sending.drain import pump
from tests.broadcast.helpers import crash_bound, create_text_job, create_users, expire_lease, reload
from tests.conftest import app_config
from tests.dbutil import base_test_url, is_mysql
from tests.reliability.helpers import assert_final, record, use_settings, wait_until

USERS = 150
MYSQL_USERS = 300  # enough to outlast the random-moment rounds
PART = 30
THREAD_TIMEOUT = 60  # generous: "no hang" means the pump thread ends well before this
ON_MYSQL = is_mysql(base_test_url("/tmp"))
mysql_only = pytest.mark.skipif(not ON_MYSQL,
                                reason="KILL <connection> is MariaDB/MySQL; SQLite has no server connections")
sqlite_only = pytest.mark.skipif(ON_MYSQL, reason="a locked database file is SQLite's failure mode; MariaDB locks rows")


class PumpThread(threading.Thread):
    """Run one pump in its own app context; keep its result or exception."""

    def __init__(self, pump_app, job_id: int, seconds: float, settings: dict):
        super().__init__(name="pump-under-test", daemon=True)
        self.pump_app, self.job_id, self.seconds, self.settings = pump_app, job_id, seconds, settings
        self.result, self.error = None, None

    def run(self) -> None:
        with self.pump_app.app_context():
            try:
                self.result = pump(self.job_id, self.seconds, settings=self.settings)
            except Exception as exc:  # the point of the test: it must surface as an exception
                self.error = exc
            finally:
                db.session.remove()


def start_job(simulator, users: int) -> tuple[int, dict]:
    """Create users and a running text job at 28/s; return (job id, settings)."""
    create_users(users)
    settings = use_settings(broadcast_rate_per_second=28)
    simulator.configure(latency_ms=20)
    return create_text_job(settings=settings).id, settings


def tallies_now(job_id: int) -> dict:
    """Return the job's item tallies, freshly read."""
    counts = tallies(job_id)
    db.session.commit()
    return counts


def finish(job_id: int, settings: dict, simulator, users: int) -> dict:
    """Age the lease, pump to completion in this thread, and run the final checks."""
    expire_lease(job_id)
    for _ in range(20):
        pump(job_id, 20, settings=settings)
        if reload(job_id).status != "running":
            break
    counts = assert_final(job_id, simulator)
    assert reload(job_id).status == COMPLETED
    assert counts.get(SENT, 0) + counts.get(UNKNOWN, 0) == users, counts
    return counts


# -- MariaDB ---------------------------------------------------------------------------------------

def mysql_pump_app(database_url: str, simulator, current: dict):
    """An app whose engine tells which server connection the pump holds right now."""
    pump_app = create_app(app_config(database_url, simulator.base_url))
    with pump_app.app_context():
        engine = db.engine

    @event.listens_for(engine, "connect")
    def remember_id(dbapi_conn, record):
        cursor = dbapi_conn.cursor()
        cursor.execute("SELECT CONNECTION_ID()")
        record.info["connection_id"] = cursor.fetchone()[0]
        cursor.close()

    @event.listens_for(engine, "checkout")
    def note_checkout(dbapi_conn, record, proxy):
        current["id"] = record.info["connection_id"]

    return pump_app


def server_statement(connection_id: int) -> str:
    """Return the statement a server connection is running ('' if idle)."""
    with db.engine.connect() as conn:
        info = conn.execute(text("SELECT INFO FROM information_schema.PROCESSLIST WHERE ID = :id"),
                            {"id": connection_id}).scalar()
    return info or ""


def kill_connection(connection_id: int) -> bool:
    """KILL a server connection from another connection; False if it was already gone."""
    try:
        with db.engine.connect() as conn:
            conn.execute(text(f"KILL {int(connection_id)}"))
            conn.commit()
    except OperationalError as exc:
        if "Unknown thread id" not in str(exc):
            raise
        return False
    return True


@mysql_only
@pytest.mark.slow
def test_a_killed_mariadb_connection_fails_the_pump_cleanly_and_the_next_resumes(app, simulator, database_url,
                                                                                 figures):
    started = time.monotonic()
    job_id, settings = start_job(simulator, MYSQL_USERS)
    bound = crash_bound(settings)
    current: dict = {}
    pump_app = mysql_pump_app(database_url, simulator, current)
    worker = PumpThread(pump_app, job_id, 30, settings)
    worker.start()
    assert wait_until(lambda: simulator.stats()["deliveries"] >= PART, 60)
    # Hold the job row: the pump's next fence UPDATE waits on it, inside its transaction.
    db.session.execute(text("SELECT id FROM broadcast_jobs WHERE id = :id FOR UPDATE"), {"id": job_id})
    assert wait_until(lambda: server_statement(current["id"]).startswith("UPDATE broadcast_jobs"), 30)
    kill_connection(current["id"])
    db.session.rollback()  # let go of the row
    worker.join(THREAD_TIMEOUT)
    assert not worker.is_alive(), "the pump hung after its connection was killed"
    # The killed transaction rolled back; the pump stopped dispatching, let its
    # window finish, and wrote every outcome on a fresh connection.
    assert worker.error is None and worker.result.stop == "db_error", (worker.error, worker.result)
    assert reload(job_id).unknown_count == 0
    stranded = tallies_now(job_id).get("sending", 0)
    assert stranded == 0, "outcomes known to the pump were kept, not left 'sending'"

    outcomes = random_kills(pump_app, job_id, settings, simulator, current)
    counts = finish(job_id, settings, simulator, MYSQL_USERS)
    assert counts.get(UNKNOWN, 0) <= bound * (1 + outcomes["raised"])
    with pump_app.app_context():
        db.engine.dispose()
    record(figures, "database_kill_mariadb", users=MYSQL_USERS, mid_statement_kills=1, mid_statement_raised=1,
           random_moment_rounds=sum(outcomes.values()), random_raised=outcomes["raised"],
           random_carried_on_after_pre_ping=outcomes["carried_on"], random_pump_ended_first=outcomes["not_killed"],
           stranded_by_mid_statement_kill=stranded, unknown=counts.get(UNKNOWN, 0), sent=counts.get(SENT, 0),
           duplicates=0, lost=0, total_seconds=round(time.monotonic() - started, 1))


def random_kills(pump_app, job_id: int, settings: dict, simulator, current: dict, rounds: int = 5) -> Counter:
    """KILL the pump's connection at random moments; count pumps that raised, carried on, or ended first."""
    rng = random.Random(5150)
    outcomes: Counter[str] = Counter()
    for _ in range(rounds):
        expire_lease(job_id)
        current.clear()
        worker = PumpThread(pump_app, job_id, 2, settings)
        worker.start()
        target = simulator.stats()["deliveries"] + rng.randint(1, 20)
        wait_until(lambda t=target, w=worker: simulator.stats()["deliveries"] >= t or not w.is_alive(), 30)
        time.sleep(rng.uniform(0, 0.04))
        killed = "id" in current and worker.is_alive() and kill_connection(current["id"])
        worker.join(THREAD_TIMEOUT)
        assert not worker.is_alive(), "the pump hung after its connection was killed"
        if worker.error is not None:
            assert isinstance(worker.error, DBAPIError), repr(worker.error)
            outcomes["raised"] += 1
        elif killed:
            outcomes["carried_on"] += 1  # killed while idle in the pool: pre-ping replaced it
        else:
            outcomes["not_killed"] += 1  # the pump ended before the kill
        assert tallies_now(job_id).get("sending", 0) <= crash_bound(settings)
    return outcomes


# -- SQLite ----------------------------------------------------------------------------------------

@pytest.fixture
def short_sqlite_busy_wait(app, monkeypatch):
    """Every SQLite connection opened during the test waits at most 1 s for a lock, the shared budget's too.

    The budget has one engine per database per process (app.repository.budget.engine): its pooled
    connections are dropped before and after, so the pump's budget statements give up after 1 s like
    its other statements (not after production's 30 s), and later tests get production's wait back.
    """
    monkeypatch.setattr(db_setup, "SQLITE_BUSY_SECONDS", 1)
    budget = budget_engine(db.engine)
    budget.dispose()
    with budget.connect() as conn:
        assert conn.exec_driver_sql("PRAGMA busy_timeout").scalar() == 1000
    yield
    monkeypatch.undo()
    budget.dispose()


def sqlite_pump_app(database_url: str, simulator):
    """An app whose connections wait at most 1 s for a lock (production waits 30 s)."""
    config = app_config(database_url, simulator.base_url)
    config["SQLALCHEMY_ENGINE_OPTIONS"] = {"connect_args": {"timeout": 1, "check_same_thread": False}}
    pump_app = create_app(config)
    with pump_app.app_context():
        # app.db_setup sets PRAGMA busy_timeout=30000 on every connection, overriding connect_args;
        # this engine-level hook runs after it.
        event.listen(db.engine, "connect", lambda dbapi_conn, record: dbapi_conn.execute("PRAGMA busy_timeout=1000"))
        with db.engine.connect() as conn:
            assert conn.exec_driver_sql("PRAGMA busy_timeout").scalar() == 1000
    return pump_app


def lock_file(database_url: str) -> sqlite3.Connection:
    """Take an exclusive lock on the database file from another connection."""
    locker = sqlite3.connect(database_url[len("sqlite:///"):], isolation_level=None, timeout=10)
    locker.execute("BEGIN EXCLUSIVE")
    return locker


def assert_fails_cleanly_while_locked(worker: PumpThread, locker: sqlite3.Connection) -> None:
    """The pump must give up with 'database is locked' while the lock is still held."""
    worker.join(THREAD_TIMEOUT)
    still_locked = locker.in_transaction
    locker.rollback()
    locker.close()
    assert not worker.is_alive(), "the pump hung on a locked database"
    assert still_locked
    assert isinstance(worker.error, OperationalError) and "locked" in str(worker.error), repr(worker.error)


@sqlite_only
@pytest.mark.slow
def test_a_locked_sqlite_file_fails_the_pump_cleanly_and_the_next_resumes(app, simulator, database_url, figures,
                                                                          short_sqlite_busy_wait):
    started = time.monotonic()
    job_id, settings = start_job(simulator, USERS)
    bound = crash_bound(settings)
    pump_app = sqlite_pump_app(database_url, simulator)
    db.session.commit()

    worker = PumpThread(pump_app, job_id, 30, settings)
    worker.start()
    assert wait_until(lambda: simulator.stats()["deliveries"] >= PART, 60)
    assert_fails_cleanly_while_locked(worker, lock_file(database_url))
    stranded = tallies_now(job_id).get("sending", 0)
    assert stranded <= bound

    expire_lease(job_id)
    locker = lock_file(database_url)  # locked before the next pump even starts
    early = PumpThread(pump_app, job_id, 30, settings)
    early.start()
    assert_fails_cleanly_while_locked(early, locker)

    counts = finish(job_id, settings, simulator, USERS)
    assert counts.get(UNKNOWN, 0) == stranded
    with pump_app.app_context():
        db.engine.dispose()
    record(figures, "database_locked_sqlite", users=USERS, busy_timeout_seconds=1, lock_mid_batch=1,
           lock_before_start=1, pump_raised=2, stranded_in_flight=stranded, unknown=counts.get(UNKNOWN, 0),
           sent=counts.get(SENT, 0), duplicates=0, lost=0, total_seconds=round(time.monotonic() - started, 1))
