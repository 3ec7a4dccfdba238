"""The engine's promises under trouble, judged by counts: orphans, DB errors, the database's clock, paid."""
from __future__ import annotations

from datetime import datetime, timedelta

import pytest
from sqlalchemy import event, update
from sqlalchemy.exc import OperationalError

import app.clock
from app.extensions import db
from app.models import BroadcastJob
from app.repository import broadcast_claims as claims
from app.repository import broadcast_jobs as jobs_repo
from app.repository.broadcast_ledger import tallies
from app.repository.db_clock import db_utcnow
from app.services import telegram_factory
from app.services.broadcast.jobs import control
from app.services.broadcast.sending.drain import pump, pump_all
from app.services.broadcast.sending.runner import run_interactive
from tests.broadcast.helpers import BASE_ID, assert_consistent, create_text_job, create_users, engine_settings, reload
from tests.dbutil import is_mysql

FAST = engine_settings(broadcast_rate_per_second=28)


def broadcast_chats(simulator) -> list[int]:
    """Return the recipients the simulator delivered a broadcast copy to."""
    return [d["chat_id"] for d in simulator.deliveries() if d["chat_id"] >= BASE_ID]


def with_progress_message(job_id: int, simulator) -> None:
    """Give the job a live progress message in the admin's chat."""
    message_id = simulator.add_message(1001, text="progress")
    control.set_progress_message(job_id, 1001, message_id)


# --- 4. orphans of a job that is no longer running ----------------------------------------------

def leave_orphans(job_id: int, n: int, lease_seconds: float) -> list[int]:
    """Act as a pump that marked n items 'sending' and died; its lease ends lease_seconds from now."""
    now = db_utcnow()
    assert jobs_repo.acquire_lease(job_id, "dead-pump", now, 55)
    ids = [i for i, _ in claims.next_pending(job_id, 0, n)]
    assert claims.mark_sending(ids) == n
    db.session.execute(update(BroadcastJob).where(BroadcastJob.id == job_id)
                       .values(lease_expires_at=now + timedelta(seconds=lease_seconds)))
    db.session.commit()
    return ids


@pytest.mark.parametrize("action", ["cancel", "pause"])
def test_cron_expires_orphans_of_stopped_jobs_once_their_lease_is_dead(app, simulator, action):
    create_users(6)
    job = create_text_job(settings=FAST)
    orphans = leave_orphans(job.id, 3, lease_seconds=30)
    assert (control.cancel_job if action == "cancel" else control.pause_job)(job.id)
    pump_all(2, settings=FAST)
    assert tallies(job.id) == {"sending": 3, "pending": 3}, "a live lease's pump may still record them"
    db.session.execute(update(BroadcastJob).where(BroadcastJob.id == job.id)
                       .values(lease_expires_at=db_utcnow() - timedelta(seconds=1)))
    db.session.commit()
    pump_all(2, settings=FAST)
    pump_all(2, settings=FAST)  # twice: counted once
    job_row = reload(job.id)
    assert tallies(job.id) == {"unknown": 3, "pending": 3}
    assert job_row.unknown_count == 3 and job_row.status == ("cancelled" if action == "cancel" else "paused")
    assert sorted(orphans) == sorted(
        i for i, in db.session.execute(db.select(claims.I.id).where(claims.I.status == "unknown")))
    db.session.commit()
    assert broadcast_chats(simulator) == []


# --- 5. a database error keeps what is known ------------------------------------------------------

class FailOnce:
    """Raise OperationalError once, on the first statement matching a prefix after `armed()` is true."""

    def __init__(self, engine, prefix: str, armed=lambda: True):
        self.engine, self.prefix, self.armed, self.fired = engine, prefix, armed, False
        event.listen(engine, "before_cursor_execute", self)

    def __call__(self, conn, cursor, statement, parameters, context, executemany):
        if self.fired or not statement.lstrip().upper().startswith(self.prefix):
            return
        if self.armed():
            self.fired = True
            raise OperationalError(statement[:40], {}, ConnectionError("injected: server has gone away"))

    def remove(self) -> None:
        event.remove(self.engine, "before_cursor_execute", self)


def test_database_error_after_sends_keeps_their_outcomes(app, simulator):
    create_users(30)
    job = create_text_job(settings=FAST)
    # The first write of outcomes fails: the sends it describes did go out.
    # Once a copy was delivered, the next item UPDATE is the one recording outcomes.
    fault = FailOnce(db.engine, "UPDATE BROADCAST_JOB_ITEMS SET STATUS", armed=lambda: broadcast_chats(simulator))
    try:
        result = pump(job.id, 10, settings=FAST)
    finally:
        fault.remove()
    assert fault.fired
    assert result.stop in ("db_error", "done")
    if result.stop == "db_error":
        result = pump(job.id, 10, settings=FAST)
    counts = assert_consistent(job.id, simulator)
    assert counts == {"sent": 30}, "no delivered item was turned into 'unknown' or sent twice"
    assert sorted(broadcast_chats(simulator)) == sorted(range(BASE_ID, BASE_ID + 30))


