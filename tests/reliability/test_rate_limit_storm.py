"""429 storms: the simulator answers 30 % of sends with 429 and retry_after 1-3 s.

Pumps (in-process, short budgets so some 429s outlast the budget and go
through not_before) run until the job is done. Nobody may be failed, skipped
or left uncertain by a rate limit: every recipient gets exactly one copy.
"""
from __future__ import annotations

import time

import pytest

from app.models.broadcast import COMPLETED, SENT
from app.services.broadcast.sending.drain import pump
from tests.broadcast.helpers import create_text_job, create_users, reload
from tests.reliability.helpers import assert_final, item_errors, recipients, record, use_settings

USERS = 20  # each 429 stalls every send for its retry_after (bot-wide, as Telegram's): ~0.9 s per user
PUMP_SECONDS = 3  # shorter than some waits: exercises both the in-pump wait and not_before
MAX_PUMPS = 200


@pytest.mark.slow
@pytest.mark.timeout(600)  # ~30 s on 2 idle cores
def test_a_429_storm_completes_with_nobody_failed(app, simulator, figures):
    started = time.monotonic()
    user_ids = create_users(USERS)
    settings = use_settings(broadcast_rate_per_second=28)
    simulator.configure(fail_429_ratio=0.3, retry_after_range=(1, 3), latency_ms=5, seed=4290)
    job_id = create_text_job(settings=settings).id
    stops: dict[str, int] = {}
    for _ in range(MAX_PUMPS):
        result = pump(job_id, PUMP_SECONDS, settings=settings)
        stops[result.stop] = stops.get(result.stop, 0) + 1
        if reload(job_id).status != "running":
            break
        if result.stop == "not_before":
            time.sleep(0.2)  # cron would come back later; the next pump waits out the rest
    job = reload(job_id)
    counts = assert_final(job_id, simulator)
    stats = simulator.stats()
    assert job.status == COMPLETED, (job.status, counts, stops)
    assert job.failed_count == 0 and job.skipped_count == 0 and job.unknown_count == 0, counts
    assert counts == {SENT: USERS}
    assert not [e for e in item_errors(job_id) if "429" in e or "retry" in e.lower() or "Too Many" in e]
    assert sorted(recipients(simulator)) == user_ids
    assert stats["429_injected"] > 0, "the storm did not happen"
    record(figures, "rate_limit_storm", users=USERS, fail_429_ratio=0.3, retry_after="1-3 s",
           injected_429=stats["429_injected"], other_429=stats["429_total"] - stats["429_injected"],
           pumps=sum(stops.values()), stops=stops, sent=counts[SENT], failed=0,
           total_seconds=round(time.monotonic() - started, 1))
