"""`flask broadcast pump`: bounded drains, argument checks, and the --forever worker process."""
import json
import signal
import time

import pytest

from app.extensions import db
from tests.broadcast.helpers import BASE_ID, assert_consistent, create_text_job, create_users, reload
from tests.cli.proc import run_flask, start_flask


def delivered(simulator) -> list[int]:
    """Return the recipients of broadcast sends, in order."""
    return [d["chat_id"] for d in simulator.deliveries("sendMessage") if d["chat_id"] >= BASE_ID]


def test_pump_all_drains_a_small_job_and_prints_counters(runner, simulator):
    create_users(5)
    job = create_text_job()
    result = runner.invoke(args=["broadcast", "pump", "--seconds", "5"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert set(report) == {"jobs", "seconds"} and report["seconds"] < 5
    (one,) = report["jobs"]
    assert (one["job_id"], one["stop"], one["job"]["status"], one["job"]["sent"]) == (job.id, "done", "completed", 5)
    assert sorted(delivered(simulator)) == list(range(BASE_ID, BASE_ID + 5))
    assert_consistent(job.id, simulator)


def test_pump_one_job_and_nothing_to_do(runner, simulator):
    idle = runner.invoke(args=["broadcast", "pump", "--seconds", "2"])
    assert idle.exit_code == 0 and json.loads(idle.stdout)["jobs"] == []
    create_users(2)
    job = create_text_job()
    result = runner.invoke(args=["broadcast", "pump", "--job", str(job.id), "--seconds", "5"])
    assert json.loads(result.stdout)["jobs"][0]["job"]["status"] == "completed"
    missing = runner.invoke(args=["broadcast", "pump", "--job", "999999"])
    assert missing.exit_code == 1 and "no broadcast job 999999" in missing.stderr


@pytest.mark.parametrize("args, message", [
    (["--seconds", "-1"], "--seconds"),
    (["--seconds", "0"], "--seconds"),
    (["--seconds", "ten"], "'ten' is not a valid integer"),
    (["--seconds", "3601"], "--seconds"),
    (["--job", "x"], "'x' is not a valid integer"),
    (["--interval", "1"], "--interval only applies with --forever"),
    (["--forever", "--job", "1"], "drop --job"),
    (["--forever", "--interval", "0"], "--interval"),
])
def test_pump_refuses_bad_arguments(runner, args, message):
    result = runner.invoke(args=["broadcast", "pump", *args])
    assert result.exit_code == 2, result.output
    assert message in result.stderr and "Traceback" not in result.output


def start_worker(database_url, simulator, *extra):
    """Start `flask --app wsgi broadcast pump --forever` as a real process."""
    return start_flask(database_url, simulator, "broadcast", "pump", "--forever", *extra)


def wait_for(predicate, timeout: float) -> bool:
    """Poll predicate until it is true or timeout passes."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(0.1)
    return False


def test_real_cli_process_pumps_and_reports_bad_input(app, database_url, simulator):
    create_users(3)
    job = create_text_job()
    db.session.remove()
    done = run_flask(database_url, simulator, "broadcast", "pump", "--seconds", "5")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["jobs"][0]["job"]["status"] == "completed"
    assert reload(job.id).sent_count == 3
    refused = run_flask(database_url, simulator, "settings", "set", "cron_pump_seconds", "99")
    assert refused.returncode == 2 and refused.stdout == ""
    assert refused.stderr.strip() == "Error: cron_pump_seconds: 99 is outside the allowed range 1..58"
    bad_id = run_flask(database_url, simulator, "broadcast", "status", "abc")
    assert bad_id.returncode == 2 and "Usage:" in bad_id.stderr and "Traceback" not in bad_id.stderr


@pytest.mark.slow
def test_forever_worker_drains_jobs_and_stops_cleanly_on_sigterm(app, database_url, simulator):
    create_users(20)
    first = create_text_job(text="first")
    db.session.remove()
    worker = start_worker(database_url, simulator, "--seconds", "2", "--interval", "0.2")
    try:
        assert wait_for(lambda: reload(first.id).status == "completed", 20), worker.stderr
        assert_consistent(first.id, simulator)
        # A job created while the worker idles is picked up without any other trigger.
        second = create_text_job(text="second")
        assert wait_for(lambda: reload(second.id).status == "completed", 20)
        started = time.monotonic()
        worker.send_signal(signal.SIGTERM)
        out, err = worker.communicate(timeout=15)
    finally:
        if worker.poll() is None:
            worker.kill()
    assert worker.returncode == 0, err
    assert time.monotonic() - started < 5
    assert "received SIGTERM; pump worker stopped" in err and "Traceback" not in err
    reports = [json.loads(line) for line in out.splitlines()]
    # One pump_all call may drain both (the second job can appear while the first one's summary goes out).
    assert {job["job_id"] for r in reports for job in r["jobs"]} == {first.id, second.id}
    for text in ("first", "second"):
        chats = [d["chat_id"] for d in simulator.deliveries("sendMessage") if d["text"] == text]
        assert sorted(chats) == list(range(BASE_ID, BASE_ID + 20)), text
    assert reload(second.id).sent_count == 20


@pytest.mark.slow
def test_forever_worker_stops_on_sigint_while_idle(database_url, simulator, app):
    worker = start_worker(database_url, simulator, "--interval", "30")
    try:
        assert wait_for(lambda: worker.stderr.readline().startswith("pump worker started"), 15)
        time.sleep(0.3)
        started = time.monotonic()
        worker.send_signal(signal.SIGINT)
        worker.wait(timeout=10)
    finally:
        if worker.poll() is None:
            worker.kill()
    assert worker.returncode == 0 and time.monotonic() - started < 3
