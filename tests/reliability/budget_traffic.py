"""Traffic for the bot-wide budget tests: /start bursts over real HTTP, pump loops, and call arrival times."""
from __future__ import annotations

import json
import math
import os
import subprocess
import threading
import time
from collections import Counter

import requests

from app.simulator.api import PRODUCING
from tests import forkserver
from tests.conftest import PUMP_TOKEN
from tests.reliability.helpers import BIN, BOT_NICENESS, ROOT

# New users' ids: below the broadcast recipients (BASE_ID and up), so the two never mix.
NEW_USER_BASE = 4_000_000_000


class StartBurst:
    """One /start per new user POSTed to the webhook by a child process over ``threads`` connections."""

    def __init__(self, base: str, user_ids: list[int], threads: int = 16):
        assert user_ids == list(range(user_ids[0], user_ids[0] + len(user_ids))), "a consecutive id range"
        self.base, self.user_ids, self.threads = base, user_ids, threads
        self.timings: list[tuple[float, float, int]] = []  # (wall start, wall end, HTTP status)
        self.errors: list = []
        self.done = threading.Event()

    def run(self) -> None:
        """Run the child and collect its timings (blocks until every /start is answered)."""
        try:
            done = forkserver.run(["start_burst_child", self.base, str(self.user_ids[0]), str(len(self.user_ids)),
                                   str(self.threads)], module="tests.reliability.start_burst_child", cwd=ROOT,
                                  env=dict(os.environ), timeout=300)
            if done.returncode != 0:
                self.errors.append(done.stderr[-2000:])
                return
            report = json.loads(done.stdout)
            self.timings = [tuple(t) for t in report["timings"]]
            self.errors += report["errors"]
        except BaseException as exc:  # noqa: BLE001 - reported by the test
            self.errors.append(exc)
        finally:
            self.done.set()

    def statuses(self) -> Counter:
        """Return how many answers had each HTTP status."""
        return Counter(status for _, _, status in self.timings)

    def latencies(self, ended_by: float | None = None) -> list[float]:
        """Return answer times in seconds, only of requests answered by wall time ``ended_by`` if given."""
        return sorted(end - start for start, end, _ in self.timings if ended_by is None or end <= ended_by)


    def rate(self) -> float | None:
        """Return the answered /starts per second over the whole burst."""
        if not self.timings:
            return None
        span = max(end for _, end, _ in self.timings) - min(start for start, _, _ in self.timings)
        return round(len(self.timings) / span, 1) if span > 0 else None


def percentile(values: list[float], q: float) -> float | None:
    """Return the q-th percentile (nearest rank) of sorted values, rounded to ms; None if empty."""
    if not values:
        return None
    return round(values[max(0, math.ceil(q / 100 * len(values)) - 1)], 3)


def welcomes(simulator, user_ids: list[int]) -> Counter:
    """Count the sendMessage deliveries to each of user_ids (a welcome each)."""
    wanted = set(user_ids)
    return Counter(d["chat_id"] for d in simulator.deliveries(method="sendMessage") if d["chat_id"] in wanted)


def last_delivery_at(simulator, chat_from: int) -> float:
    """Return the wall time of the last delivery to a chat id >= chat_from (the broadcast's end)."""
    return max((d["t"] for d in simulator.deliveries() if d["chat_id"] >= chat_from), default=0.0)


class CronCaller:
    """Call /internal/pump with the bearer token again and again until the job is over or time runs out."""

    def __init__(self, base: str, seconds: int, deadline_s: float):
        self.base, self.seconds = base, seconds
        self.deadline = time.monotonic() + deadline_s
        self.statuses: Counter[int] = Counter()
        self.stops: Counter[str] = Counter()
        self.errors: list[BaseException] = []
        self.finished = threading.Event()

    def run(self) -> None:
        try:
            session = requests.Session()
            while not self.finished.is_set() and time.monotonic() < self.deadline:
                response = session.post(f"{self.base}/internal/pump", params={"seconds": str(self.seconds)},
                                        headers={"Authorization": f"Bearer {PUMP_TOKEN}"}, timeout=self.seconds + 60)
                self.statuses[response.status_code] += 1
                if response.status_code == 200 and note_report(response.json(), self.stops):
                    self.finished.set()
                else:
                    time.sleep(0.1)
        except BaseException as exc:  # noqa: BLE001 - reported by the test
            self.errors.append(exc)
        finally:
            self.finished.set()

    def start(self) -> threading.Thread:
        thread = threading.Thread(target=self.run, name="cron", daemon=True)
        thread.start()
        return thread


