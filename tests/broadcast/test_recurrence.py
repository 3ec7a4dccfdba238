"""Recurrence rules and series (pure): parsing, next occurrences in Tehran time, Jalali month ends, missed collapse."""
from datetime import date, datetime, timedelta, timezone

import jdatetime
import pytest

from app.services.broadcast.schedule.occurrences import Series, plan
from app.services.broadcast.schedule.recurrence import RuleError, end_bound, parse_end_date, parse_rule
from app.services.broadcast.schedule.send_time import TEHRAN

GRACE = timedelta(minutes=60)


def utc(y, m, d, hh=0, mm=0) -> datetime:
    """A Tehran wall time (Gregorian) as naive UTC."""
    return datetime(y, m, d, hh, mm, tzinfo=TEHRAN).astimezone(timezone.utc).replace(tzinfo=None)


def jutc(y, m, d, hh=0, mm=0) -> datetime:
    """A Tehran wall time (Solar Hijri) as naive UTC."""
    g = jdatetime.date(y, m, d).togregorian()
    return utc(g.year, g.month, g.day, hh, mm)


def chain(rule: str, after: datetime, n: int) -> list[datetime]:
    out, at = [], after
    for _ in range(n):
        at = parse_rule(rule).next_after(at)
        out.append(at)
    return out


@pytest.mark.parametrize("text, canonical", [
    ("daily 09:00", "daily 09:00"), ("  DAILY   9:05 ", "daily 09:05"), ("روزانه ۰۹:۰۰", "daily 09:00"),
    ("weekly sat 10:00", "weekly sat 10:00"), ("weekly tue,sat 10:00", "weekly sat,tue 10:00"),
    ("weekly شنبه،سه‌شنبه 10:00", "weekly sat,tue 10:00"), ("هفتگی سه شنبه ۱۰:۳۰", "weekly tue 10:30"),
    ("weekly Friday,fri 23:59", "weekly fri 23:59"), ("weekly پنجشنبه 08:00", "weekly thu 08:00"),
    ("monthly 1 09:00", "monthly 1 09:00"), ("ماهانه ۳۱ ۲۰:۰۰", "monthly last 20:00"),
    ("monthly-g 15 09:00", "monthly-g 15 09:00"), ("monthly last 20:00", "monthly last 20:00"),
    ("monthly آخر 20:00", "monthly last 20:00"),
])
def test_rules_parse_to_their_canonical_form(text, canonical):
    assert parse_rule(text).text == canonical
    assert parse_rule(canonical).text == canonical  # what is stored reads back the same


@pytest.mark.parametrize("text, key", [
    ("", "rec_err_format"), ("every day 9", "rec_err_format"), ("daily", "rec_err_format"),
    ("daily 24:00", "sched_err_time"), ("daily 09:60", "sched_err_time"), ("daily sat 09:00", "rec_err_format"),
    ("hourly 09:00", "rec_err_format"), ("weekly 10:00", "rec_err_format"), ("weekly xyz 10:00", "rec_err_weekday"),
    ("weekly sat,,tue 10:00", "rec_err_weekday"), ("monthly 0 09:00", "rec_err_month_day"),
    ("monthly 32 09:00", "rec_err_month_day"), ("monthly-g first 09:00", "rec_err_month_day"),
])
def test_bad_rules_are_refused_with_their_reason(text, key):
    with pytest.raises(RuleError) as err:
        parse_rule(text)
    assert err.value.key == key


def test_daily_is_every_day_at_tehran_time_and_strictly_after():
    at = utc(2026, 12, 24, 9, 0)
    assert parse_rule("daily 09:00").next_after(at) == utc(2026, 12, 25, 9, 0)  # strictly after
    assert parse_rule("daily 09:00").next_after(at - timedelta(seconds=1)) == at
    assert at == datetime(2026, 12, 24, 5, 30)  # +03:30 all year (no DST since 2022)
    assert parse_rule("daily 02:00").next_after(datetime(2026, 6, 30, 21, 0)) == datetime(2026, 6, 30, 22, 30)


def test_tehran_has_no_summer_shift_now():
    summer = [at.time() for at in chain("daily 09:00", datetime(2026, 3, 15), 240)]
    assert set(summer) == {datetime(2000, 1, 1, 5, 30).time()}


def test_weekly_names_the_iranian_week():
    friday = utc(2026, 12, 25, 12, 0)  # a Friday
    assert chain("weekly sat,tue 10:00", friday, 4) == [utc(2026, 12, 26, 10), utc(2026, 12, 29, 10),
                                                       utc(2027, 1, 2, 10), utc(2027, 1, 5, 10)]
    assert parse_rule("weekly جمعه 10:00").next_after(friday) == utc(2027, 1, 1, 10)


def test_monthly_is_the_solar_hijri_month_day():
    start = jutc(1405, 1, 15)
    assert chain("monthly 1 09:00", start, 3) == [jutc(1405, 2, 1, 9), jutc(1405, 3, 1, 9), jutc(1405, 4, 1, 9)]


