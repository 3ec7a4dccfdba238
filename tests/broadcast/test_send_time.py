"""The send-time parser (pure): Tehran wall time in either calendar and any digits, UTC out."""
from datetime import datetime, timedelta

import pytest

from app.services.broadcast.schedule.send_time import (
    PRESETS,
    SendTimeError,
    describe,
    normalize,
    parse_iso,
    parse_send_time,
    preset_time,
    tehran_iso,
)
from app.texts import t

# 2026-12-01 12:00 UTC is 15:30 in Tehran (UTC+03:30 all year: Iran has no DST since 2022).
NOW = datetime(2026, 12, 1, 12, 0)
CHRISTMAS_EVE_21_TEHRAN = datetime(2026, 12, 24, 17, 30)  # 1405/10/03 21:00 Tehran, in UTC


@pytest.mark.parametrize("typed", [
    "1405/10/03 21:00",
    "۱۴۰۵/۱۰/۰۳ ۲۱:۰۰",            # Persian digits
    "١٤٠٥/١٠/٠٣ ٢١:٠٠",            # Arabic-Indic digits
    "۱۴۰۵/۱۰/۰۳ ساعت ۲۱:۰۰",       # with the word "ساعت"
    "1405-10-3 21:00",
    "  1405 / 10 / 03   21 : 00  ",
    "۱۴۰۵/10/۰۳ 21:۰۰",            # mixed digits
    "2026-12-24 21:00",            # Gregorian
    "2026/12/24 21:00",
    "2026-12-24T21:00",
    "۲۰۲۶-۱۲-۲۴ ۲۱:۰۰",            # Gregorian in Persian digits
    "2026-12-24 at 21:00",
])
def test_the_same_tehran_time_in_both_calendars_and_all_digits(typed):
    assert parse_send_time(typed, NOW) == CHRISTMAS_EVE_21_TEHRAN


def test_jalali_and_gregorian_differ_where_they_should():
    # Same digits, different calendars: 1405/10/03 is not October 3rd.
    assert parse_send_time("1405/10/03 21:00", NOW) != parse_send_time("2026/10/03 21:00", datetime(2026, 9, 1))
    assert parse_send_time("1405/01/01 00:00", datetime(2026, 3, 1)) == datetime(2026, 3, 20, 20, 30)


def test_seconds_and_a_time_alone():
    assert parse_send_time("2026-12-24 21:00:15", NOW) == CHRISTMAS_EVE_21_TEHRAN + timedelta(seconds=15)
    assert parse_send_time("۲۱:۳۰", NOW) == datetime(2026, 12, 1, 18, 0)  # today, Tehran
    assert parse_send_time("15:30:01", NOW) == NOW + timedelta(seconds=1)


def test_a_time_alone_is_on_tehran_s_date_when_utc_s_is_still_the_day_before():
    late_utc = datetime(2026, 12, 1, 21, 0)  # already 2026-12-02 00:30 in Tehran
    assert parse_send_time("21:30", late_utc) == datetime(2026, 12, 2, 18, 0)  # 2026-12-02 21:30 Tehran
    assert parse_send_time("00:45", late_utc) == datetime(2026, 12, 1, 21, 15)  # 2026-12-02 00:45 Tehran


@pytest.mark.parametrize("typed, key", [
    ("", "sched_err_format"),
    (None, "sched_err_format"),
    ("فردا", "sched_err_format"),
    ("tomorrow 9", "sched_err_format"),
    ("1405/10/03", "sched_err_format"),         # no time
    ("05/10/03 21:00", "sched_err_format"),     # two-digit year
    ("1405/10/03 21", "sched_err_format"),
    ("1405/10/03 21:00 PM", "sched_err_format"),
    ("1405/13/01 21:00", "sched_err_date"),
    ("1405/12/31 10:00", "sched_err_date"),     # 1405 is not a leap year
    ("1405/07/31 10:00", "sched_err_date"),     # the second half-year has 30-day months
    ("2027-02-29 10:00", "sched_err_date"),
    ("2026-12-24 24:00", "sched_err_time"),
    ("2026-12-24 21:60", "sched_err_time"),
    ("2026-12-24 21:00:61", "sched_err_time"),
    ("1405/09/10 15:29", "sched_err_past"),     # a minute ago, Tehran
    ("15:30", "sched_err_past"),                # exactly now is not ahead
    ("2025-12-24 21:00", "sched_err_past"),
    ("1404/10/03 21:00", "sched_err_past"),
    ("1406/10/03 21:00", "sched_err_far"),      # a typo'd year a year ahead
])
def test_bad_input_gets_a_clear_error(typed, key):
    with pytest.raises(SendTimeError) as err:
        parse_send_time(typed, NOW)
    assert err.value.key == key
    for lang in ("fa", "en"):
        text = err.value.text(lang)
        assert text.startswith("❌") and "{" not in text


