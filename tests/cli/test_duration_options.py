"""Every option that takes a duration refuses an out-of-range one in one line: never an OverflowError."""
import pytest

from app.services import durations
from app.services.broadcast.ab.versions import parse_wait
from app.services.broadcast.jobs.expiry_time import parse_after
from app.services.chains.rules import RuleError, parse_delay
from tests.factories import create_user

HUGE = "99999999999999999999h"
AB = ["--ab", "Version one", "--ab", "Version two", "--button-text", "Go", "--button-url", "https://example.com/x"]


@pytest.mark.parametrize("args, words", [
    (["broadcast", "expire", "1", "--after", HUGE], "at most 47h"),
    (["broadcast", "create", "--audience", "all", "--text", "Hi", "--expire-after", HUGE], "at most 47h"),
    (["broadcast", "create", "--audience", "all", *AB, "--winner-after", HUGE], "a wait of 10m to 7d"),
    (["chains", "create", "welcome", "--trigger", "joined", "--step", f"{HUGE}|Hi"], "is over a year"),
    (["broadcast", "pump", "--forever", "--interval", "99999999999999999999"], "--interval"),
    (["settings", "set", "schedule_grace_minutes", "99999999999999999999"], "schedule_grace_minutes"),
])
def test_an_out_of_range_duration_is_refused_in_one_line(app, runner, args, words):
    app.config["PUBLIC_URL"] = "https://bot.example.com"  # an A/B test needs tracked clicks
    create_user(8801)
    result = runner.invoke(args=args)
    assert result.exit_code == 2, (result.output, result.exception)
    # One line says why (click's usage errors put their "Usage:" hint above it).
    [line] = [line for line in result.stderr.splitlines() if line.startswith("Error")]
    assert words in line, result.stderr
    assert "Traceback" not in result.output and not isinstance(result.exception, OverflowError)


@pytest.mark.parametrize("parse, error", [(parse_after, ValueError), (parse_wait, ValueError),
                                          (parse_delay, RuleError)])
def test_each_duration_parser_compares_before_it_builds_a_timedelta(parse, error):
    for text in (HUGE, "9" * 400 + "d", "۹۹۹۹۹۹۹۹۹۹۹۹۹۹۹۹۹۹۹۹۹m"):  # Persian digits read as Latin
        with pytest.raises(error):
            parse(text)


def test_one_parser_with_a_floor_and_a_ceiling():
    from datetime import timedelta

    day = timedelta(days=1)
    assert durations.parse(" 90M ", units="mh", bare="h", low=timedelta(0), high=day) == timedelta(minutes=90)
    assert durations.parse("۶", units="mh", bare="h", low=timedelta(0), high=day) == timedelta(hours=6)
    with pytest.raises(durations.OutOfRange) as too_long:
        durations.parse(HUGE, units="mh", bare="h", low=timedelta(0), high=day)
    assert too_long.value.too_long
    with pytest.raises(durations.NotADuration):
        durations.parse("6", units="mh", bare=None, low=timedelta(0), high=day)
    with pytest.raises(durations.NotADuration):
        durations.parse("6x", units="mh", bare="h", low=timedelta(0), high=day)
