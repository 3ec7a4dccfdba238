"""An admin action and its audit row commit together: a refused action writes none, a refused row undoes the action."""
from contextlib import contextmanager
from datetime import timedelta

import pytest
from sqlalchemy import text
from sqlalchemy.exc import DBAPIError

from app.extensions import db
from app.repository.db_clock import db_utcnow
from app.services import audit
from app.services.broadcast.actions import retry
from app.services.broadcast.jobs import control
from app.services.broadcast.schedule import releases
from tests.broadcast.helpers import create_text_job, create_users, reload

REFUSE = {
    "sqlite": "CREATE TRIGGER refuse_audit BEFORE INSERT ON audit_log BEGIN SELECT RAISE(ABORT, 'audit refused'); END",
    "mysql": "CREATE TRIGGER refuse_audit BEFORE INSERT ON audit_log FOR EACH ROW "
             "SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'audit refused'",
}


@contextmanager
def audit_refused():
    """Make the database itself refuse every audit row (a trigger), for the block's duration."""
    dialect = "sqlite" if db.engine.dialect.name == "sqlite" else "mysql"
    db.session.execute(text(REFUSE[dialect]))
    db.session.commit()
    try:
        yield
    finally:
        db.session.rollback()
        db.session.execute(text("DROP TRIGGER IF EXISTS refuse_audit"))
        db.session.commit()


def refused(action) -> None:
    """Run an audited action that must fail on its audit row, then drop the failed transaction."""
    with pytest.raises(DBAPIError, match="audit refused"):
        action()
    db.session.rollback()


def test_a_refused_resume_leaves_no_audit_entry(app, simulator):
    create_users(2)
    job = create_text_job(actor=audit.ACTOR_CLI)
    assert control.cancel_job(job.id, actor=audit.ACTOR_CLI)
    assert control.resume_job(job.id, actor=audit.ACTOR_CLI) is None
    assert [e["action"] for e in audit.entries(job.id)] == ["created", "cancelled"]


def test_an_audit_row_the_database_refuses_rolls_the_action_back_with_it(app, simulator):
    create_users(3)
    job = create_text_job()  # no actor: nothing to audit yet
    with audit_refused():
        refused(lambda: control.pause_job(job.id, actor=audit.ACTOR_CLI))
        assert reload(job.id).status == "running"
        refused(lambda: control.cancel_job(job.id, actor=audit.ACTOR_CLI))
        assert reload(job.id).status == "running"
    assert control.pause_job(job.id)
    with audit_refused():
        refused(lambda: retry.retry_job(job.id, actor=audit.ACTOR_CLI))
        # Neither the paused job's cancel nor the new job survived the refused row.
        assert reload(job.id).status == "paused" and [j.id for j in control.list_jobs()] == [job.id]
    assert audit.entries(job.id) == []
    assert control.cancel_job(job.id, actor=audit.ACTOR_CLI)  # the trigger was the only obstacle
    assert [e["action"] for e in audit.entries(job.id)] == ["cancelled"]


def test_a_refused_audit_row_rolls_a_reschedule_and_a_send_now_back(app, simulator):
    create_users(2)
    send_at = db_utcnow().replace(microsecond=0) + timedelta(days=2)
    job = create_text_job(send_at=send_at)
    with audit_refused():
        refused(lambda: releases.reschedule(job.id, send_at + timedelta(days=1), actor=audit.ACTOR_CLI))
        refused(lambda: releases.send_now(job.id, actor=audit.ACTOR_CLI))
    assert (reload(job.id).status, reload(job.id).send_at) == ("scheduled", send_at)
    assert audit.entries(job.id) == []
