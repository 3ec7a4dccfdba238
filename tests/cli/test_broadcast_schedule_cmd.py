"""`flask broadcast create --at`, `status`, `list`, `reschedule`, `send-now` and `cancel` of scheduled jobs."""
import json
from datetime import datetime, timedelta, timezone

from app.extensions import db
from app.repository.db_clock import db_utcnow
from app.services import audit
from app.services.broadcast.schedule.send_time import TEHRAN, to_tehran
from tests.broadcast.helpers import create_users, reload


def db_now():
    value = db_utcnow()
    db.session.commit()
    return value


def ahead(days=2, hour=21):
    """Return a whole-minute Tehran time some days ahead."""
    return to_tehran(db_now() + timedelta(days=days)).replace(hour=hour, minute=0, second=0, microsecond=0)


def create(runner, *args):
    return runner.invoke(args=["broadcast", "create", "--audience", "all", "--text", "سلام", *args])


def test_create_at_with_an_offset_schedules_and_status_shows_it(runner):
    create_users(3)
    local = ahead()
    result = create(runner, "--at", local.isoformat(timespec="minutes"))  # e.g. 2026-12-03T21:00+03:30
    assert result.exit_code == 0, result.output
    job = reload(int(result.stdout))
    assert (job.status, job.total_count) == ("scheduled", 3)
    assert job.send_at == local.astimezone(timezone.utc).replace(tzinfo=None)
    status = json.loads(runner.invoke(args=["broadcast", "status", str(job.id)]).stdout)
    assert status["status"] == "scheduled" and status["pending"] == 3
    assert status["send_at"] == job.send_at.isoformat() + "Z"
    assert status["send_at_tehran"] == local.isoformat()
    assert status["schedule_missed"] is False
    listing = runner.invoke(args=["broadcast", "list"]).stdout
    assert "SEND_AT" in listing and "scheduled" in listing


def test_an_iso_time_without_offset_is_tehran_time(runner):
    create_users(1)
    local = ahead(days=1, hour=9)
    result = create(runner, "--at", local.strftime("%Y-%m-%dT%H:%M"))
    assert result.exit_code == 0, result.output
    assert reload(int(result.stdout)).send_at == local.astimezone(timezone.utc).replace(tzinfo=None)
    assert local.tzinfo == TEHRAN


def test_past_and_malformed_times_are_refused_and_nothing_is_created(runner):
    create_users(1)
    past = to_tehran(db_now() - timedelta(minutes=1)).isoformat(timespec="seconds")
    result = create(runner, "--at", past)
    assert result.exit_code == 2 and "has already passed" in result.output
    result = create(runner, "--at", "24/12/2026 21:00")
    assert result.exit_code == 2 and "ISO 8601" in result.output
    assert runner.invoke(args=["broadcast", "list"]).stdout.strip() == "no broadcast jobs"


def test_reschedule_send_now_and_cancel(runner):
    create_users(2)
    job_id = int(create(runner, "--at", ahead().isoformat()).stdout)
    later = ahead(days=3, hour=8)
    result = runner.invoke(args=["broadcast", "reschedule", str(job_id), "--at", later.isoformat()])
    assert result.exit_code == 0 and result.stdout == f"job {job_id} rescheduled\n"
    assert reload(job_id).send_at == later.astimezone(timezone.utc).replace(tzinfo=None)
    result = runner.invoke(args=["broadcast", "send-now", str(job_id)])
    assert result.exit_code == 0 and result.stdout == f"job {job_id} queued\n"
    assert reload(job_id).status == "running"  # nothing else sends: it takes the slot at once
    result = runner.invoke(args=["broadcast", "reschedule", str(job_id), "--at", later.isoformat()])
    assert result.exit_code == 1 and "is running; it cannot be rescheduled" in result.output

    other = int(create(runner, "--at", ahead().isoformat()).stdout)
    assert runner.invoke(args=["broadcast", "cancel", str(other)]).exit_code == 0
    assert reload(other).status == "cancelled"
    result = runner.invoke(args=["broadcast", "send-now", str(other)])
    assert result.exit_code == 1 and "is cancelled" in result.output


def test_reschedule_and_send_now_are_audited_with_the_new_time_and_refusals_are_not(runner):
    create_users(2)
    job_id = int(create(runner, "--at", ahead().isoformat()).stdout)
    later = ahead(days=3, hour=8)
    assert runner.invoke(args=["broadcast", "reschedule", str(job_id), "--at", later.isoformat()]).exit_code == 0
    before = db_now().replace(microsecond=0)
    assert runner.invoke(args=["broadcast", "send-now", str(job_id)]).exit_code == 0
    assert runner.invoke(args=["broadcast", "send-now", str(job_id)]).exit_code == 1
    assert runner.invoke(args=["broadcast", "reschedule", str(job_id), "--at", later.isoformat()]).exit_code == 1
    entries = audit.entries(job_id)
    assert [(e["actor"], e["action"]) for e in entries] == [("cli", "scheduled"), ("cli", "rescheduled"),
                                                           ("cli", "sent_now")]
    utc_later = later.astimezone(timezone.utc).replace(tzinfo=None)
    assert entries[1]["detail"] == f"send_at={utc_later:%Y-%m-%dT%H:%M:%SZ}"
    queued_at = datetime.fromisoformat(entries[2]["detail"].removeprefix("queued_at=").rstrip("Z"))
    assert before <= queued_at <= db_now()
    listing = runner.invoke(args=["audit", "list", "--job", str(job_id)]).stdout
    assert "rescheduled" in listing and "sent_now" in listing


def test_times_utc_cannot_hold_are_refused_in_one_line(runner):
    create_users(1)
    job_id = int(create(runner, "--at", ahead().isoformat()).stdout)
    for at in ("9999-12-31T23:59-05:00", "0001-01-01T01:00", "0001-01-01T00:00+14:00", "0100-01-01T10:00Z"):
        for args in (["broadcast", "create", "--audience", "all", "--text", "سلام", "--at", at],
                     ["broadcast", "reschedule", str(job_id), "--at", at]):
            result = runner.invoke(args=args)
            assert result.exit_code == 2, (args, result.output)
            assert result.stderr.startswith("Error: --at: That time is out of range; send a time between now and "
                                            "one year from now (") and result.stderr.count("\n") == 1, result.stderr
            assert result.stdout == "" and result.exception is None or isinstance(result.exception, SystemExit)
    assert len(json.loads(runner.invoke(args=["broadcast", "list", "--json"]).stdout)) == 1


def test_a_time_more_than_a_year_ahead_is_refused_in_one_line(runner):
    create_users(1)
    result = create(runner, "--at", ahead(days=400).isoformat())
    assert result.exit_code == 2 and "is more than a year ahead; check the year" in result.stderr
    assert result.stderr.count("\n") == 1, result.stderr
