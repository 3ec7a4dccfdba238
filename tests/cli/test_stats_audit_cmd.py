"""`flask stats` and `flask audit list` through the real `flask` process; CLI actions are audited as "cli"."""
from __future__ import annotations

import json
from datetime import timedelta

from app.clock import utcnow
from app.extensions import db
from app.models import User
from app.models.user import CHANNEL_MEMBER
from tests.broadcast.helpers import create_users
from tests.cli.proc import run_flask


def flask_ok(app, simulator, *args) -> str:
    """Run one command in a real process; return its stdout after checking it succeeded."""
    result = run_flask(app.config["SQLALCHEMY_DATABASE_URI"], simulator, *args)
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_stats_json_and_table_count_a_seeded_population(app, simulator):
    now = utcnow()
    create_users(2, start=7001, status=CHANNEL_MEMBER)            # new today, active
    create_users(3, start=7101, blocked=True)
    db.session.execute(db.update(User).where(User.id >= 7101).values(
        started_at=now - timedelta(days=40), last_seen_at=now - timedelta(days=12)))
    create_users(1, start=7201)
    db.session.execute(db.update(User).where(User.id == 7201).values(
        started_at=now - timedelta(days=5), last_seen_at=now - timedelta(days=5)))
    db.session.execute(db.update(User).where(User.id.in_((7001, 7101))).values(opted_out_at=now))
    db.session.commit()

    counts = json.loads(flask_ok(app, simulator, "stats", "--json"))
    assert counts == {"users": 6, "active_7d": 3, "active_30d": 6, "blocked": 3, "opted_out": 2,
                      "channel_members": 2, "new_today": 2, "new_week": 3, "sources": []}
    table = flask_ok(app, simulator, "stats").splitlines()
    assert table[0].split() == ["WHAT", "COUNT"]
    assert [line.rsplit(None, 1)[-1] for line in table[2:]] == ["6", "3", "6", "3", "2", "2", "2", "3"]
    assert table[4].startswith("active in the last 30 days")


def test_cli_actions_are_audited_as_cli_and_refusals_are_not(app, simulator):
    create_users(3)
    job_id = flask_ok(app, simulator, "broadcast", "create", "--audience", "all", "--text", "hello").strip()
    flask_ok(app, simulator, "broadcast", "pause", job_id, "--reason", "maintenance")
    flask_ok(app, simulator, "broadcast", "resume", job_id)
    flask_ok(app, simulator, "broadcast", "cancel", job_id)
    refused = run_flask(app.config["SQLALCHEMY_DATABASE_URI"], simulator, "broadcast", "cancel", job_id)
    assert refused.returncode == 1
    flask_ok(app, simulator, "settings", "set", "broadcast_batch_size", "40")
    assert run_flask(app.config["SQLALCHEMY_DATABASE_URI"], simulator,
                     "settings", "set", "broadcast_batch_size", "0").returncode == 2

    entries = json.loads(flask_ok(app, simulator, "audit", "list", "--json", "--job", job_id))
    assert [(e["actor"], e["action"], e["job_id"], e["detail"]) for e in entries] == [
        ("cli", "created", int(job_id), "audience=all total=3"), ("cli", "paused", int(job_id), "maintenance"),
        ("cli", "resumed", int(job_id), "running"), ("cli", "cancelled", int(job_id), None)]
    assert all(e["at"].endswith("Z") for e in entries)
    newest = json.loads(flask_ok(app, simulator, "audit", "list", "--json", "--limit", "1"))
    assert [(e["actor"], e["action"], e["job_id"], e["detail"]) for e in newest] == [
        ("cli", "setting_changed", None, "broadcast_batch_size: 25 -> 40")]
    table = flask_ok(app, simulator, "audit", "list").splitlines()
    assert table[0].split() == ["ID", "AT", "ACTOR", "ACTION", "JOB_ID", "DETAIL"]
    assert len(table) == 2 + 5 and "setting_changed" in table[2]
    assert flask_ok(app, simulator, "audit", "list", "--job", "999").strip() == "no audit entries"
