"""One chat's burst through gunicorn must not slow anyone else's replies.

A non-admin sends 60 texts over 12 connections (20/s for 3 s) to
`gunicorn -w 4` (sync workers, as few as Passenger gives) while 40 other
users send /start. The
simulator enforces Telegram's 1 message/s per private chat. A reply whose
chat's slot is more than 0.5 s away is not waited for in the request
(docs/BROADCAST.md, "Replies to a busy chat"): the flood's requests return
at once instead of each holding a worker for up to the 8 s reply budget, so
the others' /starts are answered as fast as without the flood.
"""
from __future__ import annotations

import json
import math
import subprocess
import sys
import time

import pytest

from tests.reliability.budget_traffic import NEW_USER_BASE, percentile, welcomes
from tests.reliability.helpers import ROOT, assert_logs_clean, process_env, record, start_gunicorn, stop_process

WORKERS = 4
LATENCY_MS = 30
FLOOD_USER = NEW_USER_BASE - 1
FLOOD_TEXTS, FLOOD_CONNECTIONS = 60, 12
OTHERS, OTHER_CONNECTIONS = 40, 4
# The other users' answers while one chat floods, and the flood's own: p95 0.17 s and p50 0.015 s on an
# idle machine (docs/RELIABILITY.md, 5b; the bound was 0.5 s), 0.82 s and 0.09 s beside a load of
# 5-6 on 2 cores. A request that waited for the flood's chat slots took seconds (before the rule: the
# others' p95 8.9 s, the flood's p50 9.0 s): the bound holds under load and still tells them apart.
ANSWER_SECONDS = 2.0


def run_flood(base: str) -> dict:
    """Run the flood and the others' /starts from a child process; return its timings."""
    # A fresh interpreter, not the tests' fork server: its second of start-up lets every gunicorn
    # worker finish booting before the flood (with the flood forked at once, two CI runs in three met
    # a per-chat 429 while workers were still starting; see docs/PERFORMANCE.md, the suite's time).
    done = subprocess.run([sys.executable, "-m", "tests.reliability.flood_child", base, str(FLOOD_USER),
                           str(FLOOD_TEXTS), str(FLOOD_CONNECTIONS), str(NEW_USER_BASE), str(OTHERS),
                           str(OTHER_CONNECTIONS)], cwd=ROOT, capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout)


def latencies(timings: list) -> list[float]:
    """Return sorted answer times in seconds."""
    return sorted(end - start for start, end, _ in timings)


@pytest.mark.slow
@pytest.mark.timeout(300)  # ~15 s on 2 idle cores
def test_one_chats_flood_does_not_slow_other_users(app, simulator, database_url, tmp_path, figures):
    started = time.monotonic()
    simulator.configure(global_rate=30, latency_ms=LATENCY_MS)
    server, base = start_gunicorn(process_env(database_url, simulator), tmp_path / "gunicorn.log", workers=WORKERS)
    try:
        report = run_flood(base)
    finally:
        stop_process(server)

    assert report["errors"] == [], report["errors"][:3]
    flood, others = report["flood"], report["others"]
    assert [s for _, _, s in flood] == [200] * FLOOD_TEXTS
    assert [s for _, _, s in others] == [200] * OTHERS
    stats = simulator.stats()
    assert stats["429_total"] == 0, stats
    new_users = list(range(NEW_USER_BASE, NEW_USER_BASE + OTHERS))
    got = welcomes(simulator, new_users)
    assert {uid for uid in new_users if got[uid] != 1} == set(), "other users not welcomed exactly once"
    flood_end = max(end for _, end, _ in flood)
    flood_span = flood_end - min(start for start, _, _ in flood)
    assert sum(start < flood_end for start, _, _ in others) >= OTHERS // 2, "the others did not meet the flood"
    # The flood gets at most one reply per second it lasts (its chat's pace), and at least one.
    replies = len(simulator.deliveries("sendMessage", FLOOD_USER))
    assert 1 <= replies <= math.floor(flood_span) + 1, (replies, flood_span)
    others_p95 = percentile(latencies(others), 95)
    record(figures, "one_chat_burst", gunicorn_workers=WORKERS, latency_ms=LATENCY_MS, flood_texts=FLOOD_TEXTS,
           flood_connections=FLOOD_CONNECTIONS, flood_replies=replies, flood_span_s=round(flood_span, 2),
           flood_p50=percentile(latencies(flood), 50), flood_p95=percentile(latencies(flood), 95),
           flood_max=percentile(latencies(flood), 100), others=OTHERS,
           others_p50=percentile(latencies(others), 50), others_p95=others_p95,
           **{k: stats[k] for k in ("429_total", "429_per_chat", "calls_during_retry_after")},
           total_seconds=round(time.monotonic() - started, 1))
    assert others_p95 <= ANSWER_SECONDS, (others_p95, latencies(others)[-5:])
    assert percentile(latencies(flood), 50) <= ANSWER_SECONDS, latencies(flood)[::10]
    assert assert_logs_clean(tmp_path) == 1