class CliPumper:
    """Run `flask broadcast pump --seconds N` as a child process again and again until the job is over."""

    def __init__(self, env: dict, seconds: int, log_path, deadline_s: float, finished: threading.Event):
        self.env, self.seconds, self.log_path = env, seconds, log_path
        self.deadline = time.monotonic() + deadline_s
        self.finished = finished
        self.exit_codes: Counter[int] = Counter()
        self.stops: Counter[str] = Counter()
        self.errors: list[BaseException] = []
        self.proc: subprocess.Popen | None = None

    def run(self) -> None:
        try:
            while not self.finished.is_set() and time.monotonic() < self.deadline:
                with open(self.log_path, "ab") as log:
                    self.proc = forkserver.start([str(BIN / "flask"), "--app", "wsgi", "broadcast", "pump",
                                                  "--seconds", str(self.seconds)], cwd=ROOT, env=self.env,
                                                 stdout=subprocess.PIPE, stderr=log, nice=BOT_NICENESS)
                out, _ = self.proc.communicate(timeout=self.seconds + 90)
                self.exit_codes[self.proc.returncode] += 1
                if self.proc.returncode == 0 and note_report(json.loads(out), self.stops):
                    self.finished.set()
                elif self.proc.returncode != 0:
                    time.sleep(0.2)
        except BaseException as exc:  # noqa: BLE001 - reported by the test
            self.errors.append(exc)
            self.finished.set()

    def start(self) -> threading.Thread:
        thread = threading.Thread(target=self.run, name="cli-pump", daemon=True)
        thread.start()
        return thread

    def stop(self) -> None:
        """Kill the child still running, if any (the test is over or failed)."""
        proc = self.proc
        if proc is not None and proc.poll() is None:
            proc.kill()
            proc.wait(10)


def note_report(report: dict, stops: Counter) -> bool:
    """Count each job result's stop; True once the job is over (done, or nothing left running)."""
    for result in report["jobs"]:
        stops[result["stop"]] += 1
    return any(r["stop"] == "done" for r in report["jobs"])


class ArrivalLog:
    """Every Bot API call the in-process simulator receives: (wall arrival, wall answer, method, HTTP status).

    Arrival is before the simulator's latency sleep: the moment the request reached "Telegram".
    """

    def __init__(self, simulator):
        self.calls: list[tuple[float, float, str, int]] = []
        self._lock = threading.Lock()
        self._inner = simulator.api.handle_http

    def install(self, monkeypatch, simulator) -> ArrivalLog:
        monkeypatch.setattr(simulator.api, "handle_http", self._handle)
        return self

    def _handle(self, token, method, query, content_type, body):
        arrived = time.time()
        status, ctype, payload = self._inner(token, method, query, content_type, body)
        with self._lock:
            self.calls.append((arrived, time.time(), method, status))
        return status, ctype, payload

    def injected_429s(self) -> list[tuple[float, float, str, int]]:
        """Return the counted calls answered 429."""
        with self._lock:
            return [c for c in self.calls if c[3] == 429 and c[2] in PRODUCING]

    def busiest_second_sent(self) -> int:
        """Return the most counted calls that reached the simulator in any 1 s, by arrival (before its latency)."""
        with self._lock:
            return busiest_second([c[0] for c in self.calls if c[2] in PRODUCING])

    def bunched(self, cap: float) -> list[tuple[float, float]]:
        """Return (arrival, gap) of counted calls that came less than half a slot after the previous one."""
        with self._lock:
            times = sorted(c[0] for c in self.calls if c[2] in PRODUCING)
        pairs = zip(times, times[1:], strict=False)
        return [(round(t, 3), round(t - p, 4)) for p, t in pairs if t - p < 0.5 / cap]

    def counted_between(self, start: float, end: float) -> list[tuple[float, float, str, int]]:
        """Return the counted calls that arrived in [start, end)."""
        with self._lock:
            return [c for c in self.calls if c[2] in PRODUCING and start <= c[0] < end]


class HoldWatch:
    """Poll the shared budget's free lane from the test process: when did a 429 hold first appear in the database?"""

    def __init__(self, engine, interval: float = 0.003, min_hold: float = 0.5):
        self.engine, self.interval, self.min_hold = engine, interval, min_hold
        self.seen_at: float | None = None  # wall time the hold was first read
        self._stop = threading.Event()

    def start(self) -> HoldWatch:
        threading.Thread(target=self._run, name="hold-watch", daemon=True).start()
        return self

    def stop(self) -> None:
        self._stop.set()

    def _run(self) -> None:
        from app.repository.budget.lanes import read_lane

        while not self._stop.is_set() and self.seen_at is None:
            _, hold_us, now_us = read_lane(self.engine, "free")
            if hold_us - now_us > self.min_hold * 1_000_000:
                self.seen_at = time.time()
            self._stop.wait(self.interval)


def busiest_second(times: list[float]) -> int:
    """Return the most events in any 1 s window (half-open, like the simulator's)."""
    times = sorted(times)
    best, lo = 0, 0
    for hi, t in enumerate(times):
        while times[lo] <= t - 1.0:
            lo += 1
        best = max(best, hi - lo + 1)
    return best
