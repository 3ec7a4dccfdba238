"""Copies whose answer came late or never: an unsend waits while they may still land, and reaches those that answered.

A pump that lost its lease (a cancel and its lease expiring, with cron
counting its in-flight item unknown) still writes a copy that answered in
time, with its message id, so the unsend deletes it; one that answers too
late stays unknown, and the unsend, held until it could no longer land,
says it cannot reach it. A pump that stalled past its lease on its own clock
starts no request at all.
"""
from __future__ import annotations

import threading
import time

import pytest

from app.extensions import db
from app.models.broadcast import SENDING, UNKNOWN
from app.services.broadcast.actions import unsend_edit
from app.services.broadcast.jobs import control, purge
from app.services.broadcast.sending import landing
from app.services.broadcast.sending import lease as lease_module
from app.services.broadcast.sending.drain import pump
from tests.broadcast.helpers import (
    BASE_ID,
    assert_consistent,
    create_text_job,
    create_users,
    engine_settings,
    expire_lease,
    reload,
)
from tests.reliability.helpers import item_ids


def holders(simulator) -> set[int]:
    """Return the recipients whose chat still holds a bot message."""
    return {m["chat_id"] for m in simulator.bot_messages() if m["chat_id"] >= BASE_ID}


def pump_in_thread(app, job_id: int, settings: dict, seconds: float = 15) -> tuple[threading.Thread, list]:
    """Run one pump call in a thread of its own (its own app context); its result lands in the list."""
    results: list = []

    def work() -> None:
        with app.app_context():
            results.append(pump(job_id, seconds, settings=settings))

    thread = threading.Thread(target=work, name="pump-under-test", daemon=True)
    thread.start()
    return thread, results


def on_the_wire(job_id: int, steady: float = 0.3) -> bool:
    """Wait until an item has stayed 'sending' for ``steady`` s: its request is out (a block's item whose
    thread woke late for its slot goes back to pending instead, and is claimed again)."""
    since = None
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        if item_ids(job_id, SENDING):
            since = since or time.monotonic()
            if time.monotonic() - since >= steady:
                return True
        else:
            since = None
        db.session.commit()
        time.sleep(0.02)
    return False


def orphan_while_on_the_wire(job_id: int) -> None:
    """Cancel the job, age its lease and let cron count the item in flight unknown, while its request is out."""
    assert on_the_wire(job_id), "the pump put nothing on the wire"
    assert control.cancel_job(job_id)
    expire_lease(job_id)
    assert purge.expire_stopped_orphans() == 1
    assert item_ids(job_id, UNKNOWN)


def one_copy_orphaned_on_the_wire(app, simulator, latency_ms: int):
    """Send one copy taking latency_ms from a pump thread and orphan it on the wire; return what the tests use."""
    users = create_users(1)
    settings = engine_settings(broadcast_concurrency=1)
    simulator.configure(latency_ms=latency_ms)
    source = create_text_job(settings=settings).id
    thread, results = pump_in_thread(app, source, settings)
    orphan_while_on_the_wire(source)
    return users, source, settings, thread, results


def refusal(job_id: int) -> unsend_edit.NotActionable:
    """Return the refusal of an unsend of job_id now (fails if it is accepted)."""
    with pytest.raises(unsend_edit.NotActionable) as refused:
        unsend_edit.unsend_job(job_id, settings=engine_settings())
    return refused.value


def run_to_completion(job_id: int, settings: dict) -> None:
    """Pump an action job until it completes."""
    for _ in range(5):
        if pump(job_id, 30, settings=settings).stop == "done":
            return
    raise AssertionError(f"job {job_id} did not complete: {reload(job_id).status}")


def test_a_copy_that_answers_after_its_lease_was_lost_is_recorded_sent_and_the_unsend_deletes_it(app, simulator):
    users, source, settings, thread, results = one_copy_orphaned_on_the_wire(app, simulator, latency_ms=2000)
    # Its copy is still on its way: the unsend waits for it instead of reading a ledger without it.
    refused = refusal(source)
    assert refused.key == "act_landing" and refused.values["n"] == 1 and 50 <= refused.values["s"] <= 60
    thread.join(30)
    assert results and results[0].stop == "lease_lost"
    assert holders(simulator) == set(users)
    job = reload(source)
    assert (job.sent_count, job.unknown_count) == (1, 0)  # the late answer moved it from unknown to sent
    assert assert_consistent(source, simulator) == {"sent": 1}
    simulator.configure(latency_ms=0)
    action = unsend_edit.unsend_job(source, settings=settings)
    run_to_completion(action.id, settings)
    assert reload(action.id).sent_count == 1
    assert not holders(simulator), "the copy that answered late survived the unsend"


