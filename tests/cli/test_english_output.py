"""The CLI speaks English (the Telegram admin UI stays Persian-first), through the real `flask` process."""
from __future__ import annotations

import json
import re

import pytest

from app.services.broadcast.jobs import control
from app.texts import t
from tests.broadcast.helpers import create_text_job, create_users, reload
from tests.cli.proc import run_flask

PERSIAN = re.compile(r"[\u0600-\u06FF\uFB50-\uFDFF\uFE70-\uFEFF]")


def flask_ok(app, simulator, *args) -> str:
    """Run one command in a real process; return its stdout after checking it succeeded."""
    result = run_flask(app.config["SQLALCHEMY_DATABASE_URI"], simulator, *args)
    assert result.returncode == 0, result.stderr
    return result.stdout


def assert_english(output: str) -> None:
    """No Persian letter anywhere in output."""
    assert not PERSIAN.search(output), output


def test_a_job_created_on_the_command_line_reports_its_pause_reason_in_english(app, simulator):
    create_users(3)
    job_id = int(flask_ok(app, simulator, "broadcast", "create", "--audience", "all", "--text", "hello"))
    simulator.revoke_token()  # the engine pauses the job: "the bot token was refused (401)"
    pumped = flask_ok(app, simulator, "broadcast", "pump", "--seconds", "5")
    assert reload(job_id).status == "paused"
    status = flask_ok(app, simulator, "broadcast", "status", str(job_id))
    assert json.loads(status)["pause_reason"] == "the bot token was refused (401)"
    for output in (pumped, status, flask_ok(app, simulator, "broadcast", "list", "--json")):
        assert_english(output)


def test_a_job_an_admin_created_in_persian_is_shown_in_english(app, simulator):
    create_users(3)
    job = create_text_job(text="hello", lang="fa")
    simulator.revoke_token()
    flask_ok(app, simulator, "broadcast", "pump", "--seconds", "5")
    assert PERSIAN.search(reload(job.id).pause_reason), "the engine stored the admin's Persian reason"
    status = flask_ok(app, simulator, "broadcast", "status", str(job.id))
    assert json.loads(status)["pause_reason"] == "the bot token was refused (401)"
    assert_english(status)


@pytest.mark.parametrize("reason, english", [
    (t("reason_breaker", "fa", n=10, error="Bad Request: message to copy not found"),
     "10 errors in a row: Bad Request: message to copy not found"),
    (t("reason_paid_cap", "fa", cap=500), "the paid message cap (500) was reached"),
    (t("reason_admin", "fa"), "by an admin"),
])
def test_each_persian_pause_reason_reads_in_english(app, simulator, reason, english):
    create_users(2)
    job = create_text_job(text="hello", lang="fa")
    assert control.pause_job(job.id, reason)
    status = json.loads(flask_ok(app, simulator, "broadcast", "status", str(job.id)))
    listed = json.loads(flask_ok(app, simulator, "broadcast", "list", "--json"))
    assert status["pause_reason"] == listed[0]["pause_reason"] == english


@pytest.mark.parametrize("args", [(), ("settings",), ("telegram",), ("broadcast",), ("updates",), ("db",)])
def test_help_is_english(app, simulator, args):
    assert_english(flask_ok(app, simulator, *args, "--help"))


def test_settings_list_is_english(app, simulator):
    assert_english(flask_ok(app, simulator, "settings", "list"))
