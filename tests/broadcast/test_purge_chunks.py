"""Purging in bounded chunks: no DELETE removes more than a chunk, cron takes a slice per tick, the rest follows."""
from datetime import timedelta

import pytest
from sqlalchemy import event, insert, select, update

from app.clock import utcnow
from app.extensions import db
from app.models import BroadcastJob, ProcessedUpdate
from app.models import BroadcastJobItem as I  # noqa: N817
from app.services import housekeeping
from app.services.broadcast.jobs import population as jobs_population
from app.services.broadcast.jobs import purge
from app.services.updates import purge_processed_updates
from tests.broadcast.helpers import create_text_job, create_users
from tests.conftest import PUMP_TOKEN

CHUNK = 7
URL, AUTH = "/internal/pump", {"Authorization": f"Bearer {PUMP_TOKEN}"}


@pytest.fixture
def deletes():
    """Record the rows each DELETE statement removed, on every connection of the engine."""
    seen: list[tuple[str, int]] = []

    def after(conn, cursor, statement, parameters, context, executemany):
        if statement.lstrip().upper().startswith("DELETE"):
            seen.append((statement.split()[2], cursor.rowcount))

    event.listen(db.engine, "after_cursor_execute", after)
    yield seen
    event.remove(db.engine, "after_cursor_execute", after)


def finished_job(users: int, days_ago: float):
    """Return a completed job with `users` items, all sent and finished days_ago."""
    job = create_text_job()
    when = utcnow() - timedelta(days=days_ago)
    db.session.execute(update(BroadcastJob).where(BroadcastJob.id == job.id).values(
        status="completed", active_slot=None, finished_at=when))
    db.session.execute(update(I).where(I.job_id == job.id).values(status="sent", sent_at=when))
    db.session.commit()
    return job.id


def item_count(job_id: int) -> int:
    n = db.session.execute(select(db.func.count()).select_from(I).where(I.job_id == job_id)).scalar()
    db.session.commit()
    return n


def test_purge_deletes_a_chunk_per_statement_and_a_slice_per_call(app, monkeypatch, deletes):
    monkeypatch.setattr(jobs_population, "DELETE_CHUNK", CHUNK)
    create_users(50)
    first, second = finished_job(50, 10), finished_job(50, 10)
    result = purge.purge_items(3, max_items=60)
    assert (result["items"], result["jobs"], result["done"]) == (60, {first: 50, second: 10}, False)
    assert item_count(first) == 0 and item_count(second) == 40
    item_deletes = [n for table, n in deletes if table == "broadcast_job_items"]
    assert item_deletes and max(item_deletes) <= CHUNK and sum(item_deletes) == 60
    result = purge.purge_items(3)  # the next call carries on where the slice stopped
    assert (result["jobs"], result["done"]) == ({second: 40}, True)
    assert item_count(second) == 0
    assert max(n for table, n in deletes if table == "broadcast_job_items") <= CHUNK


def test_processed_updates_go_in_chunks_up_to_the_slice(app, monkeypatch, deletes):
    monkeypatch.setattr("app.services.updates.PURGE_CHUNK", CHUNK)
    old = utcnow() - timedelta(days=30)
    db.session.execute(insert(ProcessedUpdate), [{"update_id": i, "processed_at": old} for i in range(1, 41)])
    db.session.commit()
    assert purge_processed_updates(7, max_rows=30) == 30
    assert purge_processed_updates(7) == 10
    sizes = [n for table, n in deletes if table == "processed_updates"]
    assert max(sizes) <= CHUNK and sum(sizes) == 40


def test_cron_purges_old_ledgers_only_when_the_setting_asks(app, client, runner, monkeypatch):
    monkeypatch.setattr(housekeeping, "ITEMS_PER_TICK", 30)
    create_users(50)
    old, young = finished_job(50, 10), finished_job(50, 1)
    assert "purged_items" not in client.get(URL, headers=AUTH).get_json()  # default 0: ledgers stay
    assert item_count(old) == 50
    assert runner.invoke(args=["settings", "set", "broadcast_items_keep_days", "5"]).exit_code == 0
    assert client.get(URL, headers=AUTH).get_json()["purged_items"] == 30
    assert client.get(URL, headers=AUTH).get_json()["purged_items"] == 20
    assert client.get(URL, headers=AUTH).get_json()["purged_items"] == 0
    assert (item_count(old), item_count(young)) == (0, 50)


def test_cron_discards_a_population_that_died(app, client, monkeypatch):
    create_users(5)
    job = create_text_job()
    db.session.execute(update(BroadcastJob).where(BroadcastJob.id == job.id).values(
        status="draft", active_slot=None, created_at=utcnow() - timedelta(hours=2)))
    db.session.commit()
    job_id = job.id
    assert client.get(URL, headers=AUTH).status_code == 200
    db.session.expunge_all()
    assert db.session.get(BroadcastJob, job_id) is None and item_count(job_id) == 0


def test_the_forever_worker_housekeeps_as_cron_does(app, monkeypatch):
    """A VPS runs `broadcast pump --forever` instead of cron: old update ids go there too."""
    import threading

    from app.cli import pump_cmd

    old = utcnow() - timedelta(days=30)
    db.session.execute(insert(ProcessedUpdate), [{"update_id": i, "processed_at": old} for i in range(1, 4)])
    db.session.commit()
    stop = threading.Event()
    real = pump_cmd.run_once

    def once_then_stop(*args):
        stop.set()  # one iteration: the loop ends after it
        return real(*args)

    monkeypatch.setattr(pump_cmd, "run_once", once_then_stop)
    pump_cmd.run_forever(1, 0, stop)
    assert db.session.execute(select(db.func.count()).select_from(ProcessedUpdate)).scalar() == 0
    db.session.commit()
