"""Two app servers, one database: one bot-wide cap, every recipient once, one cron alert.

Two gunicorn servers (2 sync workers each) stand in for two hosts: each
has its own HOSTNAME and loopback address (127.0.0.2, 127.0.0.3), and the
second one's own clock is an hour ahead (tests/reliability/skewed_wsgi.py).
They share only the database and the simulated Telegram. First cron is
late: /start traffic on both servers answers, one of them alerts the admins
and fallback slices drain the queue one at a time. Then cron calls
/internal/pump on each server alone once, then on both at once until the job
is done. What the
servers share through the database (the job's lease, the Telegram budget,
the cron watch) is all that keeps them under the cap and off each other's
recipients; the simulator judges arrivals, as Telegram does.
"""
from __future__ import annotations

import threading
import time
from collections import Counter
from datetime import timedelta

import pytest
import requests
from sqlalchemy import text, update

from app.extensions import db
from app.models import BroadcastJob
from app.models.broadcast import COMPLETED, SENT
from app.repository import pump_runs
from app.repository.db_clock import db_utcnow
from app.simulator.updates import message_update
from tests.broadcast.helpers import BASE_ID, create_text_job, create_users, reload
from tests.conftest import ADMIN_ID, PUMP_TOKEN, WEBHOOK_SECRET
from tests.reliability.budget_traffic import NEW_USER_BASE, ArrivalLog, welcomes
from tests.reliability.helpers import (
    assert_final,
    assert_logs_clean,
    process_env,
    record,
    start_gunicorn,
    stop_process,
    use_settings,
    wait_until,
)
from tests.reliability.test_budget_multiprocess import assert_no_flood

USERS, CAP = 150, 15
SECOND_ADMIN = 1002
SERVERS = (("app-a", "127.0.0.2", 0), ("app-b", "127.0.0.3", 3600))  # HOSTNAME, address, own clock's skew (s)
NO_CRON_SECONDS = 4.0
CRON_SECONDS = 2  # short pumps: the two servers' cron calls take turns on the job's lease
DEADLINE = 60.0


class Traffic:
    """New users' /starts: `burst` at the same moment on each server, then one every `every` s, alternating."""

    def __init__(self, bases: list[str], burst: int = 3, every: float = 0.25):
        self.bases, self.burst, self.every = bases, burst, every
        self.users: list[int] = []
        self.statuses: Counter = Counter()
        self.lock = threading.Lock()
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, name="starts", daemon=True)

    def _post(self, session: requests.Session, base: str) -> None:
        with self.lock:
            i = len(self.users)
            self.users.append(NEW_USER_BASE + i)
        try:
            answer = session.post(base + "/telegram/webhook", timeout=30,
                                  json=message_update(NEW_USER_BASE + i, "/start", update_id=700_000 + i),
                                  headers={"X-Telegram-Bot-Api-Secret-Token": WEBHOOK_SECRET})
            status = answer.status_code
        except requests.RequestException as exc:
            status = type(exc).__name__
        with self.lock:
            self.statuses[status] += 1

    def _run(self) -> None:
        # Every server sees the outage at once: each first answer races for the one alert.
        together = threading.Barrier(self.burst * len(self.bases))

        def first(base: str) -> None:
            together.wait()
            self._post(requests.Session(), base)

        racers = [threading.Thread(target=first, args=(base,)) for base in self.bases for _ in range(self.burst)]
        for racer in racers:
            racer.start()
        for racer in racers:
            racer.join(60)
        sessions = [requests.Session() for _ in self.bases]
        while not self.stop.wait(self.every):
            n = len(self.users)
            self._post(sessions[n % 2], self.bases[n % 2])


def cron(base: str, processed: Counter, over: threading.Event, errors: list, calls: int | None = None) -> None:
    """Call one server's /internal/pump back to back until the job is done, time is up or `calls` were made."""
    session, end = requests.Session(), time.monotonic() + DEADLINE
    try:
        while not over.is_set() and time.monotonic() < end and calls != 0:
            calls = None if calls is None else calls - 1
            answer = session.post(base + "/internal/pump", params={"seconds": str(CRON_SECONDS)}, timeout=60,
                                  headers={"Authorization": f"Bearer {PUMP_TOKEN}"})
            processed["status_" + str(answer.status_code)] += 1
            if answer.status_code != 200:
                time.sleep(0.1)
                continue
            jobs = answer.json()["jobs"]
            processed["sent"] += sum(r["processed"] for r in jobs)
            if any(r["stop"] == "done" for r in jobs):
                over.set()
    except BaseException as exc:  # noqa: BLE001 - reported by the test
        errors.append(exc)


class ConnectionWatch:
    """On MySQL/MariaDB, the most connections to the test database seen at once (every process, this one too)."""

    def __init__(self, engine):
        self.engine, self.most = engine, None
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, name="connections", daemon=True)

    def _run(self) -> None:
        if self.engine.dialect.name not in ("mysql", "mariadb"):
            return
        with self.engine.connect() as conn:
            while not self.stop.wait(0.1):
                n = conn.execute(text("SELECT COUNT(*) FROM information_schema.processlist "
                                      "WHERE db = DATABASE()")).scalar_one()
                conn.rollback()
                self.most = max(self.most or 0, n)


