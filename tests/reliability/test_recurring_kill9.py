"""kill -9 inside a recurring release: the job, its occurrence and the advance are kept together or not at all."""
import os
import signal
import subprocess
import sys
from datetime import datetime, timedelta
from pathlib import Path

from sqlalchemy import select

from app.extensions import db
from app.models import BroadcastJob, RecurringBroadcast, RecurringOccurrence
from app.services import audit
from app.services.broadcast.jobs.draft import Draft
from app.services.broadcast.schedule import recurring, recurring_series
from tests.broadcast.helpers import create_users, engine_settings, reload

ROOT = str(Path(__file__).resolve().parents[2])
SAT_10 = datetime(2026, 12, 26, 6, 30)
DRAFT = Draft(content={"type": "text", "text": "سلام"}, audience="all")


def killed_release(simulator, point: str) -> None:
    """Run a cron call in its own process that SIGKILLs itself at point."""
    done = subprocess.run([sys.executable, "-m", "tests.broadcast.recurring_child", simulator.base_url,
                           SAT_10.isoformat(), point], cwd=ROOT, env=dict(os.environ, PYTHONPATH=ROOT),
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == -signal.SIGKILL, done.stderr[-2000:]


def state(series_id):
    db.session.expire_all()
    row = db.session.get(RecurringBroadcast, series_id)
    found = (row.next_at, row.occurrences,
             list(db.session.execute(select(RecurringOccurrence.outcome, RecurringOccurrence.job_id)).all()),
             list(db.session.execute(select(BroadcastJob.id, BroadcastJob.status)).all()))
    db.session.commit()
    return found


def new_series() -> int:
    row = recurring_series.create(DRAFT, "daily 10:00", until=None, count=None, if_missed="send", created_by=None,
                                  lang="en", actor=audit.ACTOR_CLI)
    row.next_at = SAT_10
    db.session.commit()
    return row.id


def test_killed_before_commit_leaves_nothing_and_the_next_call_makes_one_job(app, simulator):
    create_users(2)
    sid = new_series()
    killed_release(simulator, "in_transaction")
    assert state(sid) == (SAT_10, 0, [], [])  # no job, no occurrence, next_at unmoved
    [job_id] = recurring.release_due(engine_settings(), now=SAT_10 + timedelta(seconds=40))
    assert state(sid)[1:3] == (1, [("made", job_id)]) and reload(job_id).total_count == 2


def test_killed_after_commit_leaves_one_draft_that_cron_finishes(app, simulator):
    create_users(2)
    sid = new_series()
    killed_release(simulator, "after_commit")
    next_at, used, occurred, made = state(sid)
    [(job_id, status)] = made
    assert (next_at, used, occurred, status) == (SAT_10 + timedelta(days=1), 1, [("made", job_id)], "draft")
    # The same occurrence is never made again; the draft is finished once it is clearly orphaned.
    assert recurring.release_due(engine_settings(), now=SAT_10 + timedelta(minutes=1)) == []
    assert recurring.release_due(engine_settings(), now=SAT_10 + recurring.STUCK_AFTER + timedelta(minutes=1)) == []
    assert reload(job_id).status in ("queued", "running") and reload(job_id).total_count == 2
    assert len(state(sid)[3]) == 1
