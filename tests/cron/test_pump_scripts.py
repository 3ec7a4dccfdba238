"""cron/pump.sh and cron/pump.py as real processes against a real local HTTP server."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from tests.cron.endpoint import FakePumpEndpoint

ROOT = Path(__file__).resolve().parents[2]
TOKEN = "cron-test-token-Zq81"
SLOW = 1.5  # seconds the slow endpoint holds a request
needs_curl = pytest.mark.skipif(shutil.which("curl") is None, reason="curl is not installed (apt-get install curl)")
SCRIPTS = [pytest.param("sh", marks=needs_curl), "py"]


def command(script: str, *args: str) -> list[str]:
    """Return the argv cron would run; -S proves pump.py needs nothing but the standard library."""
    if script == "sh":
        return ["/bin/sh", str(ROOT / "cron/pump.sh"), *args]
    return [sys.executable, "-S", str(ROOT / "cron/pump.py"), *args]


def write_config(path: Path, url: str, token: str = TOKEN, mode: int = 0o600, eol: str = "\n") -> Path:
    """Write a URL=/TOKEN= config file with the given mode."""
    path.write_text(f"# pump config{eol}URL={url}{eol}TOKEN={token}{eol}")
    path.chmod(mode)
    return path


@pytest.fixture
def endpoint():
    server = FakePumpEndpoint(TOKEN).start()
    yield server
    server.stop()


@pytest.fixture
def env(tmp_path):
    """A cron-like environment whose HOME is the test's folder."""
    return {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(tmp_path), "LC_ALL": "C"}


def run(script, *args, env, timeout=20):
    """Run a script to completion."""
    return subprocess.run(command(script, *args), env=env, capture_output=True, text=True, timeout=timeout)


