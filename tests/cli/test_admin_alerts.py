"""Alerts of a CLI-created job reach every admin exactly once, even with two pump processes racing."""
from __future__ import annotations

from app.services import audit
from app.services.broadcast.jobs.status import job_status
from app.services.broadcast.reporting.progress import summary_text
from app.texts import t
from tests.broadcast.helpers import create_users, reload
from tests.cli.proc import run_flask, start_flask
from tests.factories import create_user

ENV_ADMIN = 1001          # ADMIN_IDS in the CLI's environment; never started the bot: Persian
FLAGGED_ADMIN = 1002      # users.is_admin, English
BLOCKED_ADMIN = 1003      # users.is_admin, but blocked the bot: nothing is sent to them


def flask_ok(app, simulator, *args) -> str:
    """Run one command in a real process; return its stdout after checking it succeeded."""
    result = run_flask(app.config["SQLALCHEMY_DATABASE_URI"], simulator, *args)
    assert result.returncode == 0, result.stderr
    return result.stdout


def two_pumps(app, simulator) -> None:
    """Run two `broadcast pump` processes at once (two cron calls overlapping)."""
    procs = [start_flask(app.config["SQLALCHEMY_DATABASE_URI"], simulator, "broadcast", "pump", "--seconds", "8")
             for _ in range(2)]
    for proc in procs:
        _out, err = proc.communicate(timeout=60)
        assert proc.returncode == 0, err


def texts(simulator, chat_id: int) -> list[str]:
    return [d["text"] for d in simulator.deliveries("sendMessage", chat_id)]


def test_pause_and_finish_alerts_of_a_cli_job_reach_every_admin_once(app, simulator):
    create_user(FLAGGED_ADMIN, is_admin=True, language_code="en")
    create_user(BLOCKED_ADMIN, is_admin=True, is_blocked=True)
    create_users(6)
    flask_ok(app, simulator, "settings", "set", "broadcast_max_consecutive_errors", "3")
    # The message to copy does not exist: every send fails the same way and the breaker opens.
    job_id = int(flask_ok(app, simulator, "broadcast", "create", "--audience", "all",
                          "--copy-from", str(ENV_ADMIN), "--message-id", "424242"))
    two_pumps(app, simulator)
    job = reload(job_id)
    assert job.status == "paused"
    reason = job.pause_reason
    assert texts(simulator, ENV_ADMIN) == [t("paused_alert", "fa", id=job_id, reason=reason)]
    assert texts(simulator, FLAGGED_ADMIN) == [t("paused_alert", "en", id=job_id, reason=reason)]
    [alert] = simulator.deliveries("sendMessage", FLAGGED_ADMIN)
    assert [b["callback_data"] for row in alert["reply_markup"]["inline_keyboard"] for b in row] == [
        f"w.resume:{job_id}", f"w.cancel_job:{job_id}"]
    assert simulator.deliveries(chat_id=BLOCKED_ADMIN) == []

    simulator.configure(strict_copy=False)
    flask_ok(app, simulator, "broadcast", "resume", str(job_id))
    two_pumps(app, simulator)
    job = reload(job_id)
    assert (job.status, job.sent_count) == ("completed", 7)  # six users and the flagged admin
    status = job_status(job)
    assert texts(simulator, ENV_ADMIN)[1:] == [summary_text(status, "fa")]
    assert texts(simulator, FLAGGED_ADMIN)[1:] == [summary_text(status, "en")]
    assert simulator.deliveries(chat_id=BLOCKED_ADMIN) == []

    assert [(e["actor"], e["action"]) for e in audit.entries(job_id)] == [
        ("cli", "created"), ("system", "paused"), ("cli", "resumed")]
    assert audit.entries(job_id)[1]["detail"] == reason
