"""The engine's promises under trouble, judged by time: bounded pumps, cancel stops waiting sends, leases.

Those judged by counts (orphans, DB errors, clocks, paid) are in test_guarantees_outcomes.py (run in parallel).
"""
from __future__ import annotations

import threading
import time

import pytest

from app.extensions import db
from app.repository.broadcast_ledger import tallies
from app.services.broadcast.jobs import control
from app.services.broadcast.sending.drain import pump
from tests.broadcast.helpers import assert_consistent, create_text_job, create_users, engine_settings
from tests.broadcast.test_guarantees_outcomes import broadcast_chats, with_progress_message


def in_thread(app, fn) -> tuple[threading.Thread, dict]:
    """Run fn() in a thread with its own app context; its result or error lands in the dict."""
    out: dict = {}

    def run():
        with app.app_context():
            try:
                out["result"] = fn()
            except Exception as exc:  # surfaced to the test
                out["error"] = exc
            finally:
                db.session.remove()

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    return worker, out


# --- 2. a 429 on a progress edit never holds the pump past its deadline -------------------------

def test_progress_edits_answered_429_never_stall_the_pump(app, simulator):
    create_users(120)
    settings = engine_settings(broadcast_rate_per_second=28, broadcast_progress_every=1)
    job = create_text_job(settings=settings)
    with_progress_message(job.id, simulator)
    simulator.configure(fail_429_ratio=1.0, retry_after_range=(30, 30), fault_methods=["editMessageText"])
    started = time.monotonic()
    result = pump(job.id, 2, settings=settings)
    elapsed = time.monotonic() - started
    assert elapsed < 3.0, f"a 2 s pump ran {elapsed:.1f} s: it waited out an edit's retry_after"
    assert result.acquired and result.stop == "budget"
    assert simulator.stats()["calls"].get("editMessageText", 0) >= 1, "edits were attempted (and refused)"
    # The 429 holds the whole bot for 30 s (Telegram's retry_after is bot-wide), so the
    # broadcast stops too; what matters is that every send it made is recorded.
    counts = assert_consistent(job.id, simulator)
    assert counts.get("unknown", 0) == 0 and counts["sent"] == result.processed > 0, counts


# --- 3. cancel / pause stop sends that wait out a 429 -------------------------------------------

ONE_AT_A_TIME = engine_settings(broadcast_rate_per_second=28, broadcast_concurrency=1)


def start_one_send_waiting_out_a_429(app, simulator, *, retry_after: int, budget: float):
    """Pump a one-recipient job in a thread until its send has met a 429 of retry_after seconds."""
    create_users(1)
    job = create_text_job(settings=ONE_AT_A_TIME)
    simulator.configure(fail_429_ratio=1.0, retry_after_range=(retry_after, retry_after),
                        fault_methods=["sendMessage"])
    worker, out = in_thread(app, lambda: pump(job.id, budget, settings=ONE_AT_A_TIME))
    deadline = time.monotonic() + 5
    while simulator.stats()["calls"].get("sendMessage", 0) < 1 and time.monotonic() < deadline:
        time.sleep(0.02)
    assert simulator.stats()["calls"].get("sendMessage", 0) == 1, "the send met its 429"
    return job, worker, out


@pytest.mark.parametrize("action", ["cancel", "pause"])
def test_cancel_or_pause_stops_sends_waiting_out_a_429(app, simulator, action):
    # One send meets a 429 (which then holds the whole bot) and waits it out.
    job, worker, out = start_one_send_waiting_out_a_429(app, simulator, retry_after=3, budget=20)
    assert (control.cancel_job if action == "cancel" else control.pause_job)(job.id)
    stopped_at = time.monotonic()
    simulator.configure(fail_429_ratio=0.0)  # a send that tried again now would be delivered
    worker.join(15)
    assert not worker.is_alive() and "error" not in out, out
    assert broadcast_chats(simulator) == [], "a send started after the cancel had committed"
    assert simulator.stats()["calls"].get("sendMessage", 0) == 1
    assert assert_consistent(job.id, simulator) == {"pending": 1}, "they certainly did not go out: not unknown"
    assert time.monotonic() - stopped_at < 5


# --- the lease covers the gaps between renewals, not the whole budget ------------------------------

def test_a_pump_waiting_out_a_long_429_keeps_its_lease(app, simulator, monkeypatch):
    import app.services.broadcast.sending.lease as lease_module

    monkeypatch.setattr(lease_module, "LEASE_TTL_SECONDS", 3)
    monkeypatch.setattr(lease_module, "LEASE_HEARTBEAT_SECONDS", 0.75)
    # One send, told to wait 5 s: longer than the 3 s TTL.
    job, worker, out = start_one_send_waiting_out_a_429(app, simulator, retry_after=5, budget=15)
    simulator.configure(fail_429_ratio=0.0)
    time.sleep(3.5)  # past the 3 s TTL: only renewals keep the lease ours
    rival = pump(job.id, 1, settings=ONE_AT_A_TIME)
    assert rival.stop == "lease_miss", "the waiting pump's lease expired and another pump took its items"
    assert tallies(job.id) == {"sending": 1}
    worker.join(20)
    assert out["result"].stop == "done", out
    assert assert_consistent(job.id, simulator) == {"sent": 1}, "nothing turned 'unknown'"