def test_monthly_31_clamps_to_each_jalali_months_last_day():
    got = chain("monthly 31 20:00", jutc(1405, 6, 1), 7)
    assert got == [jutc(1405, 6, 31, 20), jutc(1405, 7, 30, 20), jutc(1405, 8, 30, 20), jutc(1405, 9, 30, 20),
                   jutc(1405, 10, 30, 20), jutc(1405, 11, 30, 20), jutc(1405, 12, 29, 20)]  # 1405: Esfand has 29


def test_esfand_30_exists_only_in_a_leap_year():
    assert parse_rule("monthly 30 09:00").next_after(jutc(1403, 12, 20)) == jutc(1403, 12, 30, 9)  # 1403: leap
    assert parse_rule("monthly 30 09:00").next_after(jutc(1405, 12, 20)) == jutc(1405, 12, 29, 9)  # clamped
    assert parse_rule("monthly last 09:00").next_after(jutc(1408, 12, 29, 10)) == jutc(1408, 12, 30, 9)


def test_monthly_g_is_the_gregorian_month_day_clamped():
    got = chain("monthly-g 31 09:00", utc(2027, 1, 1), 4)
    assert got == [utc(2027, 1, 31, 9), utc(2027, 2, 28, 9), utc(2027, 3, 31, 9), utc(2027, 4, 30, 9)]
    assert parse_rule("monthly-g 29 09:00").next_after(utc(2028, 2, 1)) == utc(2028, 2, 29, 9)  # leap February


def test_end_dates_read_both_calendars_and_refuse_days_that_do_not_exist():
    assert parse_end_date("1405-12-29") == jdatetime.date(1405, 12, 29).togregorian()
    assert parse_end_date("۱۴۰۵/۰۱/۰۱") == date(2026, 3, 21)
    assert parse_end_date("2027-03-19") == date(2027, 3, 19)
    for bad, key in (("1405-12-30", "sched_err_date"), ("2027-02-29", "sched_err_date"),
                     ("1405-13-01", "sched_err_date"), ("tomorrow", "rec_err_until_format")):
        with pytest.raises(RuleError) as err:
            parse_end_date(bad)
        assert err.value.key == key, bad
    assert end_bound(date(2027, 3, 19)) == utc(2027, 3, 20)  # the whole Tehran day is included


def test_a_series_stops_at_its_end_date_or_count():
    rule = parse_rule("daily 09:00")
    until = Series(rule, until=end_bound(date(2027, 1, 2)))
    assert until.upcoming(until.first(utc(2026, 12, 31)), 0, 10) == [utc(2026, 12, 31, 9), utc(2027, 1, 1, 9),
                                                                     utc(2027, 1, 2, 9)]
    counted = Series(rule, count=2)
    assert counted.upcoming(counted.first(utc(2026, 12, 31)), 0, 10) == [utc(2026, 12, 31, 9), utc(2027, 1, 1, 9)]
    assert counted.following(utc(2027, 1, 1, 9), 2) is None
    assert Series(rule, until=end_bound(date(2026, 12, 30))).first(utc(2026, 12, 31)) is None


def test_an_occurrence_on_time_is_sent_and_the_series_moves_on():
    series = Series(parse_rule("daily 09:00"))
    due = utc(2026, 12, 24, 9)
    release = plan(series, due, 0, due + timedelta(seconds=20), "skip", GRACE)
    assert (release.send, release.skipped, release.next_at) == (due, (), utc(2026, 12, 25, 9))


def test_three_missed_days_collapse_into_the_latest_under_send():
    series = Series(parse_rule("daily 09:00"))
    now = utc(2026, 12, 27, 15)  # cron down since the 24th's morning
    release = plan(series, utc(2026, 12, 24, 9), 0, now, "send", GRACE)
    assert release.send == utc(2026, 12, 27, 9)
    assert release.skipped == (utc(2026, 12, 24, 9), utc(2026, 12, 25, 9), utc(2026, 12, 26, 9))
    assert (release.occurrences, release.next_at) == (4, utc(2026, 12, 28, 9))


def test_missed_occurrences_are_all_skipped_under_skip():
    series = Series(parse_rule("daily 09:00"))
    release = plan(series, utc(2026, 12, 24, 9), 0, utc(2026, 12, 27, 15), "skip", GRACE)
    assert release.send is None and len(release.skipped) == release.skipped_total == release.occurrences == 4


def test_under_skip_one_within_the_grace_is_still_sent():
    series = Series(parse_rule("daily 09:00"))
    release = plan(series, utc(2026, 12, 24, 9), 0, utc(2026, 12, 26, 9, 30), "skip", GRACE)
    assert release.send == utc(2026, 12, 26, 9) and release.skipped == (utc(2026, 12, 24, 9), utc(2026, 12, 25, 9))


def test_the_count_bounds_what_a_long_outage_releases():
    series = Series(parse_rule("daily 09:00"), count=3)
    release = plan(series, utc(2026, 12, 24, 9), 1, utc(2026, 12, 30), "send", GRACE)
    assert release.send == utc(2026, 12, 25, 9) and release.skipped == (utc(2026, 12, 24, 9),)
    assert release.next_at is None  # the series is over