def alerts(simulator, chat_id: int) -> list[str]:
    """Return the cron alerts one admin received."""
    return [d.get("text") or "" for d in simulator.deliveries("sendMessage", chat_id)
            if "/internal/pump" in (d.get("text") or "")]


@pytest.mark.slow
@pytest.mark.timeout(240)  # ~25 s on 2 idle cores
def test_two_servers_on_one_database_share_the_cap_the_lease_and_the_alert(app, simulator, database_url, tmp_path,
                                                                           figures, monkeypatch):
    started = time.monotonic()
    recipients = set(create_users(USERS))
    settings = use_settings(telegram_rate_per_second=CAP, broadcast_rate_per_second=CAP)
    simulator.configure(global_rate=CAP + 2, latency_ms=30)
    arrivals = ArrivalLog(simulator).install(monkeypatch, simulator)
    job_id = create_text_job(settings=settings, progress_chat_id=ADMIN_ID).id
    waited = db_utcnow() - timedelta(minutes=5)  # cron_alert_minutes is 3: cron is late from the first update on
    db.session.execute(update(BroadcastJob).where(BroadcastJob.id == job_id).values(created_at=waited,
                                                                                     started_at=waited))
    db.session.commit()
    env = {**process_env(database_url, simulator), "ADMIN_IDS": f"{ADMIN_ID},{SECOND_ADMIN}"}
    servers, bases, traffic = [], [], None
    connections = ConnectionWatch(db.engine)
    connections.thread.start()
    try:
        for hostname, address, skew in SERVERS:
            server_env = {**env, "HOSTNAME": hostname, "CLOCK_SKEW_SECONDS": str(skew)}
            proc, base = start_gunicorn(server_env, tmp_path / f"{hostname}.log", workers=2, host=address,
                                        app="tests.reliability.skewed_wsgi:app")
            servers.append(proc)
            bases.append(base)
        traffic = Traffic(bases)
        traffic.thread.start()
        time.sleep(NO_CRON_SECONDS)
        on_traffic = reload(job_id).processed_count
        assert wait_until(lambda: len(alerts(simulator, SECOND_ADMIN)) >= 1, 10), "no server alerted"
        over, errors = threading.Event(), []
        sent_by = [Counter() for _ in bases]
        for base, sent in reversed(list(zip(bases, sent_by, strict=True))):
            cron(base, sent, over, errors, calls=1)  # each server's cron alone once (the skewed one first)...
        callers = [threading.Thread(target=cron, args=(base, sent, over, errors), daemon=True)
                   for base, sent in zip(bases, sent_by, strict=True)]
        for caller in callers:  # ...then both at once, taking turns on the job's lease
            caller.start()
        for caller in callers:
            caller.join(DEADLINE + 30)
        time.sleep(1.0)  # a few /starts with cron on time: they start no slice and no alert
    finally:
        if traffic is not None:
            traffic.stop.set()
            traffic.thread.join(40)
        connections.stop.set()
        for proc in servers:
            stop_process(proc)

    assert errors == [], errors
    assert reload(job_id).status == COMPLETED
    counts = assert_final(job_id, simulator)  # no recipient twice, counters equal the ledger
    assert counts == {SENT: USERS}, counts
    delivered = Counter(d["chat_id"] for d in simulator.deliveries() if d["chat_id"] >= BASE_ID)
    assert set(delivered) == recipients and set(delivered.values()) == {1}, "not every recipient exactly once"
    assert all(sent["sent"] > 0 for sent in sent_by), f"both servers' cron should have pumped: {sent_by}"
    for admin in (ADMIN_ID, SECOND_ADMIN):
        assert len(alerts(simulator, admin)) == 1, (admin, alerts(simulator, admin))
    assert set(traffic.statuses) == {200}, traffic.statuses
    got = welcomes(simulator, traffic.users)
    assert {u for u in traffic.users if got[u] != 1} == set(), "a /start not answered exactly once"
    stats = simulator.stats()
    assert_no_flood(stats, CAP, arrivals)
    runs = {r.source: r for r in pump_runs.all_runs()}
    db.session.commit()
    assert runs["fallback"].processed_total + runs["cron"].processed_total == USERS
    assert assert_logs_clean(tmp_path) == len(SERVERS)
    record(figures, "two_servers_one_database", cap=CAP, sim_global_rate=CAP + 2, recipients=USERS,
           sent_on_traffic=on_traffic, sent_by_cron=[s["sent"] for s in sent_by],
           fallback_slices=runs["fallback"].runs, cron_runs=runs["cron"].runs, starts=len(traffic.users),
           busiest_second_sent=arrivals.busiest_second_sent(), busiest_second_all=stats["busiest_second_all"],
           http_429=stats["429_total"], db_connections_most=connections.most,
           total_seconds=round(time.monotonic() - started, 1))
