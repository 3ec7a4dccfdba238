"""Run the suite the fast way: the load-sensitive tests alone, the independent ones on several workers beside them.

`make test` calls this. The `serial` tests (real processes, kills,
shared-budget timelines, rates judged by arrival) run one at a time at normal
priority. Beside them, every other test runs with pytest-xdist
(UPK_TEST_WORKERS workers, default 4), each worker with its own database and
simulated Bot API, in the idle scheduling class (SCHED_IDLE): it runs only on
CPU time the serial tests leave, so their timings are judged as on a quiet
machine while the paced waits are put to use. UPK_TEST_OVERLAP=0 (or an OS
without SCHED_IDLE) runs the two phases one after the other instead, the
serial one after the machine has settled. Arguments go to both phases; a
phase that selects nothing is fine as long as the other ran something.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from contextlib import nullcontext
from pathlib import Path

from tests import idle_mariadb

NO_TESTS = 5  # pytest's exit code when a selection holds no test
SETTLE_SECONDS = 5.0  # at most: the serial phase starts sooner once the CPUs are quiet
QUIET_WINDOW = 0.25  # seconds per CPU sample
QUIET_WINDOWS = 2  # this many in a row, each under QUIET_BUSY of all CPU time busy (iowait counts as busy)
QUIET_BUSY = 0.15


def main(args: list[str]) -> int:
    """Run both phases; return 0 only if both passed (or one selected nothing and the other passed)."""
    workers = os.environ.get("UPK_TEST_WORKERS", "4")
    parallel = [] if workers in ("0", "1") else ["-n", workers, "--dist", "loadfile"]
    phases = [("parallel", [*parallel, "-m", "not serial"]), ("serial", ["-m", "serial"])]
    env = os.environ.copy()
    cache = None
    if env.pop("PYTHONDONTWRITEBYTECODE", None):
        # Asked to leave no bytecode in the tree (CI): compile once into a temporary tree instead,
        # or every worker of both phases compiles every module again (about 5 s per phase).
        cache = env["PYTHONPYCACHEPREFIX"] = tempfile.mkdtemp(prefix="upk-pycache-")
    codes = []
    whole_suite = not any(os.path.exists(arg.split("::")[0]) for arg in args)
    if whole_suite:  # the serial phase collects only the files that hold serial tests, not all ~170
        phases[1] = ("serial", [*phases[1][1], *serial_files()])
    try:
        if parallel and whole_suite:
            warm_up(env)
        if parallel and whole_suite and overlap_wanted():
            codes = run_overlapped(phases, args, env)
        else:
            codes = run_in_turn(phases, args, env)
    finally:
        if cache:
            shutil.rmtree(cache, ignore_errors=True)
    if all(code == NO_TESTS for code in codes):
        return NO_TESTS
    return max((code for code in codes if code != NO_TESTS), default=0)


def pytest_cmd(extra: list[str], args: list[str]) -> list[str]:
    """Return the command line of one phase."""
    return [sys.executable, "-m", "pytest", *extra, *args]


def run_in_turn(phases: list, args: list[str], env: dict) -> list[int]:
    """Run the phases one after the other, the serial one on a quiet machine; return their exit codes."""
    codes = []
    for name, extra in phases:
        if name == "serial":
            # The load-sensitive tests start on a quiet machine: the parallel phase's files written
            # out and its worker processes gone, not flushing beside the first timing test.
            os.sync()
            settle()
        print(f"== {name} tests", flush=True)
        phase_env = dict(env, UPK_SLOW_FILES_FIRST="1") if name == "parallel" else env
        codes.append(subprocess.call(pytest_cmd(extra, args), env=phase_env))
    return codes


def overlap_wanted() -> bool:
    """Tell whether the phases may overlap: the OS has an idle scheduling class and UPK_TEST_OVERLAP is not 0."""
    return os.environ.get("UPK_TEST_OVERLAP", "1") != "0" and hasattr(os, "SCHED_IDLE")


def idle_class() -> None:
    """Put the calling process (and every process it starts) in the idle scheduling class."""
    os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))


# Serial files whose timelines are judged to the millisecond (slots handed to threads of two processes,
# late wake-ups booked again): even an idle-class neighbour's cache and memory traffic moved them past
# their bounds (2 of 2 overlapped runs), so they run first, alone, before anything else starts. The
# fallback's timeline under real gunicorn (no 429 allowed) met one in 3 of 6 whole-suite MariaDB runs,
# none in 24 runs by itself: it runs alone too (and at 28/s, test_cron_missing.py says why).
SOLO_FILES = ("tests/telegram/test_shared_budget.py", "tests/telegram/test_shared_budget_api.py",
              "tests/reliability/test_cron_missing.py")


def run_overlapped(phases: list, args: list[str], env: dict) -> list[int]:
    """Run the solo files alone, then the other serial tests as usual with the parallel phase beside them, idle.

    The serial tests mostly wait (paced sends, timelines judged by arrival): the CPU they leave is
    what the parallel phase needs. A process in SCHED_IDLE runs only on a CPU nobody else wants and
    gives it up the moment a normal process wakes, so the timing tests still own the CPUs whenever
    they need them. The parallel phase's output is kept in a file and printed after the serial one's.
    """
    (_, parallel), (_, serial) = phases
    # They start on a quiet machine: the files just written (a phase or a database run before, the warm-up's
    # compiled modules) flushed, so no commit of theirs waits behind that writeback.
    os.sync()
    settle()
    print("== serial tests judged to the millisecond, alone", flush=True)
    solo_code = subprocess.call(pytest_cmd(["-m", "serial", *SOLO_FILES], args), env=env)
    rest = [arg for arg in serial if arg not in SOLO_FILES]
    url = env.get("TEST_DATABASE_URL")
    with tempfile.TemporaryFile(mode="w+", encoding="utf-8") as log, \
            (idle_mariadb.idle_server(url, idle_class) if idle_mariadb.wanted(url) else nullcontext()) as idle_url:
        # On MariaDB the parallel phase queries a server of its own, idle too (tests/idle_mariadb.py).
        parallel_env = dict(env, UPK_SLOW_FILES_FIRST="1", **({"TEST_DATABASE_URL": idle_url} if idle_url else {}))
        print("== parallel tests (beside the serial ones, in the idle scheduling class"
              f"{', on a MariaDB server of their own' if idle_url else ''}: output below)", flush=True)
        background = subprocess.Popen(pytest_cmd(parallel, args), env=parallel_env,
                                      stdout=log, stderr=subprocess.STDOUT, preexec_fn=idle_class)
        try:
            print("== serial tests", flush=True)
            serial_code = subprocess.call(pytest_cmd(rest, args), env=env)
            parallel_code = background.wait()
        finally:
            if background.poll() is None:
                background.kill()
        print("== parallel tests: their output", flush=True)
        log.seek(0)
        shutil.copyfileobj(log, sys.stdout)
        sys.stdout.flush()
    return [solo_code, parallel_code, serial_code]


def settle() -> None:
    """Wait until the CPUs have been quiet for QUIET_WINDOWS samples in a row, or SETTLE_SECONDS at most.

    A fixed 5 s sleep waited as long on an idle CI machine (the phase's workers are gone when pytest
    returns) as on a busy one; without /proc/stat it still is one.
    """
    deadline = time.monotonic() + SETTLE_SECONDS
    quiet, before = 0, cpu_times()
    while quiet < QUIET_WINDOWS and time.monotonic() < deadline:
        time.sleep(min(QUIET_WINDOW, max(0.0, deadline - time.monotonic())))
        now = cpu_times()
        if before is None or now is None:
            continue
        total = sum(now) - sum(before)
        idle = now[3] - before[3]  # user nice system idle iowait ...: only idle is quiet
        quiet = quiet + 1 if total > 0 and (total - idle) / total < QUIET_BUSY else 0
        before = now


def cpu_times() -> list[int] | None:
    """Return the machine's CPU time counters (user nice system idle iowait irq softirq steal) or None."""
    try:
        with open("/proc/stat", encoding="ascii") as stat:
            return [int(n) for n in stat.readline().split()[1:9]]  # guest time is already in user time
    except (OSError, ValueError):
        return None


def serial_files() -> list[str]:
    """Return the test files with serial tests: those marked by file in conftest, and any marked by hand."""
    from tests.conftest import SERIAL_FILES

    root = Path(__file__).resolve().parent.parent
    marked = (path for path in sorted(root.joinpath("tests").rglob("test_*.py"))
              if "@pytest.mark.serial" in path.read_text(encoding="utf-8"))
    return sorted(set(SERIAL_FILES) | {str(path.relative_to(root)) for path in marked})


def warm_up(env: dict) -> None:
    """Compile every test module (pytest's assertion rewriting) once, in two processes, before the workers start.

    Otherwise each of the parallel phase's workers rewrites and compiles all of them at the same moment
    (about 13 s of CPU each on this 2-core machine, against 4 s with the compiled modules cached).
    """
    files = sorted(str(path) for path in Path(__file__).resolve().parent.rglob("test_*.py"))
    halves = [files[0::2], files[1::2]]
    quiet = ["-q", "--collect-only", "-p", "no:cacheprovider"]
    children = [subprocess.Popen([sys.executable, "-m", "pytest", *quiet, *half], env=env,
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) for half in halves if half]
    for child in children:
        child.wait()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
