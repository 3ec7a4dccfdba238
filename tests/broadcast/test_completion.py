"""A job completes only when none of its items is pending or in flight, whoever asks."""
from __future__ import annotations

import threading
import time

import pytest
from sqlalchemy import update

from app.clock import utcnow
from app.extensions import db
from app.models import BroadcastJobItem
from app.repository import broadcast_jobs as jobs_repo
from app.repository import broadcast_population as population
from app.repository.broadcast_ledger import tallies
from app.services.broadcast.sending.drain import pump
from tests.broadcast.helpers import BASE_ID, assert_consistent, create_text_job, create_users, engine_settings, reload

TTL = 60


def leased_job(n: int) -> tuple[int, str]:
    """A running job with n items and a lease held by token 'ours'."""
    create_users(n)
    job = create_text_job()
    assert reload(job.id).status == "running"
    assert jobs_repo.acquire_lease(job.id, "ours", utcnow(), TTL)
    db.session.commit()
    return job.id, "ours"


def set_items(job_id: int, status: str, *, first: int | None = None) -> None:
    """Give every item (or only the first one) of a job a status."""
    stmt = update(BroadcastJobItem).where(BroadcastJobItem.job_id == job_id)
    if first:
        stmt = stmt.where(BroadcastJobItem.user_id == BASE_ID)
    db.session.execute(stmt.values(status=status))
    db.session.commit()


@pytest.mark.parametrize("unfinished", ["pending", "sending"])
def test_a_job_with_an_unfinished_item_is_not_completed(app, unfinished):
    job_id, token = leased_job(3)
    set_items(job_id, "sent")
    set_items(job_id, unfinished, first=True)
    assert jobs_repo.complete_if_done(job_id, token, utcnow()) is False
    db.session.commit()
    assert reload(job_id).status == "running"
    set_items(job_id, "unknown", first=True)
    assert jobs_repo.complete_if_done(job_id, token, utcnow()) is True
    db.session.commit()
    job = reload(job_id)
    assert job.status == "completed" and job.active_slot is None and job.lease_token is None


def test_only_the_lease_holder_completes_a_running_job(app):
    job_id, _ = leased_job(2)
    set_items(job_id, "sent")
    assert jobs_repo.complete_if_done(job_id, "someone-else", utcnow()) is False
    db.session.commit()
    assert reload(job_id).status == "running"


def test_a_pump_that_drained_its_view_reads_again_and_sends_late_items_before_completing(app, simulator):
    """Items added while a pump runs (population re-run) keep the job from completing until they are sent."""
    create_users(20)
    # One batch holds the whole audience, so the pump reads every item at its start; 10/s takes ~2 s.
    slow = engine_settings(broadcast_rate_per_second=10, broadcast_batch_size=100)
    job = create_text_job(settings=slow)
    result = {}

    def run():
        with app.app_context():
            result["r"] = pump(job.id, 30, settings=slow)

    worker = threading.Thread(target=run)
    worker.start()
    time.sleep(0.5)  # the pump has read every pending item by now and is sending them
    late = create_users(1, start=BASE_ID + 1000)[0]
    total = population.populate(job.id, "all")
    jobs_repo.set_total(job.id, total)
    db.session.commit()
    worker.join(30)
    # The completion guard refused while the late item was pending; the pump then read the job's pending
    # items again from the start (Recorder.idle_reason) and sent it in the same run.
    assert result["r"].stop == "done"
    assert tallies(job.id) == {"sent": 21}, "completed with an item never sent"
    assert reload(job.id).status == "completed"
    assert late in [d["chat_id"] for d in simulator.deliveries()]
    assert assert_consistent(job.id, simulator) == {"sent": 21}
