"""Revoked token and broken content in the middle of a job: pause with the reason, resume completes.

- 401 after part of the job is sent: the job pauses at once (only the sends
  already in flight meet the 401), nothing is failed; restoring the token
  and resuming completes it, nobody twice.
- A copy job whose source message is deleted mid-job: the breaker pauses it
  after broadcast_max_consecutive_errors failures and puts the failed items
  back to pending; once copying works again, resume completes it with
  failed_count == 0.
"""
from __future__ import annotations

import time

import pytest

from app.models.broadcast import COMPLETED, PAUSED, PENDING, SENT
from app.services.broadcast.jobs import control, creation
from app.services.broadcast.sending.drain import pump
from app.texts import t
from tests.broadcast.helpers import create_text_job, create_users, reload
from tests.conftest import ADMIN_ID
from tests.reliability.helpers import after_deliveries, assert_final, record, use_settings

USERS = 150
PART = 30  # deliveries before the trouble starts


def drain(job_id: int, settings: dict, max_pumps: int = 20) -> None:
    """Pump until the job leaves 'running'."""
    for _ in range(max_pumps):
        pump(job_id, 20, settings=settings)
        if reload(job_id).status != "running":
            return


@pytest.mark.slow
def test_a_revoked_token_pauses_at_once_and_resume_completes(app, simulator, figures):
    started = time.monotonic()
    create_users(USERS)
    settings = use_settings(broadcast_rate_per_second=28)
    window = settings["broadcast_concurrency"]
    simulator.configure(latency_ms=10)
    job_id = create_text_job(settings=settings).id
    trigger = after_deliveries(simulator, PART, simulator.revoke_token)
    result = pump(job_id, 30, settings=settings)
    trigger.join(5)

    job = reload(job_id)
    counts = assert_final(job_id, simulator)
    refused = simulator.stats()["4xx"].get("Unauthorized", 0)
    assert result.stop == "unauthorized" and job.status == PAUSED, (result.stop, job.status)
    assert job.pause_reason == t("reason_unauthorized", job.progress_lang or "fa")
    assert PART <= counts[SENT] < USERS and set(counts) == {SENT, PENDING}, counts
    # Paused at once: only sends already in flight met the 401 (plus the admin's pause notice).
    assert refused <= window + 1, refused
    sent_before = counts[SENT]

    simulator.restore_token()
    assert control.resume_job(job_id) == "running"
    drain(job_id, settings)
    job = reload(job_id)
    counts = assert_final(job_id, simulator)
    assert job.status == COMPLETED and counts == {SENT: USERS}, (job.status, counts)
    record(figures, "revoked_token", users=USERS, sent_before_pause=sent_before, refused_401=refused,
           window=window, failed=job.failed_count, unknown=job.unknown_count, sent=counts[SENT],
           total_seconds=round(time.monotonic() - started, 1))


@pytest.mark.slow
def test_a_deleted_source_message_trips_the_breaker_and_resume_completes(app, simulator, figures):
    started = time.monotonic()
    create_users(USERS)
    settings = use_settings(broadcast_rate_per_second=28)
    window, max_errors = settings["broadcast_concurrency"], settings["broadcast_max_consecutive_errors"]
    simulator.configure(latency_ms=10)
    message_id = simulator.add_message(ADMIN_ID, text="خبر <b>تازه</b> 📦")
    job_id = creation.create_job(audience="all", created_by=ADMIN_ID, settings=settings,
                                 content={"type": "copy", "from_chat_id": ADMIN_ID, "message_id": message_id}).id
    trigger = after_deliveries(simulator, PART, lambda: simulator.delete_message_source(ADMIN_ID, message_id))
    result = pump(job_id, 30, settings=settings)
    trigger.join(5)

    job = reload(job_id)
    counts = assert_final(job_id, simulator)
    refused = simulator.stats()["4xx"].get("Bad Request: message to copy not found", 0)
    assert result.stop == "breaker" and job.status == PAUSED, (result.stop, job.status)
    assert "message to copy not found" in (job.pause_reason or "")
    # The streak trips at max_errors; sends already in flight may meet the same fault.
    assert max_errors <= refused <= max_errors + window - 1, refused
    assert job.failed_count == 0 and set(counts) == {SENT, PENDING}, counts
    alerts = [d for d in simulator.deliveries("sendMessage", ADMIN_ID)
              if f"w.resume:{job_id}" in str(d["reply_markup"])]
    assert len(alerts) == 1, "the admins get one pause notice with a resume button"
    sent_before = counts[SENT]

    simulator.configure(strict_copy=False)  # the operator fixed the content
    assert control.resume_job(job_id) == "running"
    drain(job_id, settings)
    job = reload(job_id)
    counts = assert_final(job_id, simulator)
    assert job.status == COMPLETED and job.failed_count == 0 and counts == {SENT: USERS}, (job.status, counts)
    record(figures, "deleted_source", users=USERS, max_consecutive_errors=max_errors, window=window,
           sent_before_pause=sent_before, refused_copies=refused, failed_after_resume=job.failed_count,
           sent=counts[SENT], total_seconds=round(time.monotonic() - started, 1))
