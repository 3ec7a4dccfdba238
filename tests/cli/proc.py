"""Run `flask --app wsgi ...` as a real process bound to the test database and simulator (see tests/forkserver.py)."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests import forkserver
from tests.conftest import PUMP_TOKEN, TOKEN, WEBHOOK_SECRET

ROOT = Path(__file__).resolve().parents[2]
FLASK = str(Path(sys.executable).with_name("flask"))


def flask_env(database_url: str, simulator) -> dict:
    """Return a production-like environment (no TESTING flag: the secrets are required)."""
    return {**os.environ, "DATABASE_URL": database_url, "TELEGRAM_BOT_TOKEN": TOKEN,
            "TELEGRAM_API_BASE_URL": simulator.base_url, "WEBHOOK_SECRET": WEBHOOK_SECRET,
            "PUMP_TOKEN": PUMP_TOKEN, "ADMIN_IDS": "1001", "PYTHONUNBUFFERED": "1"}


def run_flask(database_url: str, simulator, *args: str) -> subprocess.CompletedProcess:
    """Run one CLI command to completion."""
    return forkserver.run([FLASK, "--app", "wsgi", *args], cwd=ROOT, env=flask_env(database_url, simulator),
                          timeout=60)


def start_flask(database_url: str, simulator, *args: str) -> forkserver.Child | subprocess.Popen:
    """Start one CLI command in the background."""
    return forkserver.start([FLASK, "--app", "wsgi", *args], cwd=ROOT, env=flask_env(database_url, simulator),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
