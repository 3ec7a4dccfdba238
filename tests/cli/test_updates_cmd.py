"""`flask updates purge` on the real processed_updates table."""
from datetime import timedelta

import pytest
from sqlalchemy import insert, select

from app.clock import utcnow
from app.extensions import db
from app.models import ProcessedUpdate


def remaining() -> list[int]:
    """Return the update ids still recorded."""
    ids = sorted(db.session.execute(select(ProcessedUpdate.update_id)).scalars())
    db.session.commit()
    return ids


@pytest.fixture
def updates(app):
    """Record updates handled 1, 5 and 30 days ago."""
    now = utcnow()
    db.session.execute(insert(ProcessedUpdate), [
        {"update_id": 1, "processed_at": now - timedelta(days=30)},
        {"update_id": 2, "processed_at": now - timedelta(days=5)},
        {"update_id": 3, "processed_at": now - timedelta(days=1)},
    ])
    db.session.commit()


def test_purge_removes_only_older_ids(runner, updates):
    result = runner.invoke(args=["updates", "purge", "--older-than", "3"])
    assert result.exit_code == 0 and result.stdout == "removed 2 processed updates older than 3 days\n"
    assert remaining() == [3]


def test_purge_defaults_to_the_keep_days_setting(runner, updates):
    assert runner.invoke(args=["settings", "set", "processed_updates_keep_days", "10"]).exit_code == 0
    result = runner.invoke(args=["updates", "purge"])
    assert result.stdout == "removed 1 processed updates older than 10 days\n"
    assert remaining() == [2, 3]


@pytest.mark.parametrize("days", ["0", "-3", "soon"])
def test_purge_refuses_bad_day_counts(runner, updates, days):
    result = runner.invoke(args=["updates", "purge", "--older-than", days])
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert remaining() == [1, 2, 3]
