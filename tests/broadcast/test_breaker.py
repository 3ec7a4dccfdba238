"""The circuit breaker: exactly N non-recipient errors in a row pause the job; a success or skip resets the streak.

Each recipient's answer is scripted by a loopback Bot API and sends go one at a
time, so the order of outcomes is exact and the threshold is tested at N-1 and N.
"""
from __future__ import annotations

import pytest

from app.repository.broadcast_ledger import tallies
from app.services.broadcast.jobs import control
from app.services.broadcast.sending.drain import pump
from app.telegram.client import TelegramClient
from tests.broadcast.helpers import assert_consistent, create_text_job, create_users, engine_settings, reload
from tests.broadcast.scripted_api import BLOCKED, SYSTEMIC, ScriptedApi
from tests.conftest import TOKEN

THRESHOLD = 3


def one_at_a_time() -> dict:
    """Settings with one send in flight, so outcomes are judged in recipient order."""
    return engine_settings(broadcast_concurrency=1, broadcast_max_consecutive_errors=THRESHOLD)


def run(script_for, n: int = 10) -> tuple[int, list[int], object, ScriptedApi]:
    """Pump a job to n users whose answers come from script_for(ids); return (job id, ids, result, api)."""
    ids = create_users(n)
    settings = one_at_a_time()
    job = create_text_job(settings=settings)
    with ScriptedApi(script_for(ids)) as api:
        client = TelegramClient(TOKEN, api.base_url, max_retries=0)
        try:
            result = pump(job.id, 20, settings=settings, client=client)
        finally:
            client.close()
    assert api.sends_to(ids)[:3] == ids[:3], "sends go out in recipient order"
    return job.id, ids, result, api


def test_exactly_threshold_errors_in_a_row_trip_the_breaker(app):
    job_id, ids, result, api = run(lambda ids: {i: SYSTEMIC for i in ids[2:2 + THRESHOLD]})
    assert result.stop == "breaker"
    job = reload(job_id)
    assert job.status == "paused" and "message to copy not found" in job.pause_reason
    # Sends stop at the Nth error: the rest of the audience is never tried.
    assert api.sends_to(ids) == ids[:2 + THRESHOLD]
    # The streak's items go back to pending, so resuming after the fix reaches them.
    assert tallies(job_id) == {"sent": 2, "pending": len(ids) - 2}
    assert (job.sent_count, job.failed_count) == (2, 0)
    assert_consistent(job_id)


def test_one_error_short_of_the_threshold_does_not_trip(app):
    job_id, ids, result, api = run(lambda ids: {i: SYSTEMIC for i in ids[2:2 + THRESHOLD - 1]})
    assert result.stop == "done"
    assert api.sends_to(ids) == ids
    assert tallies(job_id) == {"sent": len(ids) - (THRESHOLD - 1), "failed": THRESHOLD - 1}
    assert reload(job_id).status == "completed"
    assert_consistent(job_id)


@pytest.mark.parametrize("reset_by", [None, BLOCKED], ids=["a_success", "a_skip"])
def test_a_success_or_a_skip_resets_the_streak(app, reset_by):
    # E E r E E r E E (r = delivered or blocked): 6 errors, never THRESHOLD in a row.
    def script(ids):
        plan = {i: SYSTEMIC for k, i in enumerate(ids[:8]) if k % 3 != 2}
        if reset_by:
            plan.update({i: reset_by for k, i in enumerate(ids[:8]) if k % 3 == 2})
        return plan

    job_id, ids, result, api = run(script)
    assert result.stop == "done", reload(job_id).pause_reason
    assert api.sends_to(ids) == ids, "every recipient was tried once"
    counts = tallies(job_id)
    assert counts["failed"] == 6 and counts.get("pending", 0) == 0
    assert counts["sent"] + counts.get("skipped", 0) == len(ids) - 6
    assert reload(job_id).status == "completed"
    assert_consistent(job_id)


def test_resume_after_the_breaker_sends_to_the_streak_once(app):
    job_id, ids, result, _ = run(lambda ids: {i: SYSTEMIC for i in ids[:THRESHOLD]})
    assert result.stop == "breaker"
    assert control.resume_job(job_id) == "running"
    with ScriptedApi() as api:  # the fault is fixed
        client = TelegramClient(TOKEN, api.base_url, max_retries=0)
        try:
            assert pump(job_id, 20, settings=one_at_a_time(), client=client).stop == "done"
        finally:
            client.close()
    assert sorted(api.sends_to(ids)) == ids, "each recipient, the streak included, got exactly one delivery"
    assert tallies(job_id) == {"sent": len(ids)}
    assert_consistent(job_id)