def test_an_answer_later_than_the_landing_window_stays_unknown_and_the_unsend_names_it(
        app, simulator, monkeypatch, runner):
    # A 6 s window takes late answers for 1 s after the item was settled; this one answers 2.5 s after.
    monkeypatch.setattr(landing, "LANDING_WINDOW", landing.LATE_ANSWER_MARGIN + landing.timedelta(seconds=1))
    users, source, _, thread, _ = one_copy_orphaned_on_the_wire(app, simulator, latency_ms=2500)
    assert refusal(source).key == "act_landing"
    thread.join(30)
    assert holders(simulator) == set(users)
    job = reload(source)
    assert (job.sent_count, job.unknown_count) == (0, 1), "a late answer was written after the window"
    time.sleep(landing.LANDING_WINDOW.total_seconds())
    # Past the window the unsend is taken, and says it cannot reach the unknown copy.
    result = runner.invoke(args=["broadcast", "unsend", str(source)])
    assert result.exit_code != 0
    assert "no delivered copy with a known message id" in result.output
    assert unsend_edit.unreachable(source) == 1


def test_copies_whose_answer_was_given_up_on_hold_an_unsend_for_the_landing_window(app, simulator):
    create_users(3)
    # Each copy waits 1 s for an answer that comes after 1.4 s: unknown, and landing after it was settled.
    settings = engine_settings(telegram_read_timeout=1, telegram_send_read_timeout=1, broadcast_concurrency=3)
    simulator.configure(latency_ms=1400)
    source = create_text_job(settings=settings).id
    pump(source, 10, settings=settings)
    assert reload(source).unknown_count == 3
    refused = refusal(source)
    assert refused.key == "act_landing" and refused.values["n"] == 3 and 55 <= refused.values["s"] <= 60


def test_past_the_window_the_unsend_deletes_what_it_can_and_names_the_copies_it_cannot_reach(
        app, simulator, monkeypatch, runner):
    users = create_users(3)
    simulator.lose(users[0])  # delivered, then answered 502: the bot never learns its message id
    settings = engine_settings()
    source = create_text_job(settings=settings).id
    while pump(source, 10, settings=settings).stop != "done":
        pass
    assert (reload(source).sent_count, reload(source).unknown_count) == (2, 1)
    assert refusal(source).key == "act_landing"
    monkeypatch.setattr(landing, "LANDING_WINDOW", landing.timedelta(seconds=2))
    time.sleep(2.5)
    result = runner.invoke(args=["broadcast", "unsend", str(source)])
    assert result.exit_code == 0, result.output
    assert "note: 1 copies of job" in result.output and "no message id" in result.output
    action = int(result.output.strip().splitlines()[-1])
    run_to_completion(action, settings)
    assert reload(action).sent_count == 2
    assert holders(simulator) == {users[0]}  # the unknown copy did arrive, and nothing can reach it


def test_a_send_answered_within_the_send_timeout_is_recorded_with_its_message_id(app, simulator):
    create_users(2)
    # A reply waits 1 s; a broadcast copy waits its own 5 s, so a 1.4 s answer is not lost.
    settings = engine_settings(telegram_read_timeout=1, telegram_send_read_timeout=5, broadcast_concurrency=2)
    simulator.configure(latency_ms=1400)
    source = create_text_job(settings=settings).id
    while pump(source, 10, settings=settings).stop != "done":
        pass
    job = reload(source)
    assert (job.sent_count, job.unknown_count) == (2, 0)


def test_a_pump_whose_lease_may_have_run_out_on_its_own_clock_starts_no_request(app, simulator, monkeypatch):
    create_users(3)
    # A renewal is never fresh enough: as if this process had stalled past its lease after every one.
    monkeypatch.setattr(lease_module, "FRESH_SHARE", 0)
    settings = engine_settings()
    source = create_text_job(settings=settings).id
    pump(source, 2, settings=settings)
    assert [d for d in simulator.deliveries("sendMessage") if d["chat_id"] >= BASE_ID] == []
    counts = assert_consistent(source)
    assert counts == {"pending": 3}, counts
