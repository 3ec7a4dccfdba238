"""The bot-wide Telegram budget across real OS processes: one cap, one hold, per-chat spacing."""
from __future__ import annotations

import bisect
import json
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from tests import forkserver

ROOT = Path(__file__).resolve().parents[2]


# Once every child is ready, they all start this long after the go is written (each polls for it every 1 ms).
GO_AHEAD = 0.2


def run_children(jobs: list[tuple[str, dict]], timeout: float = 60) -> list[dict]:
    """Start one child process per (mode, args), start them together once all are ready, return their reports.

    Each child sets up (engine, clock anchored to the database) and says it is ready; then the go gives all of
    them one wall-clock start. A fixed start 2-2.5 s ahead did the same, waiting that long every time.
    """
    barrier = Path(tempfile.mkdtemp(prefix="upk-budget-"))
    procs = [forkserver.start(["budget_child", mode, json.dumps({**args, "barrier": str(barrier)})],
                              module="tests.telegram.budget_child", cwd=ROOT, env=dict(os.environ),
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE)
             for mode, args in jobs]
    deadline = time.monotonic() + timeout
    try:
        while len(list(barrier.glob("ready.*"))) < len(procs):
            exited = [proc for proc in procs if proc.poll() is not None]
            assert not exited, exited[0].communicate()[1][-3000:]
            assert time.monotonic() < deadline, "the children did not get ready in time"
            time.sleep(0.005)
    except BaseException:
        for proc in procs:
            proc.kill()
        raise
    barrier.joinpath("go.new").write_text(repr(time.time() + GO_AHEAD))
    barrier.joinpath("go.new").rename(barrier / "go")
    reports = []
    for proc in procs:
        out, err = proc.communicate(timeout=timeout)
        assert proc.returncode == 0, err[-3000:]
        reports.append(json.loads(out.strip().splitlines()[-1]))
    shutil.rmtree(barrier, ignore_errors=True)
    return reports


def busiest_second(times: list[float]) -> int:
    """Return the most events in any 1 s window [t, t + 1)."""
    times = sorted(times)
    return max((bisect.bisect_left(times, t + 1.0) - i for i, t in enumerate(times)), default=0)


def test_two_processes_with_threads_share_one_cap(budget):
    cap, seconds = 20, 4.0
    args = {"rate": cap, "threads": 3, "seconds": seconds}
    reports = run_children([("rate", args), ("rate", args)])
    slots = sorted(s for r in reports for s, _ in r["uses"])
    used = [u for r in reports for _, u in r["uses"]]
    assert all(r["uses"] for r in reports), "both processes got slots"
    # No slot handed out twice: every two slots of either process are an interval apart
    # (less the two processes' clock-anchor error, well under a millisecond on one host).
    gaps = [b - a for a, b in zip(slots, slots[1:], strict=False)]
    assert min(gaps) >= 1 / cap - 0.003, min(gaps)
    assert busiest_second(slots) <= cap + 1
    assert busiest_second(used) <= cap + 1, f"{busiest_second(used)} calls in one second"
    assert len(used) / seconds >= 0.95 * cap, f"achieved {len(used) / seconds:.2f}/s of {cap}"


def test_concurrent_reservations_from_two_processes_tile_the_timeline_exactly(budget):
    interval_us = 100_000  # far ahead of "now", so every booking starts where the previous one ended
    args = {"threads": 4, "per_thread": 60, "interval_us": interval_us}
    reports = run_children([("raw", args), ("raw", args)])
    booked = sorted(b for r in reports for b in r["booked"])
    assert len(booked) == 2 * 4 * 60
    for (start, n), (next_start, _) in zip(booked, booked[1:], strict=False):
        assert next_start == start + n * interval_us, "slots overlap or leave a hole"


def test_a_hold_set_by_one_process_stops_the_others(budget):
    retry_after, recheck, enough = 1.5, 0.1, 5
    # 12 threads at 20/s keep bookings up to 0.6 s ahead: the ones in flight when the hold is
    # written must be re-checked, and a new booking every 50 ms must not pass for a fresh read.
    # Each process runs until it used `enough` slots after the hold (at most 30 s), not for a set time.
    acquirer = {"rate": 20, "threads": 12, "seconds": 30.0, "recheck": recheck, "after": enough}
    # One thread booking 10 paid slots (1 s) per statement: only the periodic re-read can stop it.
    batch = {"lane": "paid", "rate": 10, "batch": 10, "seconds": 30.0, "recheck": recheck, "after": enough}
    # The hold is written once both lanes carry bookings, so it falls on running traffic.
    setter = {"rate": 10, "delay": 0.5, "seconds": 20.0, "retry_after": retry_after, "busy_lanes": ["free", "paid"]}
    threads, batched, hold = run_children([("hold_acquirer", acquirer), ("hold_batch", batch), ("hold_setter", setter)])
    assert hold["busy"] == {"free": True, "paid": True}, "the hold was written before the others booked"
    written, done = hold["before"], hold["after"]
    hold_ends = written + retry_after - 0.01  # the hold counts from the database's "now" while writing
    # Judged on slot times: a slot is used only after its own time, so a late-running thread
    # only makes its check later (and surer to see the hold), never earlier.
    for name, calls in (("threads", threads["calls"]), ("batch", batched["calls"])):
        booked_after = [c for c in calls if c[0] > done and c[1] < hold_ends]
        assert booked_after == [], f"{name}: a slot booked after the hold was recorded lies inside it"
        # Slots booked before the hold are refused once the hold is `recheck` (plus a read) old.
        inside = [c for c in calls if done + recheck + 0.05 < c[1] < hold_ends]
        assert inside == [], f"{name}: {len(inside)} calls inside another process's retry_after"
        assert len([c for c in calls if c[1] >= hold_ends]) >= enough, f"{name} did not resume after the hold"


def test_per_chat_spacing_holds_across_two_processes(budget):
    private, group = 4242, -100777
    args = {"chats": [private, group], "seconds": 6.3}
    reports = run_children([("chat", args), ("chat", args)])
    for chat, interval, least in ((private, 1.0, 6), (group, 3.0, 3)):
        times = sorted(t for r in reports for t in r["uses"][str(chat)])
        assert len(times) >= least, (chat, times)
        gaps = [b - a for a, b in zip(times, times[1:], strict=False)]
        assert min(gaps) >= interval - 0.03, (chat, gaps)
