"""`broadcast create --expire-after T`: the expiry is in the job's own row from its insert, never set afterwards."""
from datetime import timedelta, timezone

import pytest
from sqlalchemy import func, select

from app.extensions import db
from app.models import BroadcastJob
from app.services import audit
from app.services.broadcast.jobs import creation
from app.services.broadcast.schedule.send_time import to_tehran
from tests.broadcast.helpers import create_users, reload
from tests.cli.test_broadcast_schedule_cmd import ahead, create


def only_job() -> BroadcastJob:
    db.session.expire_all()
    [job] = db.session.execute(select(BroadcastJob)).scalars().all()
    db.session.commit()
    return job


def test_a_crash_right_after_the_job_is_queued_leaves_it_with_its_expiry(runner, monkeypatch):
    # The process dies just after create's commit (here: the next step raises): whatever was
    # committed by then is what survives, so the expiry must already be in that commit.
    create_users(3)

    def killed() -> None:
        raise RuntimeError("killed after the job was queued")

    monkeypatch.setattr(creation, "start_next_if_idle", killed)
    result = create(runner, "--expire-after", "6h")
    assert isinstance(result.exception, RuntimeError)
    job = only_job()
    assert job.status == "queued" and job.total_count == 3
    assert job.expire_after == 6 * 3600 and job.expire_at == job.created_at + timedelta(hours=6)
    actions = [e["action"] for e in audit.entries(job.id)]
    assert actions == [audit.CREATED]  # one transaction: no separate expiry_set entry after it
    assert "expire_after=6h" in audit.entries(job.id)[0]["detail"]


def test_a_scheduled_jobs_first_pass_counts_from_its_send_time(runner):
    create_users(2)
    local = ahead()
    result = create(runner, "--at", local.isoformat(timespec="minutes"), "--expire-after", "90m")
    assert result.exit_code == 0, result.output
    job = reload(int(result.stdout))
    send_at = local.astimezone(timezone.utc).replace(tzinfo=None)
    assert (job.status, job.send_at, job.expire_after) == ("scheduled", send_at, 5400)
    assert job.expire_at == send_at + timedelta(minutes=90)
    assert to_tehran(job.expire_at).minute == 30


@pytest.mark.parametrize("after", ["48h", "2881m", "0m", "soon"])
def test_refused_t_creates_nothing(runner, after):
    create_users(2)
    result = create(runner, "--expire-after", after)
    assert result.exit_code == 2 and "--expire-after" in result.output
    assert db.session.execute(select(func.count()).select_from(BroadcastJob)).scalar() == 0


def test_create_job_refuses_t_past_47_hours_before_any_row(app):
    create_users(2)
    with pytest.raises(ValueError, match="47h"):
        creation.create_job(audience="all", created_by=None, content={"type": "text", "text": "hi"},
                            expire_after=timedelta(hours=47, minutes=1))
    assert db.session.execute(select(func.count()).select_from(BroadcastJob)).scalar() == 0
    db.session.commit()
