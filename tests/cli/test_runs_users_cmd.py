"""`flask broadcast runs` (pump runs and the cron watch) and `flask users opt-out | opt-in ID`."""
from __future__ import annotations

import json
from datetime import timedelta

from sqlalchemy import update

from app.extensions import db
from app.models import BroadcastJob, User
from app.repository.db_clock import db_utcnow
from app.services import audit
from tests.broadcast.helpers import create_text_job, create_users


def ok(runner, *args) -> str:
    """Run a command in process; return its stdout after checking it succeeded."""
    result = runner.invoke(args=list(args))
    assert result.exit_code == 0, result.output
    return result.stdout


def test_runs_shows_each_source_and_whether_cron_is_late(runner, simulator):
    assert "no pump has run yet" in ok(runner, "broadcast", "runs")
    create_users(3)
    job_id = create_text_job().id
    waited = db_utcnow() - timedelta(minutes=5)  # cron_alert_minutes is 3
    db.session.execute(update(BroadcastJob).where(BroadcastJob.id == job_id).values(created_at=waited,
                                                                                     started_at=waited))
    db.session.commit()
    late = json.loads(ok(runner, "broadcast", "runs", "--json"))
    assert late["runs"] == []
    assert late["cron"] == {"last_run": None, "minutes_ago": None, "late": True, "waiting_jobs": [job_id],
                            "alerted": False}
    table = ok(runner, "broadcast", "runs")
    assert "last started: never" in table and f"#{job_id} running" in table and "cron is LATE" in table

    ok(runner, "broadcast", "pump", "--seconds", "10")
    after = json.loads(ok(runner, "broadcast", "runs", "--json"))
    [cli] = after["runs"]
    assert (cli["source"], cli["runs"], cli["processed_total"], cli["last_processed"]) == ("cli", 1, 3, 3)
    assert cli["last_started_at"].endswith("Z") and cli["last_ms"] >= 0
    assert after["cron"]["late"] is False and after["cron"]["minutes_ago"] == 0 and after["cron"]["waiting_jobs"] == []
    lines = ok(runner, "broadcast", "runs").splitlines()
    assert lines[0].split() == ["SOURCE", "RUNS", "PROCESSED_TOTAL", "LAST_STARTED_AT", "LAST_MS", "LAST_PROCESSED"]
    assert lines[2].split()[:3] == ["cli", "1", "3"]
    assert "cron is on time" in lines[-1] and "(0 min ago)" in "\n".join(lines)


def opted_out(user_id: int) -> bool:
    """Tell whether the user is opted out now (committed)."""
    db.session.expire_all()
    value = db.session.get(User, user_id).opted_out_at is not None
    db.session.commit()
    return value


def test_an_operator_opts_a_user_out_and_back_in(runner):
    stays, leaves = create_users(2)
    assert ok(runner, "users", "opt-out", str(leaves)).strip() == f"user {leaves} opted out of broadcasts"
    assert opted_out(leaves) and not opted_out(stays)
    assert "already" in ok(runner, "users", "opt-out", str(leaves))
    job_id = ok(runner, "broadcast", "create", "--audience", "all", "--text", "سلام").strip()
    assert json.loads(ok(runner, "broadcast", "status", job_id))["total"] == 1

    assert ok(runner, "users", "opt-in", str(leaves)).strip() == f"user {leaves} opted back in to broadcasts"
    assert not opted_out(leaves)
    assert "was not opted out" in ok(runner, "users", "opt-in", str(leaves))
    again = ok(runner, "broadcast", "create", "--audience", "all", "--text", "دوباره").strip()
    assert json.loads(ok(runner, "broadcast", "status", again))["total"] == 2
    # Changes are audited as the CLI's; repeats that changed nothing are not.
    entries = [(e["actor"], e["action"], e["detail"]) for e in audit.entries(None, limit=10)
               if e["action"] in (audit.OPTED_OUT, audit.OPTED_IN)]
    assert sorted(entries) == sorted([("cli", "opted_out", f"user {leaves}"), ("cli", "opted_in", f"user {leaves}")])


def test_unknown_and_malformed_user_ids_are_refused_in_one_line(runner):
    [known] = create_users(1)
    for command in ("opt-out", "opt-in"):
        result = runner.invoke(args=["users", command, "424242"])
        assert result.exit_code == 1 and "no user 424242 (they have never started the bot)" in result.output
        for bad in ("0", "-5", "abc", str(2**63)):
            result = runner.invoke(args=["users", command, bad])
            assert result.exit_code == 2 and "Traceback" not in result.output, (bad, result.output)
    assert db.session.get(User, 424242) is None  # a typo adds no user
    assert not opted_out(known)
