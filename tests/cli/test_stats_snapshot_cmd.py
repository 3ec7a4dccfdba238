"""`flask stats` of a large bot: the snapshot with its age (`as_of`, `age_minutes`), `--fresh` counts now."""
import json

import pytest

from app.services import stats
from tests.factories import create_users


@pytest.fixture
def large(monkeypatch):
    """Make two users a large bot."""
    monkeypatch.setattr(stats, "LIVE_UP_TO_USERS", 2)


def stats_json(runner, *args) -> dict:
    result = runner.invoke(args=["stats", "--json", *args])
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def test_the_snapshot_says_its_age_and_fresh_counts_now(runner, large):
    create_users([8301, 8302])
    first = stats_json(runner)
    assert first["users"] == 2 and "as_of" not in first  # no snapshot yet: counted now
    create_users([8303])
    shown = stats_json(runner)
    assert shown["users"] == 2 and shown["age_minutes"] == 0 and shown["as_of"].endswith("Z")
    table = runner.invoke(args=["stats"]).output
    assert "counted 0 min ago" in table and "--fresh counts now" in table
    fresh = stats_json(runner, "--fresh")
    assert fresh["users"] == 3 and "as_of" not in fresh
    assert stats_json(runner)["users"] == 3  # --fresh stored what it counted
