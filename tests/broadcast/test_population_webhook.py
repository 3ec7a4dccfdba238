"""The webhook answers while a big job is populated: population commits in short chunks, never one long write."""
import threading
import time

import pytest

from app.extensions import db
from app.models.broadcast import DRAFT
from app.repository import broadcast_ledger as ledger
from app.repository import broadcast_population as population
from app.services.broadcast.jobs import control, creation
from app.services.broadcast.jobs import population as jobs_population
from app.simulator.updates import message_update, my_chat_member_update
from tests.broadcast.helpers import BASE_ID, create_text_job, create_users, reload
from tests.factories import get_user, post_update

USERS = 20_000
CHUNK = 1_000  # 20 chunks (a million users make 50 chunks of 20,000)


@pytest.fixture
def small_chunks(monkeypatch):
    """Population in chunks of CHUNK users on either database (SQLite's production chunk at 1/20 of the size)."""
    monkeypatch.setattr(jobs_population, "POPULATE_CHUNK", CHUNK)
    monkeypatch.setattr(jobs_population, "POPULATE_CHUNK_MYSQL", CHUNK)


def _populate_in_thread(app, done: dict) -> threading.Thread:
    """Create an 'all' job in another thread (its own app context and connection); note when it ends."""
    def run():
        with app.app_context():
            try:
                done["job_id"] = create_text_job("all").id
            finally:
                done["at"] = time.monotonic()
                db.session.remove()
    return threading.Thread(target=run)


def test_webhook_writes_go_between_population_chunks(app, client, small_chunks):
    ids = []
    for start in range(BASE_ID, BASE_ID + USERS, 10_000):
        ids += create_users(10_000, start=start)
    done: dict = {}
    worker = _populate_in_thread(app, done)
    worker.start()
    answered_during = []
    update_id = 1
    try:
        # Block, unblock and /start of users in the job's audience, as fast as they answer, until it is populated.
        while worker.is_alive():
            user = ids[update_id * 997 % USERS]
            kind = update_id % 3
            if kind == 0:
                update = my_chat_member_update(user, "member", "kicked", update_id=update_id)
            elif kind == 1:
                update = my_chat_member_update(user, "kicked", "member", update_id=update_id)
            else:
                update = message_update(user, "/start")
                update["update_id"] = update_id
            response = post_update(client, update)
            assert response.status_code == 200
            finished = time.monotonic()
            if "at" not in done:
                answered_during.append(finished)
            update_id += 1
    finally:
        worker.join(60)
    job = reload(done["job_id"])
    # One INSERT ... SELECT held SQLite's write lock to the end: every update waited behind it.
    assert len(answered_during) >= 10, f"only {len(answered_during)} updates answered during the population"
    assert job.status != DRAFT
    # The total is exact: the audience as the chunks read it, each user once.
    assert job.total_count == population.count_items(job.id)
    assert USERS - update_id <= job.total_count <= USERS
    blocked = get_user(ids[(update_id - 1) * 997 % USERS])
    assert blocked is not None


def test_failed_population_leaves_no_draft_and_no_items(app, small_chunks, monkeypatch):
    create_users(5 * CHUNK)
    real = population.populate
    calls = []

    def fail_third_chunk(job_id, *args, **kwargs):
        # What another process sees between chunks: the job is a draft, which no pump sends.
        calls.append(db.session.execute(db.text("SELECT status FROM broadcast_jobs WHERE id = :id"),
                                        {"id": job_id}).scalar())
        if len(calls) == 3:
            raise RuntimeError("the database went away")
        return real(job_id, *args, **kwargs)

    monkeypatch.setattr(population, "populate", fail_third_chunk)
    with pytest.raises(RuntimeError):
        create_text_job("all")
    assert calls == [DRAFT] * 3
    assert control.list_jobs() == []
    assert db.session.execute(db.text("SELECT COUNT(*) FROM broadcast_job_items")).scalar() == 0


def test_a_draft_is_never_sent_and_an_abandoned_one_is_discarded(app, small_chunks):
    """A process that died mid-population leaves a draft: the pump never sends it, cron removes it."""
    from datetime import timedelta

    from app.clock import utcnow
    from app.models.audience import Audience
    from app.services.broadcast.sending import drain
    from tests.broadcast.helpers import engine_settings

    create_users(3 * CHUNK)
    now = utcnow()
    job = creation.insert_draft(engine_settings(), **Audience.of("all").columns(), created_by=1, created_at=now,
                                content_type="text", text="hi", parse_mode="HTML")
    db.session.commit()
    job_id = job.id
    population.populate(job_id, "all", now, upto=population.user_id_after(None, CHUNK))
    db.session.commit()  # one chunk in, then the process "dies"
    assert drain.pump_all(1, settings=engine_settings()) == []
    assert jobs_population.discard_abandoned_drafts(now + timedelta(minutes=5)) == 0  # maybe still populating
    assert population.count_items(job_id) == CHUNK
    assert jobs_population.discard_abandoned_drafts(now + jobs_population.DRAFT_ABANDONED + timedelta(seconds=1)) == 1
    db.session.expunge_all()
    assert control.get_job(job_id) is None
    assert population.count_items(job_id) == 0


@pytest.mark.parametrize("audience,expected", [("all", 9), ("members", 3), ("non_members", 6)])
def test_chunks_apply_the_audience_and_count_each_user_once(app, monkeypatch, audience, expected):
    from app.models.user import CHANNEL_MEMBER, CHANNEL_NOT_MEMBER

    monkeypatch.setattr(jobs_population, "POPULATE_CHUNK", 2)  # 7 chunks over 14 users, a boundary inside each group
    monkeypatch.setattr(jobs_population, "POPULATE_CHUNK_MYSQL", 2)
    create_users(3, start=BASE_ID, status=CHANNEL_MEMBER)
    create_users(4, start=BASE_ID + 100, status=CHANNEL_NOT_MEMBER)
    create_users(2, start=BASE_ID + 200)
    create_users(5, start=BASE_ID + 300, blocked=True, status=CHANNEL_MEMBER)
    job = create_text_job(audience)
    assert reload(job.id).total_count == expected == population.count_items(job.id)
    assert ledger.tallies(job.id) == {"pending": expected}
