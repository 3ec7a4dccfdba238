"""Database connections: a process opens at most 2 (one per engine), and a host's connection limit loses no send.

The in-process test counts connections through the pools' events and runs
on both databases. The MariaDB tests watch the server itself: its
PROCESSLIST while a real `flask broadcast pump` process sends, and a user
created WITH MAX_USER_CONNECTIONS 2, as cheap shared hosts configure theirs.
"""
from __future__ import annotations

import threading
import time
import uuid

import pytest
from sqlalchemy import create_engine, event, text
from sqlalchemy.engine import make_url
from sqlalchemy.pool import NullPool

from app import create_app
from app.config import engine_options
from app.extensions import db
from app.models.broadcast import COMPLETED, SENT
from app.repository.budget.engine import budget_engine
from app.services.broadcast.sending.drain import pump
from tests.broadcast.helpers import BASE_ID, create_text_job, create_users, reload
from tests.conftest import app_config
from tests.dbutil import base_test_url, is_mysql
from tests.reliability.budget_traffic import NEW_USER_BASE, StartBurst
from tests.reliability.helpers import (
    assert_final,
    assert_logs_clean,
    process_env,
    recipients,
    record,
    spawn_flask,
    start_gunicorn,
    stop_process,
    use_settings,
    wait_until,
)

ON_MYSQL = is_mysql(base_test_url("/tmp"))
mysql_only = pytest.mark.skipif(not ON_MYSQL, reason="connections per server user (PROCESSLIST, "
                                "MAX_USER_CONNECTIONS) exist on MariaDB/MySQL; SQLite is a file, not a server")
# What a process may hold: one connection of the app's engine, one of the Telegram budget's.
MAX_CONNECTIONS = 2
LIMIT_LINE = "max_user_connections"


class OpenCounter:
    """Count an engine's open connections through its pool's events, keeping the most seen at once."""

    def __init__(self, engine):
        self.open = self.most = 0
        self._lock = threading.Lock()
        event.listen(engine, "connect", self._opened)
        event.listen(engine, "close", self._closed)
        event.listen(engine, "close_detached", self._closed)

    def _opened(self, dbapi_conn, record) -> None:
        """One more connection is open."""
        with self._lock:
            self.open += 1
            self.most = max(self.most, self.open)

    def _closed(self, dbapi_conn, record=None) -> None:
        """One connection closed."""
        with self._lock:
            self.open -= 1


_WATCHERS: dict[str, object] = {}


def server_connections(database_url: str) -> int:
    """Return how many server connections use the test database right now (the watcher's own excluded)."""
    watcher = _WATCHERS.get(database_url)
    if watcher is None:  # its own engine: the test's session may hold the app's one connection
        watcher = _WATCHERS[database_url] = create_engine(database_url, poolclass=NullPool)
    with watcher.connect() as conn:
        count = conn.execute(text("SELECT COUNT(*) FROM information_schema.PROCESSLIST "
                                  "WHERE DB = :db AND ID <> CONNECTION_ID()"),
                             {"db": make_url(database_url).database}).scalar()
    return int(count)


def watch_connections(database_url: str, child, baseline: int) -> int:
    """Poll the server's connections to the test database until child exits; return the most above baseline."""
    most = 0
    while child.poll() is None:
        most = max(most, server_connections(database_url) - baseline)
        time.sleep(0.02)
    return most


def production_app(database_url: str, simulator):
    """An app with a real process's engine options (the test fixtures' app has a bigger pool)."""
    config = app_config(database_url, simulator.base_url)
    config["SQLALCHEMY_ENGINE_OPTIONS"] = engine_options(database_url)
    return create_app(config)


@pytest.mark.parametrize("paid", [False, True], ids=["free", "paid"])
def test_a_pump_opens_at_most_one_connection_per_engine(app, simulator, database_url, paid):
    create_users(400 if paid else 40)
    settings = use_settings(broadcast_rate_per_second=29, broadcast_paid_enabled=paid)
    simulator.configure(latency_ms=50, latency_jitter_ms=20)
    job_id = create_text_job(settings=settings).id
    db.session.commit()
    budget_engine(db.engine).dispose()  # from here every budget connection is one the pump opens
    pump_app = production_app(database_url, simulator)
    with pump_app.app_context():
        counters = [OpenCounter(db.engine), OpenCounter(budget_engine(db.engine))]
        for _ in range(5):
            if pump(job_id, 20, settings=settings).stop == "done":
                break
        db.session.remove()
        db.engine.dispose()
    assert_final(job_id, simulator)
    assert reload(job_id).status == COMPLETED
    assert [c.most for c in counters] == [1, 1]


@mysql_only
@pytest.mark.slow
@pytest.mark.parametrize("paid", [False, True], ids=["free", "paid"])
def test_a_pump_process_holds_at_most_two_server_connections(app, simulator, database_url, tmp_path, figures,
                                                             paid):
    users = 2000 if paid else 300
    create_users(users)
    settings = use_settings(broadcast_rate_per_second=29, broadcast_paid_enabled=paid)
    simulator.configure(latency_ms=50 if paid else 80, latency_jitter_ms=10)
    job_id = create_text_job(settings=settings).id
    baseline = server_connections(database_url)
    log_path = tmp_path / "pump.log"
    child = spawn_flask(["broadcast", "pump", "--job", str(job_id), "--seconds", "50"],
                        process_env(database_url, simulator), log_path)
    try:
        most = watch_connections(database_url, child, baseline)
        assert child.wait(60) == 0, log_path.read_text()
    finally:
        stop_process(child)
    counts = assert_final(job_id, simulator)
    record(figures, f"connections_pump_{'paid' if paid else 'free'}", users=users, most_connections=most,
           sent=counts.get(SENT, 0))
    assert reload(job_id).status == COMPLETED
    assert most <= MAX_CONNECTIONS, most


