"""A transaction MariaDB picks as a deadlock's victim runs again, whole and once.

The deadlocks here are real: another connection takes locks in the opposite
order and carries more writes, so InnoDB rolls back the transaction under
test (the lighter one). Nothing is faked between the code and the database.
"""
from __future__ import annotations

import logging
import threading
import time

import pytest
from sqlalchemy import create_engine, event, func, select, text
from sqlalchemy.exc import IntegrityError, OperationalError

from app.extensions import db
from app.models.audit import CANCELLED, AuditEntry
from app.models.broadcast import BroadcastJobItem
from app.repository.deadlocks import in_transaction, is_deadlock
from app.services.broadcast.jobs import control, purge
from app.services.broadcast.sending.drain import pump
from tests.broadcast.helpers import assert_consistent, create_text_job, create_users, engine_settings, reload
from tests.dbutil import base_test_url, is_mysql

ON_MYSQL = is_mysql(base_test_url("/tmp"))
mysql_only = pytest.mark.skipif(not ON_MYSQL, reason="SQLite has one writer at a time: no lock cycle to break")
BALLAST_ROWS = 300  # the other transaction's writes: it weighs more, so InnoDB rolls back ours
WAIT = 10.0
OTHERS_PAIR_UPDATE = "UPDATE dl_pair SET v = v + 10 WHERE id = 1"


