"""Where the CPU goes: per-process CPU meters and a py-spy sampler with a bucketed summary."""
from __future__ import annotations

import collections
import os
import shutil
import subprocess
import sys
import threading
import time

CLK = os.sysconf("SC_CLK_TCK")
# First matching rule wins, checked from the innermost frame outwards.
BUCKETS = (
    ("db: driver (pymysql/sqlite3)", ("pymysql/", "sqlite3/", "_sqlite3")),
    ("db: SQLAlchemy", ("sqlalchemy/",)),
    ("http client (requests/urllib3/http.client)", ("requests/", "urllib3/", "http/client.py", "socket.py",
                                                     "ssl.py", "email/")),
    ("json", ("json/",)),
    ("pacing (RateLimiter/ChatPacer)", ("app/telegram/pacing.py",)),
    ("threads/futures (waiting, handoff)", ("concurrent/futures/", "threading.py", "queue.py")),
    ("engine: recorder/repository", ("app/services/broadcast/sending/recorder.py", "app/services/broadcast/recorder.py",
                                     "app/repository/")),
    ("engine: pump/client", ("app/services/broadcast/", "app/telegram/")),
    ("simulator: http server", ("app/simulator/server.py", "socketserver.py", "http/server.py")),
    ("simulator: api/state", ("app/simulator/",)),
)


def process_cpu(pid: int) -> float:
    """CPU seconds (user + system) a process has used, 0 if it is gone."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / CLK


def machine_cpu() -> float:
    """Busy CPU seconds of the whole machine (all cores) since boot."""
    with open("/proc/stat") as f:
        parts = [int(x) for x in f.readline().split()[1:]]
    idle = parts[3] + (parts[4] if len(parts) > 4 else 0)
    return (sum(parts[:8]) - idle) / CLK


def find_pid(*names: str) -> int | None:
    """Return the pid of the first running process whose command name matches (e.g. mariadbd)."""
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/comm") as f:
                    if f.read().strip() in names:
                        return int(entry)
            except OSError:
                continue
    return None


def children(pid: int) -> list[int]:
    """Return the pids of a process's direct children (e.g. gunicorn's workers)."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    if int(f.read().rsplit(")", 1)[1].split()[1]) == pid:
                        found.append(int(entry))
            except (OSError, ValueError, IndexError):
                continue
    return sorted(found)


class CpuMeter:
    """CPU seconds used by named processes, and by the whole machine, between start() and stop()."""

    def __init__(self, **pids: int | None):
        self.pids = {name: pid for name, pid in pids.items() if pid}

    def start(self) -> CpuMeter:
        self.t0 = time.monotonic()
        self.machine0 = machine_cpu()
        self.cpu0 = {name: process_cpu(pid) for name, pid in self.pids.items()}
        return self

    def stop(self) -> dict:
        wall = time.monotonic() - self.t0
        out = {"wall_s": round(wall, 2)}
        used = 0.0
        for name, pid in self.pids.items():
            cpu = process_cpu(pid) - self.cpu0[name]
            used += cpu
            out[f"{name}_cpu_s"] = round(cpu, 2)
        machine = machine_cpu() - self.machine0
        out["machine_cpu_s"] = round(machine, 2)
        out["other_cpu_s"] = round(max(machine - used, 0.0), 2)
        out["cores_busy"] = round(machine / wall, 2) if wall else 0.0
        return out


