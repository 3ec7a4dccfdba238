"""The pre-send estimate against a real run: an album, with and without its keyboard message, as the pump paces it."""
from __future__ import annotations

import time

import pytest

from app.services.broadcast.jobs.estimate import estimate_seconds
from app.services.telegram_factory import get_client
from tests.broadcast.helpers import assert_consistent, create_users, reload
from tests.broadcast.test_keyboard_album import FAST, KB, album_job, run

RECIPIENTS = 60
# The estimate must land within this share of the measured run (a run also pays for its pump's start, its
# blocks' writes and a loaded machine's late threads, which the estimate leaves out).
TOLERANCE = 0.12


@pytest.mark.parametrize("parts, kb", [
    (3, None),  # 60 x 5 slots at 29/s: 10.3 s
    (3, KB),  # 60 x 7 slots (the keyboard message is a fourth part): 14.5 s, and the last chat's second
    (2, KB),  # 3 messages span 5 slots (0.17 s), but each send holds a thread over its chat's second: 0.2 s + calls
])
def test_the_estimate_matches_a_real_run_of_an_album(app, simulator, parts, kb):
    create_users(RECIPIENTS)
    client = get_client(FAST)
    for _ in range(10):  # the admin's process has called Telegram before its pre-send screen: its typical call
        client.call("getMe", {})
    job, _ = album_job(simulator, kb=kb, parts=parts)
    estimate = estimate_seconds(RECIPIENTS, parts, False, FAST, {}, bool(kb), client.typical_call_seconds)
    started = time.monotonic()
    run(job.id)
    elapsed = time.monotonic() - started
    assert reload(job.id).sent_count == RECIPIENTS and assert_consistent(job.id) == {"sent": RECIPIENTS}
    assert abs(estimate - elapsed) <= TOLERANCE * elapsed, (round(estimate, 2), round(elapsed, 2))
    if kb:
        # Counting the album alone would say a third less: the error this estimate closes.
        assert estimate_seconds(RECIPIENTS, parts, False, FAST, {}) < (1 - TOLERANCE) * elapsed
