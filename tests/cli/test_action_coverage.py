"""Unsend and edit cover every copy that exists when they run: in-flight sends, retries, one action at a time."""
from __future__ import annotations

import time
from datetime import timedelta

from sqlalchemy import func, select, update

from app.clock import utcnow
from app.extensions import db
from app.models import BroadcastJob, BroadcastJobItem
from app.models.broadcast import SENDING
from app.services.broadcast.sending.drain import pump
from tests.broadcast.helpers import create_text_job, create_users, engine_settings, reload
from tests.cli.proc import run_flask, start_flask

I = BroadcastJobItem  # noqa: E741


def copies(simulator, users) -> dict[int, str]:
    """Return {user: text} of the bot's messages left in the users' chats."""
    return {m["chat_id"]: m["text"] for m in simulator.bot_messages() if m["chat_id"] in set(users)}


def drain(job_id: int) -> None:
    """Pump a job until it is done."""
    for _ in range(5):
        if pump(job_id, 30, settings=engine_settings()).stop == "done":
            return
    raise AssertionError(f"job {job_id} did not finish: {reload(job_id).status}")


def in_flight(job_id: int) -> int:
    """Count the job's items in flight, as committed."""
    db.session.commit()
    n = db.session.execute(select(func.count()).select_from(I).where(I.job_id == job_id, I.status == SENDING)).scalar()
    db.session.commit()
    return n


def job_count() -> int:
    """Count every job row."""
    n = db.session.execute(select(func.count()).select_from(BroadcastJob)).scalar()
    db.session.commit()
    return n


def test_cancel_then_unsend_at_once_leaves_no_copy_behind(runner, simulator, database_url):
    # Slow sends (1.5 s each): when the admin cancels, a window of copies is still on its way.
    simulator.configure(per_chat_limits=False, latency_ms=1500)
    users = create_users(16)
    job = create_text_job(settings=engine_settings())
    pumping = start_flask(database_url, simulator, "broadcast", "pump", "--job", str(job.id), "--seconds", "30")
    try:
        deadline = time.monotonic() + 20
        while in_flight(job.id) == 0:
            assert time.monotonic() < deadline and pumping.poll() is None, "no send went in flight"
            time.sleep(0.02)
        assert runner.invoke(args=["broadcast", "cancel", str(job.id)]).exit_code == 0
        refusals = []
        while True:  # the admin's "unsend" right after the cancel, repeated as the refusal says
            result = runner.invoke(args=["broadcast", "unsend", str(job.id)])
            if result.exit_code == 0:
                break
            assert result.exit_code == 1 and "in flight" in result.stderr, result.output
            refusals.append(result.stderr)
            assert time.monotonic() < deadline + 10, "the unsend never became possible"
            time.sleep(0.2)
        assert refusals, "the unsend started while copies were still on their way"
    finally:
        pumping.wait(timeout=60)
    delivered = copies(simulator, users)
    assert delivered  # some copies arrived, the cancel kept the rest from going
    simulator.configure(latency_ms=0)
    unsend = int(result.stdout)
    assert reload(unsend).total_count == len(delivered)
    drain(unsend)
    assert copies(simulator, users) == {}  # not one copy left behind
    assert reload(unsend).sent_count == len(delivered)


def retried_broadcast(simulator) -> tuple[int, int, list[int]]:
    """A broadcast A refused for 3 of 8 users, then its retry B delivered to those 3: return (A, B, users)."""
    simulator.configure(per_chat_limits=False)
    users = create_users(8)
    simulator.state.set_chats("refuse", users[:3])
    source = create_text_job(settings=engine_settings()).id
    drain(source)
    simulator.state.set_chats("restore", users[:3])
    return source, 0, users


