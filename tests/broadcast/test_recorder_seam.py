"""The Recorder answers the pump through what it returns: a halt, a lost lease, each claim's name and copy."""
from __future__ import annotations

import time

from app.services.broadcast.jobs import control
from app.services.broadcast.sending.lease import Lease
from app.services.broadcast.sending.pump import Pump
from app.services.broadcast.sending.recorder import StepResult
from app.services.broadcast.sending.stops import Stop
from app.services.telegram_factory import get_client, new_outbox
from tests.broadcast.helpers import create_text_job, create_users, engine_settings, expire_lease, recorder_for, reload


def leased_recorder(window: int, **job_kw) -> tuple[int, Pump, object]:
    """A text job, a pump holding its lease as drain.pump() builds it (run() not called), and that pump's Recorder."""
    settings = engine_settings()
    job = create_text_job(settings=settings, **job_kw)
    client = get_client(settings)
    p = Pump(job.id, 30, settings, client, new_outbox(client), time.monotonic, time.sleep)
    assert p.lease.acquire()
    return job.id, p, recorder_for(p, reload(job.id), window)


def test_a_step_on_a_paused_job_claims_nothing_and_tells_the_pump_to_halt(app, simulator):
    create_users(3)
    job_id, p, recorder = leased_recorder(window=2)
    assert control.pause_job(job_id, "by hand", actor="admin:1001")
    result = recorder.step([], 2, 0, None)
    assert result == StepResult(stop=Stop.PAUSED, halt=True)
    p.heed(result)
    assert p.stop == Stop.PAUSED
    # Halted for good: a send waiting out a 429 does not retry, even once the job runs again.
    assert control.resume_job(job_id) == "running"
    assert p.may_retry() is False
    p.lease.release()


def test_a_heartbeat_after_a_takeover_reports_the_lost_lease(app, simulator):
    create_users(1)
    job_id, _, recorder = leased_recorder(window=1)
    assert recorder.heartbeat() is None
    expire_lease(job_id)
    assert Lease(job_id, time.monotonic, time.sleep).acquire()
    assert recorder.heartbeat() == Stop.LEASE_LOST


def test_each_claim_carries_its_recipients_name_for_a_personal_greeting(app, simulator):
    from app.extensions import db
    from app.models import User

    users = create_users(2)
    ali = db.session.get(User, users[0])
    ali.first_name, ali.language_code = "Ali", "en"
    db.session.commit()
    _, p, recorder = leased_recorder(window=2, text="سلام {first_name}")
    claimed = recorder.step([], 2, 0, None).claimed
    assert [(c.user_id, c.first_name, c.language_code) for c in claimed] == [
        (users[0], "Ali", "en"), (users[1], f"کاربر {users[1]} 🎉", None)]
    p.lease.release()


def test_answers_written_again_move_no_counter_twice(app, simulator):
    # The counters ride on the fence's UPDATE, sized by the plan; when a plan is written again (a commit
    # that succeeded but raised, so its outcomes were kept) its rows no longer change, and the counters
    # must follow the rows, not the plan.
    from app.services.broadcast.sending import outcomes
    from tests.broadcast.helpers import assert_consistent

    create_users(2)
    job_id, p, recorder = leased_recorder(window=2)
    claimed = recorder.step([], 2, 0, None).claimed
    done = [(c.item_id, c.user_id, outcomes.delivered({"message_id": 5})) for c in claimed]
    recorder.step(done, 0, 0, None)
    recorder.step(done, 0, 0, None)
    assert reload(job_id).sent_count == 2
    assert assert_consistent(job_id) == {"sent": 2}
    p.lease.release()
