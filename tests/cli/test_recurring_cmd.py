"""`flask broadcast create --every` and `flask recurring list | show | pause | resume | stop`."""
import json

import pytest

from app.services.broadcast.schedule import recurring_series
from app.services.broadcast.sending.drain import pump_all
from tests.broadcast.helpers import create_users, engine_settings


def create(runner, *args):
    return runner.invoke(args=["broadcast", "create", "--audience", "all", "--text", "سلام", *args])


def test_every_creates_a_series_and_show_lists_its_next_occurrences(runner):
    create_users(2)
    result = create(runner, "--every", "weekly شنبه,tue 10:00", "--count", "5", "--if-missed", "skip")
    assert result.exit_code == 0, result.output
    series_id = int(result.stdout.strip())
    assert "first at" in result.stderr and "its audience has 2 users now" in result.stderr
    shown = json.loads(runner.invoke(args=["recurring", "show", str(series_id), "--json"]).output)
    assert (shown["rule"], shown["status"], shown["count"], shown["if_missed"]) == (
        "weekly sat,tue 10:00", "active", 5, "skip")
    assert len(shown["upcoming"]) == 3 and all(at.endswith("T10:00:00+03:30") for at in shown["upcoming"])
    text = runner.invoke(args=["recurring", "show", str(series_id)]).output
    assert "Recurring broadcast #" in text and "Solar Hijri" in text
    [row] = json.loads(runner.invoke(args=["recurring", "list", "--json"]).output)
    assert row["id"] == series_id and row["made"] == 0
    assert "weekly sat,tue 10:00" in runner.invoke(args=["recurring", "list"]).output


def test_pause_resume_stop_from_the_shell(runner):
    create_users(1)
    series_id = create(runner, "--every", "daily 09:00").stdout.strip()
    assert runner.invoke(args=["recurring", "pause", series_id]).output == f"recurring broadcast {series_id} paused\n"
    refused = runner.invoke(args=["recurring", "pause", series_id])
    assert refused.exit_code == 1 and "is paused; it cannot be paused" in refused.output
    assert runner.invoke(args=["recurring", "resume", series_id]).exit_code == 0
    assert runner.invoke(args=["recurring", "stop", series_id]).exit_code == 0
    assert runner.invoke(args=["recurring", "show", "999"]).exit_code == 1


@pytest.mark.parametrize("args, message", [
    (["--every", "every monday"], "--every: I could not read the rule"),
    (["--every", "weekly funday 10:00"], "--every: Unknown weekday 'funday'"),
    (["--every", "monthly 32 10:00"], "--every: Day of the month '32' is invalid"),
    (["--every", "daily 25:00"], "--every: Invalid time"),
    (["--every", "daily 09:00", "--until", "1405-12-30"], "--until: The date 1405/12/30 does not exist"),
    (["--every", "daily 09:00", "--until", "1390-01-01"], "--until: The end date 1390-01-01 has already passed"),
    (["--every", "daily 09:00", "--until", "soon"], "--until: I could not read the end date"),
])
def test_bad_input_is_one_line_and_stores_nothing(runner, args, message):
    create_users(1)
    result = create(runner, *args)
    assert result.exit_code == 2 and message in result.output, result.output
    assert len(result.output.strip().splitlines()) == 1
    assert recurring_series.newest() == []


@pytest.mark.parametrize("args", [
    ["--until", "1405-12-29"], ["--count", "3"], ["--if-missed", "skip"],
    ["--every", "daily 09:00", "--at", "2030-01-01T10:00"],
    ["--every", "daily 09:00", "--until", "1405-12-29", "--count", "3"],
])
def test_options_that_do_not_go_together_are_refused(runner, args):
    create_users(1)
    assert create(runner, *args).exit_code == 2
    assert recurring_series.newest() == []


def test_pump_without_a_due_occurrence_makes_nothing(app, runner):
    create_users(1)
    create(runner, "--every", "daily 09:00")
    assert pump_all(1, settings=engine_settings()) == []
