"""What Passenger is doing with the app: its processes, from passenger-status and the error log."""
from __future__ import annotations

import os
import pwd
import re
import subprocess
import time
import xml.etree.ElementTree as ET
from pathlib import Path

from tests.deploy.stack import DeployError, Layout

_APP_OUTPUT = re.compile(r"^App (\d+) output: ")
# A record printed by the handler wsgi-loader.py installs (logging.basicConfig), not by the app's.
PASSENGER_FORMAT = re.compile(r"^App \d+ output: \[ pid=\d+, time=")


def processes(layout: Layout) -> list[dict]:
    """Return the app's live processes: pid, processed requests, open sessions."""
    env = {**os.environ, "PASSENGER_INSTANCE_REGISTRY_DIR": str(layout.server_dir / "passenger")}
    out = subprocess.run(["passenger-status", "--show=xml"], capture_output=True, env=env, timeout=30)
    text = out.stdout.decode("latin-1")
    start = text.find("<?xml")
    if out.returncode != 0 or start < 0:
        raise DeployError(f"passenger-status failed: {(text + out.stderr.decode('latin-1'))[-500:]}")
    root = ET.fromstring(text[start:].encode("latin-1"))
    found = []
    for proc in root.iter("process"):
        values = {name: proc.findtext(name) or "" for name in ("pid", "processed", "sessions", "life_status")}
        found.append({"pid": int(values["pid"]), "processed": int(values["processed"] or 0),
                      "sessions": int(values["sessions"] or 0), "life_status": values["life_status"]})
    return found


def owner(pid: int) -> str:
    """Return the user name a process runs as."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("Uid:"):
            return pwd.getpwuid(int(line.split()[1])).pw_name
    raise DeployError(f"no Uid line for pid {pid}")


def wait_until_idle_killed(layout: Layout, timeout: float = 20.0) -> float:
    """Wait until Passenger has stopped every app process; return the seconds it took."""
    started = time.monotonic()
    while processes(layout):
        if time.monotonic() - started > timeout:
            raise DeployError(f"Passenger still runs {processes(layout)} after {timeout:.0f} s idle")
        time.sleep(0.5)
    return time.monotonic() - started


def busy_pid(layout: Layout, timeout: float = 10.0) -> int:
    """Return the pid of the process serving a request right now."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        busy = [p["pid"] for p in processes(layout) if p["sessions"] > 0]
        if busy:
            return busy[0]
        time.sleep(0.2)
    raise DeployError("no app process is serving a request")


def logging_pids(layout: Layout) -> set[int]:
    """Return the pids of app processes that wrote to the error log (Passenger prefixes each line)."""
    pids = set()
    for line in layout.error_log.read_text(errors="replace").splitlines():
        match = _APP_OUTPUT.match(line)
        if match:
            pids.add(int(match.group(1)))
    return pids


def loader_handler_lines(layout: Layout) -> int:
    """Count app log lines printed by wsgi-loader.py's own handler (these bypass the app's redaction)."""
    return sum(1 for line in layout.error_log.read_text(errors="replace").splitlines()
               if PASSENGER_FORMAT.match(line))