class ThreadCpu:
    """CPU seconds (time.thread_time) spent inside chosen methods, summed over every thread that ran them.

    ``spots`` maps a name to (class, method name); while entered, each such
    method is wrapped (about a microsecond per call) and restored on exit.
    """

    def __init__(self, **spots):
        self.spots = spots
        self.seconds = dict.fromkeys(spots, 0.0)
        self._lock = threading.Lock()
        self._saved = []

    def __enter__(self) -> ThreadCpu:
        for name, (owner, attr) in self.spots.items():
            original = getattr(owner, attr, None)
            if original is None:
                continue  # a method this revision of the engine does not have (bench.compare runs older ones)
            self._saved.append((owner, attr, original))
            setattr(owner, attr, self._wrap(name, original))
        return self

    def __exit__(self, *exc) -> None:
        for owner, attr, original in reversed(self._saved):
            setattr(owner, attr, original)
        self._saved = []

    def _wrap(self, name: str, original):
        def timed(*args, **kwargs):
            started = time.thread_time()
            try:
                return original(*args, **kwargs)
            finally:
                used = time.thread_time() - started
                with self._lock:
                    self.seconds[name] += used
        return timed

    def per(self, n: int, prefix: str = "cpu_ms_") -> dict:
        """Return each spot's milliseconds of CPU per one of n (messages)."""
        return {f"{prefix}{name}": round(1000 * s / max(n, 1), 3) for name, s in self.seconds.items()}


class PySpy:
    """Sample whichever thread holds a process's GIL (py-spy --gil) into a collapsed-stack file.

    --gil rather than --idle/active detection: a thread blocked in recv() or
    sleep() is often reported "active", and the GIL holder is what limits a
    single Python process.
    """

    def __init__(self, pid: int, path: str, rate: int = 200):
        exe = shutil.which("py-spy") or os.path.join(os.path.dirname(sys.executable), "py-spy")
        self.cmd = [exe, "record", "--pid", str(pid), "--rate", str(rate), "--format", "raw",
                    "--output", path, "--nonblocking", "--gil"]
        self.path = path
        self.proc: subprocess.Popen | None = None

    def __enter__(self) -> PySpy:
        self.proc = subprocess.Popen(self.cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        time.sleep(0.5)  # let it attach before the measured work starts
        return self

    def __exit__(self, *exc) -> None:
        self.proc.send_signal(2)  # SIGINT: py-spy writes the file and exits
        try:
            _, err = self.proc.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            err = ""
        if not os.path.exists(self.path):
            print(f"py-spy wrote nothing: {err.strip()[-300:]}", file=sys.stderr)


def summarize(path: str, top: int = 12) -> dict:
    """Bucket a collapsed-stack file by the innermost recognised frame; list the hottest leaf functions."""
    buckets: collections.Counter[str] = collections.Counter()
    leaves: collections.Counter[str] = collections.Counter()
    inclusive: collections.Counter[str] = collections.Counter()
    total = 0
    if not os.path.exists(path):
        return {}
    with open(path) as f:
        for line in f:
            stack, _, count = line.rstrip("\n").rpartition(" ")
            if not count.isdigit():
                continue
            n = int(count)
            frames = [fr for fr in stack.split(";") if fr and not fr.startswith(("process ", "thread "))]
            total += n
            buckets[_bucket(frames)] += n
            if frames:
                leaves[_short(frames[-1])] += n
            for fn in {_short(fr) for fr in frames if "app/" in fr}:
                inclusive[fn] += n
    pct = lambda n: round(100.0 * n / total, 1) if total else 0.0  # noqa: E731
    return {"samples": total,
            "buckets_pct": {k: pct(v) for k, v in buckets.most_common()},
            "top_self_pct": {k: pct(v) for k, v in leaves.most_common(top)},
            "top_app_inclusive_pct": {k: pct(v) for k, v in inclusive.most_common(top)}}


def _bucket(frames: list[str]) -> str:
    for frame in reversed(frames):
        for name, needles in BUCKETS:
            if any(n in frame for n in needles):
                return name
    return "other"


def _short(frame: str) -> str:
    """'func (path/to/file.py:12)' -> 'func (file.py:12)'."""
    name, _, where = frame.partition(" (")
    return f"{name} ({where.rsplit('/', 1)[-1]}" if where else name


def print_profile(title: str, summary: dict) -> None:
    if not summary:
        return
    print(f"\n{title}: {summary['samples']} samples of the GIL holder")
    for key in ("buckets_pct", "top_self_pct", "top_app_inclusive_pct"):
        print(f"  {key}:")
        for name, value in summary[key].items():
            print(f"    {value:5.1f} %  {name}")