def test_the_past_error_shows_both_times_in_both_calendars():
    with pytest.raises(SendTimeError) as err:
        parse_send_time("1405/09/10 10:00", NOW)
    assert err.value.text("fa") == t("sched_err_past", "fa",
                                     when="۱۴۰۵/۰۹/۱۰ ساعت ۱۰:۰۰ به وقت تهران (2026-12-01 10:00)",
                                     now="۱۴۰۵/۰۹/۱۰ ساعت ۱۵:۳۰ به وقت تهران (2026-12-01 15:30)")
    assert "2026-12-01 10:00 Tehran time (1405/09/10 10:00 Solar Hijri)" in err.value.text("en")


def test_describe_shows_both_calendars():
    assert describe(CHRISTMAS_EVE_21_TEHRAN, "fa") == "۱۴۰۵/۱۰/۰۳ ساعت ۲۱:۰۰ به وقت تهران (2026-12-24 21:00)"
    assert describe(CHRISTMAS_EVE_21_TEHRAN, "en") == "2026-12-24 21:00 Tehran time (1405/10/03 21:00 Solar Hijri)"
    assert tehran_iso(CHRISTMAS_EVE_21_TEHRAN) == "2026-12-24T21:00:00+03:30"
    assert tehran_iso(None) is None


def test_normalize_digits_and_separators():
    assert normalize("۰۱۲۳۴۵۶۷۸۹ ٠١٢٣٤٥٦٧٨٩") == "0123456789 0123456789"
    assert normalize("۲۱٫۳۰") == "21:30"


@pytest.mark.parametrize("raw, expected", [
    ("2026-12-24T21:00+03:30", CHRISTMAS_EVE_21_TEHRAN),
    ("2026-12-24T21:00", CHRISTMAS_EVE_21_TEHRAN),        # no offset: Tehran
    ("2026-12-24 21:00", CHRISTMAS_EVE_21_TEHRAN),
    ("2026-12-24T17:30Z", CHRISTMAS_EVE_21_TEHRAN),
    ("2026-12-24T17:30:00+00:00", CHRISTMAS_EVE_21_TEHRAN),
    ("2026-12-24T21:00:00.900+03:30", CHRISTMAS_EVE_21_TEHRAN),  # fractions dropped
])
def test_cli_iso_times(raw, expected):
    assert parse_iso(raw, NOW) == expected


@pytest.mark.parametrize("raw, key", [
    ("24/12/2026 21:00", "sched_err_iso"), ("1405-10-03T21:00", "sched_err_past"), ("", "sched_err_iso"),
    ("2026-11-30T21:00+03:30", "sched_err_past"), ("2026-12-24T21:00+25:00", "sched_err_iso"),
])
def test_cli_iso_refusals(raw, key):
    with pytest.raises(SendTimeError) as err:
        parse_iso(raw, NOW)
    assert err.value.key == key


def test_presets_are_tehran_times():
    assert preset_time("hour", NOW) == NOW + timedelta(hours=1)
    assert preset_time("tonight", NOW) == datetime(2026, 12, 1, 17, 30)    # 21:00 Tehran
    assert preset_time("tomorrow", NOW) == datetime(2026, 12, 2, 5, 30)    # 09:00 Tehran
    # 22:00 in Tehran: "tonight 21:00" has passed; just after midnight Tehran "tomorrow" is the next day.
    late = datetime(2026, 12, 1, 18, 30)
    with pytest.raises(SendTimeError) as err:
        preset_time("tonight", late)
    assert err.value.key == "sched_err_past"
    assert preset_time("tomorrow", datetime(2026, 12, 1, 20, 31)) == datetime(2026, 12, 3, 5, 30)
    assert set(PRESETS) == {"hour", "tonight", "tomorrow"}


def test_fractions_round_up_to_the_second_mysql_stores():
    from app.services.broadcast.schedule.send_time import check_future

    assert check_future(NOW + timedelta(seconds=5, microseconds=1), NOW) == NOW + timedelta(seconds=6)
    assert check_future(NOW + timedelta(seconds=5), NOW) == NOW + timedelta(seconds=5)
