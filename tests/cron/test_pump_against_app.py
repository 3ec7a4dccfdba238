"""The cron scripts against the real app (werkzeug on a thread), the engine and the simulated Bot API."""
from __future__ import annotations

import json
import threading

import pytest
from werkzeug.serving import make_server

from tests.broadcast.helpers import BASE_ID, assert_consistent, create_text_job, create_users, reload
from tests.conftest import PUMP_TOKEN
from tests.cron.test_pump_scripts import SCRIPTS, run, write_config


@pytest.fixture
def served_app(app):
    """Serve the app on a loopback port, as Passenger or gunicorn would."""
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}"
    server.shutdown()
    server.server_close()


@pytest.mark.parametrize("script", SCRIPTS)
def test_cron_script_drives_a_broadcast_to_completion(script, served_app, simulator, tmp_path):
    create_users(12)
    job = create_text_job()
    conf = write_config(tmp_path / "pump.conf", served_app + "/internal/pump", token=PUMP_TOKEN)
    result = run(script, str(conf), env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}, timeout=60)
    assert result.returncode == 0, result.stderr
    body = json.loads(result.stdout.split(" HTTP 200 ", 1)[1])
    assert body["ok"] is True and body["jobs"][0]["job"]["status"] == "completed"
    assert reload(job.id).sent_count == 12
    # Besides the recipients, the admins get the "finished" alert.
    assert sorted(d["chat_id"] for d in simulator.deliveries("sendMessage")
                  if d["chat_id"] >= BASE_ID) == list(range(BASE_ID, BASE_ID + 12))
    assert_consistent(job.id, simulator)


@pytest.mark.parametrize("script", SCRIPTS)
def test_wrong_token_is_refused_by_the_app(script, served_app, simulator, tmp_path):
    create_users(2)
    job = create_text_job()
    conf = write_config(tmp_path / "pump.conf", served_app + "/internal/pump", token="not-the-pump-token")
    result = run(script, str(conf), env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)})
    assert result.returncode == 1 and "HTTP 401" in result.stderr and '"unauthorized"' in result.stderr
    assert reload(job.id).sent_count == 0 and simulator.deliveries() == []