def test_failing_progress_read_after_the_mark_does_not_strand_the_batch(app, simulator):
    create_users(20)
    settings = engine_settings(broadcast_rate_per_second=28, broadcast_progress_every=1)
    job = create_text_job(settings=settings)
    with_progress_message(job.id, simulator)
    # Once a copy was delivered, the next whole-row read of the job is the
    # progress read that follows a step (which just marked a batch 'sending').
    fault = FailOnce(db.engine, "SELECT BROADCAST_JOBS.ID, BROADCAST_JOBS.STATUS",
                     armed=lambda: broadcast_chats(simulator))
    try:
        result = pump(job.id, 10, settings=settings)
    finally:
        fault.remove()
    assert fault.fired
    assert result.stop == "done"
    assert assert_consistent(job.id, simulator) == {"sent": 20}, "the marked batch still went out"


# --- 6. times from the database's clock, with sub-second precision --------------------------------

@pytest.fixture
def skewed_server_clock(monkeypatch):
    """Make this app server's wall clock run ten minutes off (the database's is right)."""
    def skew(seconds: float):
        real = app.clock.datetime

        class Skewed(real):
            @classmethod
            def now(cls, tz=None):
                return real.now(tz) + timedelta(seconds=seconds)

        monkeypatch.setattr(app.clock, "datetime", Skewed)
    return skew


def test_a_dead_pumps_lease_is_taken_over_by_the_databases_clock(app, simulator, skewed_server_clock):
    create_users(4)
    job = create_text_job(settings=FAST)
    leave_orphans(job.id, 1, lease_seconds=-1)  # expired a second ago, by the database's clock
    skewed_server_clock(-600)  # this server thinks it is ten minutes earlier
    result = pump(job.id, 10, settings=FAST)
    assert result.acquired and result.stop == "done"
    assert assert_consistent(job.id, simulator) == {"sent": 3, "unknown": 1}


def test_not_before_follows_the_databases_clock(app, simulator, skewed_server_clock):
    create_users(3)
    job = create_text_job(settings=FAST)
    skewed_server_clock(+600)
    simulator.configure(fail_429_ratio=1.0, retry_after_range=(20, 20))
    assert pump(job.id, 2, settings=FAST).stop == "rate_limited"
    ahead = (reload(job.id).not_before - db_utcnow()).total_seconds()
    db.session.commit()
    assert 17 <= ahead <= 20.5, f"not_before is {ahead:.1f} s ahead of the database's clock, want ~20"


def test_lease_and_not_before_keep_fractions_of_a_second(app, database_url):
    create_users(1)
    job = create_text_job(settings=FAST)
    base = db_utcnow().replace(microsecond=0) + timedelta(seconds=5)
    assert jobs_repo.acquire_lease(job.id, "t", base, 55)
    jobs_repo.set_not_before(job.id, "t", base.replace(microsecond=900_000))
    db.session.commit()
    row = reload(job.id)
    assert row.not_before == base.replace(microsecond=900_000), "…03.900 must not become …03"
    assert row.lease_expires_at == base + timedelta(seconds=55)
    # The database itself compares with the fraction (what the lease UPDATE relies on).
    later = base.replace(microsecond=800_000)
    assert db.session.execute(db.select(BroadcastJob.id).where(
        BroadcastJob.id == job.id, BroadcastJob.not_before > later)).scalar() == job.id
    db.session.commit()
    if is_mysql(database_url):
        assert isinstance(row.not_before, datetime)


# --- 7. a paid broadcast always runs at its paid rate --------------------------------------------

def test_paid_job_pumped_from_the_admins_request_runs_at_the_paid_rate(app, simulator):
    create_users(60)
    settings = engine_settings(broadcast_rate_per_second=5, broadcast_paid_enabled=True,
                               broadcast_paid_rate_per_second=300, webhook_pump_calls=1, webhook_pump_seconds=4)
    job = create_text_job(settings=settings)
    free = telegram_factory.get_client(settings)  # the request's own client, as the bot has it
    status = run_interactive(job.id, settings=settings, outbox=telegram_factory.new_outbox(free), chat_id=1001)
    # At the free 5/s a 4 s pump reaches ~21 users; at the paid rate all 60.
    assert status.status == "completed", status
    sends = [d for d in simulator.deliveries(method="sendMessage") if d["chat_id"] >= BASE_ID]
    assert len(sends) == 60


def test_asking_for_the_free_client_never_slows_a_running_paid_pump(app, simulator):
    settings = engine_settings(broadcast_rate_per_second=5, broadcast_paid_enabled=True,
                               broadcast_paid_rate_per_second=300)
    paid = telegram_factory.get_client(settings, paid=True)
    free = telegram_factory.get_client(settings)
    assert paid is not free
    assert paid.rate_limiter.rate == 300 and free.rate_limiter.rate == 5
    assert paid.chat_pacer is free.chat_pacer, "one chat's limit is shared whoever pays"

