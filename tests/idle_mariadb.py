"""A private MariaDB server in the idle scheduling class, for the parallel phase that runs beside the serial one.

The parallel phase runs in SCHED_IDLE so the serial tests' timings are judged
as on a quiet machine. On MariaDB that was only half true: the shared server
did the parallel phase's queries at normal priority, ahead of the bot
processes a serial test starts (they run a notch below the test process), and
a starved bot sends late and bunched (a stray 429 in a timeline that allows
none). Here the parallel phase gets a server of its own, started from the same
binary with a throwaway data directory, that inherits the idle class too.
"""
from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from sqlalchemy.engine import URL, make_url

from tests.ports import free_port

SERVER = "mariadbd"
INSTALL = "mariadb-install-db"
START_SECONDS = 30.0  # a fresh data directory answers in well under a second here
LOCAL_HOSTS = ("127.0.0.1", "localhost")


def wanted(url: str | None) -> bool:
    """Tell whether url is a MariaDB on this machine, the binaries are here and UPK_TEST_IDLE_DB is not 0."""
    if not url or not url.startswith(("mysql", "mariadb")) or os.environ.get("UPK_TEST_IDLE_DB", "1") == "0":
        return False
    return make_url(url).host in LOCAL_HOSTS and all(shutil.which(name, path=_path()) for name in (SERVER, INSTALL))


@contextmanager
def idle_server(url: str, preexec: Callable[[], None]) -> Iterator[str | None]:
    """Start a private server (its processes put in the idle class by ``preexec``); yield url moved onto it.

    Yields None, after saying why, when the server cannot be started: the caller
    keeps the shared one. The server and its data are gone on exit.
    """
    home = Path(tempfile.mkdtemp(prefix="upk-idle-db-"))
    server = moved = None
    try:
        try:
            port = free_port()
            server = _start(home, port, preexec)
            moved = on_server(url, port)
        except (OSError, subprocess.SubprocessError, TimeoutError) as exc:
            print(f"== the idle MariaDB could not start ({exc}): the parallel phase shares the server", flush=True)
        yield moved
    finally:
        if server is not None:
            _stop(server)
        shutil.rmtree(home, ignore_errors=True)


def on_server(url: str, port: int) -> str:
    """Return url moved onto the private server: its root user (no password), over TCP to its port."""
    parsed = make_url(url)
    query = {k: v for k, v in parsed.query.items() if k != "unix_socket"}
    return URL.create(parsed.drivername, username="root", host="127.0.0.1", port=port, database=parsed.database,
                      query=query).render_as_string(hide_password=False)


def _start(home: Path, port: int, preexec: Callable[[], None]) -> subprocess.Popen:
    """Make a data directory with grant tables (root, no password) and start a server on it; wait until it answers."""
    data, log = home / "data", home / "server.log"
    user = ["--user=root"] if os.geteuid() == 0 else []
    subprocess.run([shutil.which(INSTALL, path=_path()), "--no-defaults", f"--datadir={data}", *user,
                    "--auth-root-authentication-method=normal", "--skip-test-db"],
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=START_SECONDS)
    # The shared server's character set and collation; no binary log (nothing replicates from a test server).
    server = subprocess.Popen([shutil.which(SERVER, path=_path()), "--no-defaults", f"--datadir={data}", *user,
                               f"--port={port}", "--bind-address=127.0.0.1", f"--socket={home / 'sock'}",
                               f"--pid-file={home / 'pid'}", f"--log-error={log}", "--skip-log-bin",
                               "--character-set-server=utf8mb4", "--collation-server=utf8mb4_general_ci"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, preexec_fn=preexec)
    deadline = time.monotonic() + START_SECONDS
    while not _answers(port):
        if server.poll() is not None or time.monotonic() > deadline:
            _stop(server)
            raise TimeoutError(f"no answer on port {port}; see {log}")
        time.sleep(0.1)
    return server


def _answers(port: int) -> bool:
    """Tell whether a server takes connections on port."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1) as conn:
            return bool(conn.recv(1))  # a MariaDB greets first
    except OSError:
        return False


def _stop(server: subprocess.Popen) -> None:
    """Shut the server down (SIGTERM is its clean shutdown), killing it if it hangs."""
    server.terminate()
    try:
        server.wait(timeout=START_SECONDS)
    except subprocess.TimeoutExpired:
        server.kill()
        server.wait()



def _path() -> str:
    """Return PATH with the sbin directories, where Debian puts the server."""
    return os.pathsep.join([os.environ.get("PATH", ""), "/usr/sbin", "/usr/local/sbin"])
