"""`flask settings list | get | set` against the real settings table."""
import json

import pytest
from sqlalchemy import func, select

from app.extensions import db
from app.models import Setting
from app.settings_schema import DEFS


def stored_rows() -> int:
    """Count overridden settings in the database."""
    n = db.session.execute(select(func.count()).select_from(Setting)).scalar_one()
    db.session.commit()
    return n


def test_list_shows_every_key_with_value_default_and_range(runner):
    assert runner.invoke(args=["settings", "set", "broadcast_batch_size", "40"]).exit_code == 0
    result = runner.invoke(args=["settings", "list"])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0].split()[:4] == ["KEY", "VALUE", "DEFAULT", "RANGE"]
    for key in DEFS:
        assert any(line.startswith(key + " ") for line in lines), key
    row = next(line for line in lines if line.startswith("broadcast_batch_size "))
    assert row.split()[1:4] == ["40", "25", "1..500"]


def test_list_json_is_an_array_of_typed_values(runner):
    runner.invoke(args=["settings", "set", "broadcast_paid_enabled", "on"])
    result = runner.invoke(args=["settings", "list", "--json"])
    assert result.exit_code == 0
    rows = {r["key"]: r for r in json.loads(result.stdout)}
    assert set(rows) == set(DEFS)
    assert rows["broadcast_paid_enabled"]["value"] is True and rows["broadcast_paid_enabled"]["default"] is False
    expected = {"value": 57, "default": 57, "min": 1, "max": 58, "range": "1..58", "type": "int"}
    assert expected.items() <= rows["cron_pump_seconds"].items()


def test_get_prints_the_value_and_refuses_unknown_keys(runner):
    assert runner.invoke(args=["settings", "get", "cron_pump_seconds"]).stdout == "57\n"
    result = runner.invoke(args=["settings", "get", "no_such_key"])
    assert result.exit_code == 2
    assert "unknown setting 'no_such_key'" in result.stderr and "cron_pump_seconds" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_set_stores_a_valid_value(runner):
    result = runner.invoke(args=["settings", "set", "broadcast_rate_per_second", "12.5"])
    assert result.exit_code == 0 and result.stdout == "broadcast_rate_per_second = 12.5\n"
    assert runner.invoke(args=["settings", "get", "broadcast_rate_per_second"]).stdout == "12.5\n"


@pytest.mark.parametrize("key, value, message", [
    ("broadcast_batch_size", "abc", "expected an integer"),
    ("broadcast_batch_size", "2.5", "expected an integer"),
    ("broadcast_batch_size", "0", "outside the allowed range 1..500"),
    ("broadcast_batch_size", "501", "outside the allowed range 1..500"),
    ("cron_pump_seconds", "-5", "outside the allowed range 1..58"),
    ("broadcast_rate_per_second", "nan", "finite"),
    ("broadcast_paid_enabled", "maybe", "on/off"),
    ("telegram_rate_per_second", "31", "outside the allowed range 1..30"),
    ("no_such_key", "1", "known: "),
])
def test_set_refuses_bad_values_with_one_line_and_stores_nothing(runner, key, value, message):
    result = runner.invoke(args=["settings", "set", key, value])
    assert result.exit_code == 2, result.output
    assert message in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and "Traceback" not in result.output
    assert stored_rows() == 0


def test_set_without_a_value_is_a_usage_error(runner):
    result = runner.invoke(args=["settings", "set", "cron_pump_seconds"])
    assert result.exit_code == 2 and "Missing argument" in result.stderr
