"""The job lease: exclusivity, expiry, fencing, and the single active slot."""
import threading
from datetime import timedelta

from app import create_app
from app.clock import utcnow
from app.extensions import db
from app.repository import broadcast_jobs as repo
from app.services.broadcast.jobs import control
from tests.broadcast.helpers import create_text_job, create_users, expire_lease, reload
from tests.conftest import app_config

TTL = 55


def test_second_caller_misses_a_live_lease(app):
    create_users(3)
    job = create_text_job()
    now = utcnow()
    assert repo.acquire_lease(job.id, "A", now, TTL)
    db.session.commit()
    assert not repo.acquire_lease(job.id, "B", now, TTL)
    assert repo.acquire_lease(job.id, "A", now, TTL), "the holder may renew"
    db.session.commit()


def test_expired_lease_is_taken_over_and_the_old_holder_is_fenced(app):
    create_users(3)
    job = create_text_job()
    now = utcnow()
    assert repo.acquire_lease(job.id, "A", now, TTL)
    db.session.commit()
    # "now" is a parameter: a later time makes A's lease expired without sleeping.
    later = now + timedelta(seconds=TTL + 1)
    assert repo.acquire_lease(job.id, "B", later, TTL)
    db.session.commit()
    assert not repo.fence(job.id, "A", later, TTL, require_running=False)
    assert repo.fence(job.id, "B", later, TTL, require_running=True)
    db.session.commit()


def test_release_only_frees_our_own_lease(app):
    create_users(1)
    job = create_text_job()
    now = utcnow()
    repo.acquire_lease(job.id, "A", now, TTL)
    repo.release_lease(job.id, "B")
    db.session.commit()
    assert reload(job.id).lease_token == "A"
    repo.release_lease(job.id, "A")
    db.session.commit()
    assert reload(job.id).lease_token is None


def test_racing_acquirers_on_separate_connections_get_one_winner(app, database_url, simulator):
    create_users(2)
    job_id = create_text_job().id
    # Each contender has its own app (engine, pool, connection), built here: apps built in 4 threads at
    # once can hit CPython 3.11's "AST constructor recursion depth mismatch" in werkzeug's route
    # compiling, and a contender dying before the barrier left the others waiting for ever.
    others = [create_app(app_config(database_url, simulator.base_url)) for _ in range(4)]
    for round_no in range(10):
        expire_lease(job_id)
        barrier = threading.Barrier(4, timeout=60)
        winners = []

        def contend(token, other, barrier=barrier, winners=winners):
            with other.app_context():
                barrier.wait()
                if repo.acquire_lease(job_id, token, utcnow(), TTL):
                    winners.append(token)
                db.session.commit()
                db.engine.dispose()

        threads = [threading.Thread(target=contend, args=(f"r{round_no}-{i}", other)) for i, other in enumerate(others)]
        for th in threads:
            th.start()
        for th in threads:
            th.join()
        assert len(winners) == 1, winners
        assert reload(job_id).lease_token == winners[0]


def test_only_one_job_holds_the_active_slot(app):
    create_users(2)
    first = create_text_job()
    second = create_text_job()
    assert reload(first.id).status == "running"
    assert reload(second.id).status == "queued"
    assert not repo.promote(second.id, utcnow())
    db.session.commit()
    assert reload(second.id).status == "queued"
    assert control.pause_job(first.id)
    assert reload(second.id).status == "running", "a paused job lets the next one run"
    assert control.resume_job(first.id) == "queued", "resuming while another sends waits in the queue"
    assert control.cancel_job(second.id)
    assert reload(first.id).status == "running"


def test_terminal_states_never_change(app):
    create_users(1)
    job = create_text_job()
    assert control.cancel_job(job.id)
    assert not control.cancel_job(job.id)
    assert not control.pause_job(job.id)
    assert control.resume_job(job.id) is None
    assert not repo.promote(job.id, utcnow())
    db.session.commit()
    assert reload(job.id).status == "cancelled"