@mysql_only
@pytest.mark.slow
def test_a_web_worker_answering_updates_holds_at_most_two_server_connections(app, simulator, database_url,
                                                                            tmp_path, figures):
    simulator.configure(latency_ms=30)
    baseline = server_connections(database_url)
    web, base = start_gunicorn(process_env(database_url, simulator), tmp_path / "web.log", workers=1)
    burst = StartBurst(base, list(range(NEW_USER_BASE, NEW_USER_BASE + 60)), threads=8)
    thread = threading.Thread(target=burst.run, daemon=True)
    try:
        thread.start()
        most = 0
        while not burst.done.is_set():
            most = max(most, server_connections(database_url) - baseline)
            time.sleep(0.02)
    finally:
        stop_process(web)
    assert not burst.errors and burst.statuses() == {200: 60}, (burst.errors, burst.statuses())
    record(figures, "connections_web_worker", updates=60, most_connections=most)
    assert most <= MAX_CONNECTIONS, most


@pytest.fixture
def limited_url(database_url):
    """A database user WITH MAX_USER_CONNECTIONS 2, as a shared host creates them; yield its URL."""
    name = f"upk_lim_{uuid.uuid4().hex[:8]}"
    url = make_url(database_url)
    root = create_engine(url, poolclass=NullPool, isolation_level="AUTOCOMMIT")
    with root.connect() as conn:
        conn.execute(text(f"CREATE USER '{name}'@'%' IDENTIFIED BY 'pw-{name}' WITH MAX_USER_CONNECTIONS 2"))
        conn.execute(text(f"GRANT ALL PRIVILEGES ON `{url.database}`.* TO '{name}'@'%'"))
    yield url.set(username=name, password=f"pw-{name}").render_as_string(hide_password=False)
    with root.connect() as conn:
        conn.execute(text(f"DROP USER '{name}'@'%'"))
    root.dispose()


def wait_for_line(log_path, line: str, child, timeout: float) -> bool:
    """Tell whether line appeared in the child's log within timeout (False at once if the child exited)."""
    return wait_until(lambda: child.poll() is not None or line in log_path.read_text(errors="replace"), timeout,
                      interval=0.05) and line in log_path.read_text(errors="replace")


@mysql_only
@pytest.mark.slow
def test_at_max_user_connections_a_pump_logs_the_limit_waits_and_loses_no_send(app, simulator, limited_url,
                                                                                tmp_path, figures):
    users = 150
    create_users(users)
    settings = use_settings(broadcast_rate_per_second=29)
    simulator.configure(latency_ms=30)
    job_id = create_text_job(settings=settings).id
    env = process_env(limited_url, simulator)
    squatter = create_engine(limited_url, poolclass=NullPool).connect()  # another process's connection
    pump_log, status_log = tmp_path / "pump.log", tmp_path / "status.log"
    child = spawn_flask(["broadcast", "pump", "--job", str(job_id), "--seconds", "50"], env, pump_log)
    try:
        # The pump's first connection takes the user's 2nd slot; its budget connection meets the limit.
        assert wait_for_line(pump_log, LIMIT_LINE, child, 30), pump_log.read_text()
        time.sleep(1.0)
        squatter.close()
        # A second process meets the limit while the pump holds both slots, and gets in once it ends.
        assert wait_until(lambda: simulator.stats()["deliveries"] >= 20, 30), pump_log.read_text()
        other = spawn_flask(["broadcast", "status", str(job_id)], env, status_log)
        assert wait_for_line(status_log, LIMIT_LINE, other, 30), status_log.read_text()
        assert child.wait(60) == 0, pump_log.read_text()
        assert other.wait(30) == 0, status_log.read_text()
    finally:
        squatter.close()
        stop_process(child)
    counts = assert_final(job_id, simulator)
    assert reload(job_id).status == COMPLETED
    assert counts == {SENT: users} and sorted(recipients(simulator)) == sorted(set(recipients(simulator)))
    assert "internal error" not in pump_log.read_text()
    assert assert_logs_clean(tmp_path) == 2
    record(figures, "connections_at_max_user_connections", users=users, sent=counts[SENT],
           limit_lines=pump_log.read_text().count(LIMIT_LINE) + status_log.read_text().count(LIMIT_LINE))


def test_a_chat_booking_without_a_database_connection_is_paced_here_not_failed(app, monkeypatch):
    from sqlalchemy.exc import OperationalError

    from app.repository.budget import chats as chats_repo
    from app.services.budget.chats import SharedChatPacer

    def refused(*args, **kwargs):
        raise OperationalError("INSERT", {}, Exception(1226, "User has exceeded the 'max_user_connections' resource"))

    pacer = SharedChatPacer(budget_engine(db.engine), sleep=lambda s: None)
    monkeypatch.setattr(chats_repo, "reserve_chat", refused)
    monkeypatch.setattr(chats_repo, "hold_chat", refused)
    monkeypatch.setattr(chats_repo, "chat_next_us", refused)
    first = pacer.acquire_slot(BASE_ID, time.monotonic() + 5)
    assert first is not None  # paced in this process: the send goes on, it is not 'failed'
    pacer.block_until(BASE_ID, first + 3)
    assert pacer.ready_at(BASE_ID) >= first + 3
