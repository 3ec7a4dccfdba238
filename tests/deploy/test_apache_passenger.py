"""The deployment test as a pytest case: the bot behind Debian's Apache + Passenger, cron-pumped, on MariaDB.

Opt-in (it installs nothing, but needs root and system packages, and takes ~2 min):
    apt-get install -y --no-install-recommends apache2 libapache2-mod-passenger python3-venv
    UPK_DEPLOY_TEST=1 .venv/bin/python -m pytest tests/deploy -q
Without UPK_DEPLOY_TEST=1 it skips, saying why, so the normal runs (SQLite, MariaDB) never
pay for it; .ci/run runs it once, on its own, after installing the packages.
"""
from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
HOW = ("set UPK_DEPLOY_TEST=1; needs root, apache2 + libapache2-mod-passenger + python3-venv and MariaDB "
       "on 127.0.0.1:3306, see docs/DEPLOY_CPANEL.md")
TIMEOUT = 480  # the run takes ~100 s with a warm pip cache; cleanup gets another minute


def missing_prerequisites() -> list[str]:
    """Name what this machine lacks for the deployment test."""
    missing = []
    if os.geteuid() != 0:
        missing.append("root")
    for path, package in (("/usr/sbin/apache2", "apache2"),
                          ("/usr/lib/apache2/modules/mod_passenger.so", "libapache2-mod-passenger")):
        if not Path(path).exists():
            missing.append(package)
    for tool in ("passenger-status", "passenger-config", "curl", "flock", "runuser"):
        if shutil.which(tool) is None:
            missing.append(tool)
    venv_ok = Path("/usr/bin/python3").exists() and subprocess.run(
        ["/usr/bin/python3", "-c", "import ensurepip, venv"], capture_output=True).returncode == 0
    if not venv_ok:
        missing.append("python3-venv")
    try:
        socket.create_connection(("127.0.0.1", 3306), timeout=2).close()
    except OSError:
        missing.append("MariaDB on 127.0.0.1:3306")
    return missing


@pytest.mark.slow
@pytest.mark.skipif(os.environ.get("UPK_DEPLOY_TEST") != "1", reason="deployment test not requested: " + HOW)
def test_bot_serves_and_broadcasts_behind_apache_passenger_with_cron():
    missing = missing_prerequisites()
    if missing:
        pytest.fail(f"UPK_DEPLOY_TEST=1 but this machine lacks: {', '.join(missing)} ({HOW})")
    root = Path(f"/srv/update_pack_deploy-{uuid.uuid4().hex[:8]}")
    proc = subprocess.Popen([sys.executable, "-m", "tests.deploy.run_deploy_test", "--root", str(root)],
                            cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        out, err = proc.communicate(timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        proc.send_signal(signal.SIGTERM)  # the runner cleans up on SIGTERM
        out, err = proc.communicate(timeout=90)
    report = json.loads(out) if out.strip().startswith("{") else {"ok": False, "stdout": out[-2000:]}
    print(err)  # the phase-by-phase progress, shown by pytest -s or on failure
    assert not root.exists(), f"the run left {root} behind"
    assert report.get("ok") is True, json.dumps(report, indent=2)[-6000:] + "\n" + err[-3000:]
    phases = report["phases"]
    assert len(phases["several_processes"]["served"]) >= 2
    assert phases["pump_cut_off"]["client_saw"] != {"status": 200}
    assert phases["sub_path"]["root_healthz_status"] == 404
    assert phases["logs_clean"]["leaks"] == []