def _wait_until_blocked(conn, statement: str, timeout: float = WAIT) -> None:
    """Return once another connection has been running `statement` (a LIKE pattern) for a moment: blocked."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if conn.execute(text("SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE command = 'Query' "
                             "AND info LIKE :statement AND time_ms > 50"), {"statement": statement}).scalar():
            return
        time.sleep(0.01)
    raise AssertionError(f"nothing waited in {statement!r}")


class Opposite(threading.Thread):
    """The other transaction: heavy with ballast writes, it holds `first`, then waits for `then`."""

    def __init__(self, engine, first: list[str], then: str):
        super().__init__(daemon=True)
        self.engine, self.first, self.then = engine, first, then
        self.holding, self.go = threading.Event(), threading.Event()
        self.error = None

    def run(self) -> None:
        try:
            with self.engine.connect().execution_options(isolation_level="REPEATABLE READ") as conn:
                with conn.begin():
                    conn.execute(text("UPDATE dl_ballast SET v = v + 1"))
                    for sql in self.first:
                        conn.execute(text(sql))
                    self.holding.set()
                    self.go.wait(WAIT)
                    conn.execute(text(self.then))
                    time.sleep(0.2)  # our retry's first statement waits for this commit
        except Exception as exc:  # surfaced by the test
            self.error = exc


def _run_until_blocked_then_close(app, raw_engine, other: Opposite, call, blocked: str, join: float = WAIT) -> dict:
    """Run call() in a thread (its own session) until it waits in `blocked`, then let the other close the cycle.

    Return {"value": call's result} or {"error": what it raised}; the other transaction must have committed.
    """
    result = {}

    def run() -> None:
        with app.app_context():
            try:
                result["value"] = call()
                db.session.commit()
            except Exception as exc:  # the caller asserts on it
                db.session.rollback()
                result["error"] = exc

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    with raw_engine.connect() as probe:
        _wait_until_blocked(probe, blocked)
    other.go.set()
    other.join(WAIT)
    worker.join(join)
    assert other.error is None, other.error
    return result


def _updates_job(statement: str, column: str) -> bool:
    """Tell whether statement is an UPDATE of broadcast_jobs whose SET starts with column (index hint or not)."""
    return statement.startswith("UPDATE broadcast_jobs ") and f"SET {column}=" in statement.replace(" = ", "=")


@pytest.fixture
def raw_engine(app, database_url):
    """A second engine on the test database, with the ballast and scratch tables."""
    if not ON_MYSQL:
        pytest.skip("SQLite has one writer at a time: no lock cycle to break")
    engine = create_engine(database_url, isolation_level="READ COMMITTED")
    with engine.begin() as conn:
        conn.execute(text("DROP TABLE IF EXISTS dl_ballast"))
        conn.execute(text("DROP TABLE IF EXISTS dl_pair"))
        conn.execute(text("CREATE TABLE dl_ballast (id INT PRIMARY KEY, v INT NOT NULL) ENGINE=InnoDB"))
        conn.execute(text("CREATE TABLE dl_pair (id INT PRIMARY KEY, v INT NOT NULL) ENGINE=InnoDB"))
        conn.execute(text("INSERT INTO dl_ballast (id, v) VALUES " +
                          ", ".join(f"({i}, 0)" for i in range(BALLAST_ROWS))))
        conn.execute(text("INSERT INTO dl_pair (id, v) VALUES (1, 0), (2, 0)"))
    yield engine
    with engine.begin() as conn:
        conn.execute(text("DROP TABLE IF EXISTS dl_ballast"))
        conn.execute(text("DROP TABLE IF EXISTS dl_pair"))
    engine.dispose()


@mysql_only
def test_a_deadlock_victim_runs_again_and_its_writes_land_once(app, raw_engine, caplog):
    other = Opposite(raw_engine, ["UPDATE dl_pair SET v = v + 10 WHERE id = 2"], OTHERS_PAIR_UPDATE)
    other.start()
    assert other.holding.wait(WAIT), other.error
    runs = []

    def work() -> int:
        runs.append(1)
        db.session.execute(text("UPDATE dl_pair SET v = v + 1 WHERE id = 1"))
        if len(runs) == 1:
            other.go.set()
            with raw_engine.connect() as probe:
                _wait_until_blocked(probe, OTHERS_PAIR_UPDATE)
        db.session.execute(text("UPDATE dl_pair SET v = v + 1 WHERE id = 2"))
        return len(runs)

    with caplog.at_level(logging.INFO, logger="app.repository.deadlocks"):
        assert in_transaction(work) == 2
    other.join(WAIT)
    assert other.error is None, other.error
    # The first run's +1 was rolled back with it; the second run's landed once, beside the other's +10.
    with raw_engine.connect() as conn:
        assert dict(conn.execute(text("SELECT id, v FROM dl_pair")).all()) == {1: 11, 2: 11}
    assert "deadlock on attempt 1 of 4" in caplog.text


def test_work_lands_in_one_commit_and_an_error_other_than_a_deadlock_keeps_nothing(app):
    # Both databases: no retry for anything but a deadlock, and a failed run leaves no half of itself.
    from app.services import audit

    create_users(1, start=7)
    assert in_transaction(lambda: audit.record("cli", CANCELLED, 1, "kept") or "ok") == "ok"
    runs = []

    def work() -> None:
        runs.append(1)
        audit.record("cli", CANCELLED, 2, "rolled back")
        create_users(1, start=7)  # the same id again: a duplicate key

    with pytest.raises(IntegrityError) as raised:
        in_transaction(work)
    assert not is_deadlock(raised.value) and len(runs) == 1
    assert [e.detail for e in db.session.query(AuditEntry).all()] == ["kept"]


@mysql_only
def test_every_run_a_victim_raises_the_deadlock_after_the_last_attempt(app, raw_engine):
    runs, slept = [], []

    def work() -> None:
        runs.append(1)
        other = Opposite(raw_engine, ["UPDATE dl_pair SET v = v + 10 WHERE id = 2"], OTHERS_PAIR_UPDATE)
        other.start()
        assert other.holding.wait(WAIT), other.error
        db.session.execute(text("UPDATE dl_pair SET v = v + 1 WHERE id = 1"))
        other.go.set()
        with raw_engine.connect() as probe:
            _wait_until_blocked(probe, OTHERS_PAIR_UPDATE)
        try:
            db.session.execute(text("UPDATE dl_pair SET v = v + 1 WHERE id = 2"))
        finally:
            other.join(WAIT)

    with pytest.raises(OperationalError) as raised:
        in_transaction(work, attempts=3, sleep=slept.append)
    assert is_deadlock(raised.value) and len(runs) == 3 and len(slept) == 2
    with raw_engine.connect() as conn:  # each run's +1 rolled back; the other's +10 landed every time
        assert dict(conn.execute(text("SELECT id, v FROM dl_pair")).all()) == {1: 30, 2: 30}


@mysql_only
def test_an_admins_cancel_chosen_as_a_deadlock_victim_still_cancels_once(app, raw_engine, caplog):
    # The cancel's UPDATE holds the job's row; the other transaction holds the end of audit_log
    # (a REPEATABLE READ range lock) and asks for the job's row; the cancel's audit INSERT closes the cycle.
    create_users(3)
    job = create_text_job()
    others_update = f"UPDATE broadcast_jobs SET pause_reason = 'other' WHERE id = {job.id}"
    other = Opposite(raw_engine, ["SELECT id FROM audit_log WHERE id > 0 FOR UPDATE"], others_update)
    other.start()
    assert other.holding.wait(WAIT), other.error
    cancels = []

    def after_cancel_update(conn, cursor, statement, parameters, context, executemany):
        if _updates_job(statement, "status") and not cancels:
            cancels.append(statement)
            other.go.set()
            with raw_engine.connect() as probe:
                _wait_until_blocked(probe, others_update)

    event.listen(db.engine, "after_cursor_execute", after_cancel_update)
    try:
        with caplog.at_level(logging.INFO, logger="app.repository.deadlocks"):
            assert control.cancel_job(job.id, actor="cli") is True
    finally:
        event.remove(db.engine, "after_cursor_execute", after_cancel_update)
    other.join(WAIT)
    assert other.error is None, other.error
    assert cancels and "deadlock on attempt 1 of 4" in caplog.text
    job = reload(job.id)
    assert job.status == "cancelled" and job.pause_reason == "other"
    assert db.session.query(AuditEntry).filter_by(job_id=job.id, action=CANCELLED).count() == 1


@mysql_only
def test_a_pump_step_chosen_as_a_deadlock_victim_runs_again_and_the_run_goes_on(app, raw_engine, simulator, caplog):
    # The other transaction holds the last item's row; the pump's step, holding the job's row from its
    # lease fence, waits to mark that item in flight; the other then asks for the job's row.
    ids = create_users(8)
    settings = engine_settings(broadcast_rate_per_second=20, broadcast_concurrency=4)
    job = create_text_job(settings=settings)
    last_item = db.session.execute(select(func.max(BroadcastJobItem.id)).where(
        BroadcastJobItem.job_id == job.id)).scalar()
    db.session.commit()
    other = Opposite(raw_engine, [f"SELECT id FROM broadcast_job_items WHERE id = {last_item} FOR UPDATE"],
                     f"UPDATE broadcast_jobs SET not_before = NULL WHERE id = {job.id}")
    other.start()
    assert other.holding.wait(WAIT), other.error
    with caplog.at_level(logging.INFO, logger="app.services.broadcast.sending.recorder"):
        result = _run_until_blocked_then_close(app, raw_engine, other, lambda: pump(job.id, 30, settings=settings),
                                               "UPDATE broadcast_job_items SET status = 'sending'%", join=30)
    assert "error" not in result, result["error"]
    assert "deadlock while recording (try 1)" in caplog.text
    # The run did not stop at the deadlock: one pump sent every copy, once.
    assert result["value"].stop == "done"
    counts = assert_consistent(job.id, simulator)
    assert counts == {"sent": len(ids)} and reload(job.id).status == "completed"


def _close_cycle_after(column: str, other: Opposite, others_then: str):
    """After our first UPDATE of broadcast_jobs setting `column` first, let the other transaction close the cycle."""
    fired = []

    def after(conn, cursor, statement, parameters, context, executemany):
        if _updates_job(statement, column) and not fired:
            fired.append(statement)
            other.go.set()
            with other.engine.connect() as probe:
                _wait_until_blocked(probe, others_then)

    return fired, after


def _run_with_hook(hook, call):
    """Run call() with hook after each of our statements."""
    event.listen(db.engine, "after_cursor_execute", hook)
    try:
        return call()
    finally:
        event.remove(db.engine, "after_cursor_execute", hook)


def _make_orphan(job_id: int) -> int:
    """Put the job's first item in flight, as a pump killed mid-send leaves it; return its id."""
    item_id = db.session.execute(select(func.min(BroadcastJobItem.id)).where(
        BroadcastJobItem.job_id == job_id)).scalar()
    db.session.execute(text(f"UPDATE broadcast_job_items SET status = 'sending' WHERE id = {item_id}"))
    db.session.commit()
    return item_id


def _lose_to_the_orphans_holder(raw_engine, caplog, job_id: int, orphan: int, call):
    """Run call() while another transaction holds the orphan's row and then asks for the job's; return its result.

    call() first takes the job's row (its UPDATE setting lease_token), then asks for the orphan's row: the
    cycle closes, our transaction is the victim and must run again once the other commits.
    """
    others_update = f"UPDATE broadcast_jobs SET pause_reason = 'other' WHERE id = {job_id}"
    other = Opposite(raw_engine, [f"SELECT id FROM broadcast_job_items WHERE id = {orphan} FOR UPDATE"],
                     others_update)
    other.start()
    assert other.holding.wait(WAIT), other.error
    fired, hook = _close_cycle_after("lease_token", other, others_update)
    with caplog.at_level(logging.INFO, logger="app.repository.deadlocks"):
        result = _run_with_hook(hook, call)
    other.join(WAIT)
    assert other.error is None, other.error
    assert fired and "deadlock on attempt 1 of 4" in caplog.text
    return result


@mysql_only
def test_a_pumps_lease_taken_as_a_deadlock_victim_is_taken_again_and_the_orphan_counted_once(
        app, raw_engine, simulator, caplog):
    # Taking the lease holds the job's row, then turns a dead pump's in-flight item into unknown; the other
    # transaction holds that item's row and asks for the job's row.
    create_users(3)
    settings = engine_settings(broadcast_rate_per_second=20)
    job = create_text_job(settings=settings)
    orphan = _make_orphan(job.id)
    result = _lose_to_the_orphans_holder(raw_engine, caplog, job.id, orphan,
                                         lambda: pump(job.id, 30, settings=settings))
    assert (result.acquired, result.stop) == (True, "done")
    # The orphan became unknown once (not twice: the first run's +1 was rolled back); the others were sent.
    assert assert_consistent(job.id, simulator) == {"sent": 2, "unknown": 1}
    assert reload(job.id).pause_reason == "other"


@mysql_only
def test_cron_expiring_a_stopped_jobs_orphans_as_a_deadlock_victim_counts_them_once(app, raw_engine, caplog):
    # Cron claims a paused job's dead lease (its row), then expires the orphan the other transaction holds.
    create_users(3)
    job = create_text_job()
    orphan = _make_orphan(job.id)
    assert control.pause_job(job.id, actor="cli")
    assert _lose_to_the_orphans_holder(raw_engine, caplog, job.id, orphan, purge.expire_stopped_orphans) == 1
    job = reload(job.id)
    assert (job.status, job.unknown_count, job.pause_reason) == ("paused", 1, "other")
    assert assert_consistent(job.id) == {"pending": 2, "unknown": 1}


@mysql_only
def test_cron_releasing_due_schedules_as_a_deadlock_victim_queues_each_once(app, raw_engine, caplog):
    # One UPDATE moves both due jobs, locking them in id order; the other holds the second and asks for the first.
    from datetime import timedelta

    from sqlalchemy import update

    from app.models import BroadcastJob
    from app.repository.db_clock import db_utcnow
    from app.services.broadcast.schedule import releases

    create_users(2)
    now = db_utcnow()
    first, second = (create_text_job(text=f"t{i}", send_at=now + timedelta(hours=1)) for i in range(2))
    db.session.execute(update(BroadcastJob).where(BroadcastJob.id.in_((first.id, second.id)))
                       .values(send_at=now - timedelta(seconds=1)))
    db.session.commit()
    others_update = f"UPDATE broadcast_jobs SET pause_reason = 'other' WHERE id = {first.id}"
    other = Opposite(raw_engine, [f"SELECT id FROM broadcast_jobs WHERE id = {second.id} FOR UPDATE"],
                     others_update)
    other.start()
    assert other.holding.wait(WAIT), other.error
    with caplog.at_level(logging.INFO, logger="app.repository.deadlocks"):
        # Our UPDATE holds the first job and waits for the second.
        result = _run_until_blocked_then_close(app, raw_engine, other, lambda: releases.start_due(engine_settings()),
                                               "UPDATE broadcast_jobs SET status%")
    assert result == {"value": 2} and "deadlock on attempt 1 of 4" in caplog.text
    assert [reload(j.id).status for j in (first, second)] == ["queued", "queued"]


@mysql_only
@pytest.mark.parametrize("statement", ["acquire_lease", "fence", "complete_if_done", "promote", "mark_missed"])
def test_a_guarded_job_update_waits_for_a_row_holder_changing_the_status_instead_of_deadlocking(
        app, raw_engine, statement):
    # MariaDB's optimizer finds `id = ? AND status = ?` through the status index. Found that way, the
    # UPDATE locks the job's status entry, then waits for the row; the row's holder (here: a pump pausing
    # the job after its fence) then changes the status and asks for that entry: a deadlock. Found by the
    # primary key (ROW_FIRST), the UPDATE holds nothing while it waits, and simply runs after.
    from datetime import timedelta

    from app.repository import broadcast_jobs as jobs_repo
    from app.repository import broadcast_schedule
    from app.repository.db_clock import db_utcnow

    create_users(2)
    job = create_text_job()
    now = db_utcnow()
    before_status = {"promote": "'queued', active_slot = NULL", "mark_missed": "'scheduled', active_slot = NULL"}
    if statement in before_status:
        db.session.execute(text(f"UPDATE broadcast_jobs SET status = {before_status[statement]}, "
                                f"send_at = '{now - timedelta(hours=1)}' WHERE id = {job.id}"))
    else:
        assert jobs_repo.acquire_lease(job.id, "ours", now, 30)
    db.session.commit()
    runs = {
        "acquire_lease": lambda: jobs_repo.acquire_lease(job.id, "ours", now, 30),
        "fence": lambda: jobs_repo.fence(job.id, "ours", now, 30, require_running=True),
        "complete_if_done": lambda: jobs_repo.complete_if_done(job.id, "ours", now),
        "promote": lambda: jobs_repo.promote(job.id, now),
        "mark_missed": lambda: broadcast_schedule.mark_missed(job.id, now, timedelta(minutes=1)),
    }
    # The other's status change makes ours match nothing once it runs after it.
    others_update = f"UPDATE broadcast_jobs SET status = 'cancelled', active_slot = NULL WHERE id = {job.id}"
    other = Opposite(raw_engine, [f"SELECT id FROM broadcast_jobs WHERE id = {job.id} FOR UPDATE"], others_update)
    other.start()
    assert other.holding.wait(WAIT), other.error
    result = _run_until_blocked_then_close(app, raw_engine, other, runs[statement], "UPDATE broadcast_jobs%")
    # A deadlock would have rolled one of the two back with an error (ours, the lighter, here).
    assert "error" not in result, result["error"]
    # It ran after the other's commit and saw the new status.
    assert result["value"] in (False, 0)