def test_unsend_of_a_retried_broadcast_deletes_the_retrys_copies_too(runner, simulator, database_url):
    source, _, users = retried_broadcast(simulator)
    retried = runner.invoke(args=["broadcast", "retry", str(source)])
    assert retried.exit_code == 0, retried.output
    retry_id = int(retried.stdout)
    # While the retry is queued (or running), the broadcast is not unsent or edited: it would miss its copies.
    for args in (["unsend", str(source)], ["edit", str(source), "--text", "new"]):
        refused = runner.invoke(args=["broadcast", *args])
        assert refused.exit_code == 1 and f"job {retry_id}, a retry of job {source}" in refused.stderr, refused.output
    drain(retry_id)
    assert len(copies(simulator, users)) == 8  # 5 from the broadcast, 3 from its retry
    result = runner.invoke(args=["broadcast", "unsend", str(source)])
    assert result.exit_code == 0, result.output
    unsend = int(result.stdout)
    assert reload(unsend).total_count == 8
    pumped = run_flask(database_url, simulator, "broadcast", "pump", "--job", str(unsend), "--seconds", "20")
    assert pumped.returncode == 0, pumped.stderr
    assert copies(simulator, users) == {}
    # Deleted once: the broadcast cannot be unsent, edited or retried again.
    for args in (["unsend", str(source)], ["unsend", str(retry_id)], ["edit", str(source), "--text", "x"]):
        again = runner.invoke(args=["broadcast", *args])
        assert again.exit_code == 1 and "already deleted" in again.stderr, again.output
    assert simulator.stats()["calls"]["deleteMessage"] == 8


def test_edit_of_a_retried_broadcast_edits_the_retrys_copies_too(runner, simulator):
    source, _, users = retried_broadcast(simulator)
    retry_id = int(runner.invoke(args=["broadcast", "retry", str(source)]).stdout)
    drain(retry_id)
    result = runner.invoke(args=["broadcast", "edit", str(source), "--text", "edited"])
    assert result.exit_code == 0, result.output
    drain(int(result.stdout))
    assert copies(simulator, users) == {user: "edited" for user in users}


def test_two_unsends_of_one_job_at_once_make_one_job(simulator, database_url, app):
    simulator.configure(per_chat_limits=False)
    users = create_users(30)
    source = create_text_job(settings=engine_settings()).id
    drain(source)
    before = job_count()
    procs = [start_flask(database_url, simulator, "broadcast", "unsend", str(source)) for _ in range(2)]
    results = [(p.wait(timeout=60), *p.communicate()) for p in procs]
    accepted = [out for code, out, _ in results if code == 0]
    refused = [err for code, _, err in results if code != 0]
    assert len(accepted) == 1 and len(refused) == 1, results
    unsend = int(accepted[0])
    assert f"job {unsend} already unsends this broadcast" in refused[0]
    assert job_count() == before + 1
    drain(unsend)
    assert copies(simulator, users) == {}
    assert simulator.stats()["calls"]["deleteMessage"] == 30  # 30 deletes for 30 copies


def test_unsend_is_accepted_while_the_newest_copy_is_younger_than_48_hours(runner, simulator):
    simulator.configure(per_chat_limits=False)
    users = create_users(4)
    source = create_text_job(settings=engine_settings()).id
    drain(source)
    now = utcnow()
    old, young = I.user_id != users[-1], I.user_id == users[-1]
    db.session.execute(update(I).where(I.job_id == source, old).values(sent_at=now - timedelta(hours=49)))
    db.session.execute(update(I).where(I.job_id == source, young).values(sent_at=now - timedelta(hours=1)))
    db.session.commit()
    result = runner.invoke(args=["broadcast", "unsend", str(source)])
    assert result.exit_code == 0, result.output  # the copies span the 48 h line: the young one can still go
    assert runner.invoke(args=["broadcast", "cancel", result.stdout.strip()]).exit_code == 0  # it deleted nothing
    db.session.execute(update(I).where(I.job_id == source).values(sent_at=now - timedelta(hours=48, minutes=1)))
    db.session.commit()
    refused = runner.invoke(args=["broadcast", "unsend", str(source)])
    assert refused.exit_code == 1 and "older than 48 hours" in refused.stderr, refused.output