def start(script, *args, env):
    """Start a script in the background."""
    return subprocess.Popen(command(script, *args), env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


@pytest.mark.parametrize("script", SCRIPTS)
def test_success_posts_the_bearer_token_and_exits_0(script, endpoint, env, tmp_path):
    conf = write_config(tmp_path / "pump.conf", endpoint.url)
    result = run(script, str(conf), env=env)
    assert result.returncode == 0, result.stderr
    assert endpoint.calls == [{"method": "POST", "path": "/internal/pump", "authorization": f"Bearer {TOKEN}"}]
    assert "HTTP 200" in result.stdout and '"ok": true' in result.stdout and result.stderr == ""
    assert TOKEN not in result.stdout


@pytest.mark.parametrize("script", SCRIPTS)
def test_default_config_in_home_quiet_and_windows_line_ends(script, endpoint, env, tmp_path):
    write_config(tmp_path / ".update_pack_pump.conf", endpoint.url, eol="\r\n")
    result = run(script, "-q", env=env)
    assert (result.returncode, result.stdout, result.stderr) == (0, "", "")
    assert endpoint.calls[0]["authorization"] == f"Bearer {TOKEN}"
    assert (tmp_path / ".update_pack_pump.conf.lock").stat().st_mode & 0o077 == 0


@pytest.mark.parametrize("script", SCRIPTS)
@pytest.mark.parametrize("token, status, shown", [("wrong-token", 200, "HTTP 401"), (TOKEN, 500, "HTTP 500"),
                                                  (TOKEN, 302, "HTTP 302")])
def test_non_2xx_fails_visibly(script, endpoint, env, tmp_path, token, status, shown):
    endpoint.status = status
    conf = write_config(tmp_path / "pump.conf", endpoint.url, token=token)
    result = run(script, "-q", str(conf), env=env)
    assert result.returncode == 1
    assert shown in result.stderr and "pump:" in result.stderr and token not in result.stderr + result.stdout


@pytest.mark.parametrize("script", SCRIPTS)
def test_unreachable_app_fails_visibly(script, env, tmp_path):
    conf = write_config(tmp_path / "pump.conf", "http://127.0.0.1:9/internal/pump")
    result = run(script, str(conf), env=env)
    assert result.returncode == 1 and "pump:" in result.stderr and TOKEN not in result.stderr


@pytest.mark.parametrize("script", SCRIPTS)
@pytest.mark.parametrize("case, message", [
    ("missing", "not found"), ("readable", "chmod 600"), ("token_in_url", "not in URL="),
    ("empty_token", "TOKEN= in"), ("no_scheme", "full http(s) address"),
])
def test_bad_config_exits_2_without_a_request(script, endpoint, env, tmp_path, case, message):
    conf = tmp_path / "pump.conf"
    if case == "readable":
        write_config(conf, endpoint.url, mode=0o644)
    elif case == "token_in_url":
        write_config(conf, endpoint.url + "?token=" + TOKEN)
    elif case == "empty_token":
        write_config(conf, endpoint.url, token="")
    elif case == "no_scheme":
        write_config(conf, "127.0.0.1/internal/pump")
    result = run(script, str(conf), env=env)
    assert result.returncode == 2 and message in result.stderr, result.stderr
    assert endpoint.calls == [] and TOKEN not in result.stderr


def process_args() -> list[str]:
    """Return every process's full command line (-ww: never cut at 80 columns)."""
    return subprocess.run(["ps", "-ww", "-eo", "args"], capture_output=True, text=True, check=True).stdout.splitlines()


@pytest.mark.parametrize("script", SCRIPTS)
def test_token_never_appears_in_the_process_list(script, endpoint, env, tmp_path):
    endpoint.delay = SLOW
    conf = write_config(tmp_path / "pump.conf", endpoint.url)
    proc = start(script, str(conf), env=env)
    try:
        assert endpoint.received.wait(10), "the script never called"
        args = process_args()  # taken while the request is held open
    finally:
        out, err = proc.communicate(timeout=20)
    assert proc.returncode == 0, err
    assert not [line for line in args if TOKEN in line]
    mine = [line for line in args if ("curl" in line and "--config -" in line) or "cron/pump.py" in line]
    assert mine, "the running request was not seen in the process list"


def assert_second_run_skips(first_cmd, second_cmd, endpoint, env):
    """Start first and hold its request open, then run second: it must skip without a request, first still held.

    The first run's request stays open until the second has ended, however long a loaded machine takes
    to start it: a second run that waited for the lock would never end (its 20 s timeout fails the test).
    """
    endpoint.release = threading.Event()
    first = subprocess.Popen(first_cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert endpoint.received.wait(10)
        second = subprocess.run(second_cmd, env=env, capture_output=True, text=True, timeout=20)
        still_held = first.poll() is None
    finally:
        endpoint.release.set()
        first.communicate(timeout=20)
    assert second.returncode == 0 and "skipped" in second.stderr, second.stderr
    assert still_held, "the first run ended before the second one did"
    assert first.returncode == 0 and len(endpoint.calls) == 1


@pytest.mark.parametrize("first, second", [("sh", "sh"), ("py", "py"), ("sh", "py"), ("py", "sh")])
def test_lock_prevents_overlap(first, second, endpoint, env, tmp_path):
    if "sh" in (first, second) and shutil.which("curl") is None:
        pytest.skip("curl is not installed (apt-get install curl)")
    conf = str(write_config(tmp_path / "pump.conf", endpoint.url))
    # One lock file for both scripts: flock(1) and Python's fcntl.flock take the same lock.
    assert_second_run_skips(command(first, conf), command(second, conf), endpoint, env)


@pytest.fixture
def env_without_flock(env, tmp_path):
    """A PATH with every command of /usr/bin and /bin except flock."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for folder in ("/usr/bin", "/bin"):
        for name in os.listdir(folder):
            if name != "flock" and not (bin_dir / name).exists():
                (bin_dir / name).symlink_to(os.path.join(folder, name))
    return {**env, "PATH": str(bin_dir)}


@needs_curl
def test_mkdir_lock_when_flock_is_missing(endpoint, env_without_flock, tmp_path):
    conf = str(write_config(tmp_path / "pump.conf", endpoint.url))
    assert_second_run_skips(command("sh", conf), command("sh", conf), endpoint, env_without_flock)
    assert not Path(conf + ".lockdir").exists(), "the lock directory is removed on exit"
    assert not Path(conf + ".lock").exists(), "flock was not used"


@needs_curl
def test_stale_mkdir_lock_of_a_dead_run_is_taken_over(endpoint, env_without_flock, tmp_path):
    conf = str(write_config(tmp_path / "pump.conf", endpoint.url))
    dead = subprocess.Popen(["true"])
    dead.wait()
    os.mkdir(conf + ".lockdir")
    Path(conf + ".lockdir/pid").write_text(f"{dead.pid}\n")
    result = run("sh", "-q", conf, env=env_without_flock)
    assert result.returncode == 0, result.stderr
    assert len(endpoint.calls) == 1 and not Path(conf + ".lockdir").exists()
