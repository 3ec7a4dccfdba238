"""requirements.txt alone runs the app: a fresh virtualenv migrates a new database and answers /healthz 200.

The host's app virtualenv installs requirements.txt and nothing else (docs/DEPLOY_CPANEL.md step 4), so
this builds one the same way (pip works offline here from the configured local index and reuses pip's
cache) and checks that no test or tool package came with it.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import PUMP_TOKEN, TOKEN, WEBHOOK_SECRET

REPO = Path(__file__).resolve().parents[2]
DEV_ONLY = ("pytest", "xdist", "pytest_timeout", "hypothesis", "ruff", "gunicorn")
# The results picture is an optional extra (requirements-pictures.txt), not production's core.
EXTRAS = ("matplotlib", "numpy")
PROBE = f"""
import importlib.util, json
from wsgi import app
response = app.test_client().get("/healthz")
dev = [name for name in {DEV_ONLY!r} if importlib.util.find_spec(name) is not None]
extras = [name for name in {EXTRAS!r} if importlib.util.find_spec(name) is not None]
print(json.dumps({{"status": response.status_code, "body": response.get_json(), "dev": dev, "extras": extras}}))
"""


def run(args: list, env: dict, timeout: int = 240) -> subprocess.CompletedProcess:
    """Run a command from the repository root; fail with its output when it fails."""
    done = subprocess.run([str(a) for a in args], cwd=REPO, env=env, capture_output=True, text=True,
                          timeout=timeout)
    assert done.returncode == 0, f"{args} exited {done.returncode}:\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}"
    return done


@pytest.mark.slow
@pytest.mark.timeout(400)
def test_a_venv_from_requirements_txt_alone_migrates_and_serves_healthz(tmp_path, empty_database):
    venv = tmp_path / "venv"
    env = {key: value for key, value in os.environ.items() if not key.startswith(("VIRTUAL_ENV", "PYTHON"))}
    # The packages are what is judged, not pip: the venv gets none of its own (ensurepip cost ~3 s of CPU),
    # this venv's pip installs into it (--python), and skips byte-compiling files the probe mostly never imports.
    run([sys.executable, "-m", "venv", "--without-pip", venv], env)
    run([sys.executable, "-m", "pip", "--python", venv / "bin/python", "install", "--quiet", "--no-compile",
         "-r", REPO / "requirements.txt"], env, timeout=300)

    env.update(DATABASE_URL=empty_database, TELEGRAM_BOT_TOKEN=TOKEN, WEBHOOK_SECRET=WEBHOOK_SECRET,
               PUMP_TOKEN=PUMP_TOKEN, ADMIN_IDS="1001", TELEGRAM_API_BASE_URL="http://127.0.0.1:9",
               LOG_LEVEL="WARNING", PYTHONDONTWRITEBYTECODE="1")
    run([venv / "bin/flask", "--app", "wsgi", "db", "upgrade"], env)
    probe = json.loads(run([venv / "bin/python", "-c", PROBE], env).stdout.strip().splitlines()[-1])

    assert probe["status"] == 200, probe
    assert probe["body"]["ok"] is True and probe["body"]["database"] == "ok"
    assert probe["dev"] == [], f"requirements.txt pulled test/tool packages into production: {probe['dev']}"
    assert probe["extras"] == [], f"requirements.txt pulled the pictures extra into production: {probe['extras']}"
