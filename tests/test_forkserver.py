"""The tests' fork server: a forked child behaves as a freshly started `flask` or `python -m` process."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import time

import pytest

from tests import forkserver
from tests.cli.proc import FLASK, ROOT, flask_env

PRINT_ENV = "import json, os; print(json.dumps({'env': dict(os.environ), 'cwd': os.getcwd()}))"


def both(argv: list[str], **kwargs) -> tuple[subprocess.CompletedProcess, subprocess.CompletedProcess]:
    """Run argv forked from the server and in a fresh interpreter; return both results."""
    forked = forkserver.run(argv, timeout=60, **kwargs)
    os.environ["UPK_TEST_FORKSERVER"] = "0"
    try:
        fresh = forkserver.run(argv, timeout=60, **kwargs)
    finally:
        del os.environ["UPK_TEST_FORKSERVER"]
    return forked, fresh


@pytest.mark.parametrize("args, unset", [
    (("--help",), ()),
    (("broadcast", "status", "999999"), ()),  # a clear refusal, exit 1
    (("settings", "list"), ("WEBHOOK_SECRET",)),  # the app's own excepthook / missing-secret message
    (("broadcast", "create", "--audience", "all"), ()),  # click's usage error, exit 2
])
def test_a_forked_flask_answers_exactly_as_a_fresh_one(database_url, simulator, args, unset):
    env = {k: v for k, v in flask_env(database_url, simulator).items() if k not in unset}
    forked, fresh = both([FLASK, "--app", "wsgi", *args], env=env, cwd=ROOT)
    assert (forked.returncode, forked.stdout, forked.stderr) == (fresh.returncode, fresh.stdout, fresh.stderr)


def test_an_uncaught_error_goes_through_the_apps_excepthook_as_in_a_fresh_process(simulator, tmp_path):
    env = flask_env(f"sqlite:///{tmp_path}/no-tables.sqlite3", simulator)  # the app's one clear line, no traceback
    forked, fresh = both([FLASK, "--app", "wsgi", "settings", "list"], env=env, cwd=ROOT)
    assert (forked.returncode, forked.stdout, forked.stderr) == (fresh.returncode, fresh.stdout, fresh.stderr)
    assert forked.returncode == 1 and "Traceback" not in forked.stderr


def test_the_child_gets_exactly_its_environment_and_directory(tmp_path):
    env = {"PATH": os.environ["PATH"], "ONLY_THIS": "یک ✓"}
    forked = forkserver.run(["probe", "-c", PRINT_ENV], module="tests.forkserver_probe", env=env, cwd=tmp_path)
    assert forked.returncode == 0, forked.stderr
    seen = json.loads(forked.stdout)
    assert seen["env"] == env and seen["cwd"] == str(tmp_path)


def test_exit_codes_exceptions_and_signals_are_those_of_a_real_process(tmp_path):
    env = {"PATH": os.environ["PATH"]}
    exits = forkserver.run(["x", "-c", "import sys; print('out'); print('err', file=sys.stderr); sys.exit(3)"],
                           module="tests.forkserver_probe", env=env, cwd=ROOT)
    assert (exits.returncode, exits.stdout, exits.stderr) == (3, "out\n", "err\n")
    raises = forkserver.run(["x", "-c", "raise ValueError('boom')"], module="tests.forkserver_probe", env=env, cwd=ROOT)
    assert raises.returncode == 1 and raises.stderr.rstrip().endswith("ValueError: boom")
    sleeper = forkserver.start(["x", "-c", "import time; time.sleep(60)"], module="tests.forkserver_probe", env=env,
                               cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    time.sleep(0.3)
    assert sleeper.poll() is None
    os.kill(sleeper.pid, signal.SIGKILL)  # by pid, as a test kills a pump mid-batch
    assert sleeper.wait(10) == -signal.SIGKILL
    with pytest.raises(subprocess.TimeoutExpired):
        forkserver.run(["x", "-c", "import time; time.sleep(60)"], module="tests.forkserver_probe", env=env,
                       cwd=ROOT, timeout=0.5)


def test_children_do_not_share_state_with_each_other_or_the_server():
    env = {"PATH": os.environ["PATH"]}
    code = "import random, os; print(os.getpid(), random.random())"
    first, second = (forkserver.run(["x", "-c", code], module="tests.forkserver_probe", env=env, cwd=ROOT)
                     for _ in range(2))
    (pid1, rand1), (pid2, rand2) = first.stdout.split(), second.stdout.split()
    assert pid1 != pid2 and rand1 != rand2 and str(os.getpid()) not in (pid1, pid2)
