"""Recurrence rules (pure): read "daily 09:00", "weekly sat,tue 10:00", "monthly 1 09:00"; find the next occurrence.

Times are Tehran wall times (Iran has kept +03:30 all year since 2022; zoneinfo
knows the older summers). "monthly D" counts Solar Hijri month days and
"monthly-g D" Gregorian ones; a month shorter than D is clamped to its last day
("monthly 31" is the last day of every month, Esfand's 29th or 30th included),
so every month has exactly one occurrence. Everything returned is naive UTC.
"""
from __future__ import annotations

import calendar
import re
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta, timezone

import jdatetime

from app.services.broadcast.schedule.send_time import TEHRAN, latin_digits, to_tehran

DAILY, WEEKLY, MONTHLY, MONTHLY_G = "daily", "weekly", "monthly", "monthly-g"
KINDS = {"daily": DAILY, "روزانه": DAILY, "weekly": WEEKLY, "هفتگی": WEEKLY, "monthly": MONTHLY,
         "ماهانه": MONTHLY, "monthly-g": MONTHLY_G}
# Python's weekday numbers (Monday 0); the Iranian week starts on Saturday, so names are listed from it.
DAY_NAMES = ("sat", "sun", "mon", "tue", "wed", "thu", "fri")
_WEEKDAY = {name: (5 + i) % 7 for i, name in enumerate(DAY_NAMES)}
_FULL = ("saturday", "sunday", "monday", "tuesday", "wednesday", "thursday", "friday")
_PERSIAN_DAYS = ("شنبه", "یکشنبه", "دوشنبه", "سهشنبه", "چهارشنبه", "پنجشنبه", "جمعه")
_DAY_WORDS = {**_WEEKDAY, **{full: _WEEKDAY[short] for full, short in zip(_FULL, DAY_NAMES, strict=True)},
              **{fa: _WEEKDAY[short] for fa, short in zip(_PERSIAN_DAYS, DAY_NAMES, strict=True)}}
LAST_DAY = 31  # "monthly last": clamped to every month's last day
_LAST_WORDS = ("last", "آخر")
_RULE = re.compile(r"(?P<kind>\S+)(?:\s+(?P<mid>.*?))?\s+(?P<H>\d{1,2}):(?P<M>\d{2})")
# Every rule occurs at least once a month: a longer search means a bug, not a rare date.
SEARCH_DAYS = 70


class RuleError(ValueError):
    """A rule, end date or count that cannot be used; key and values name the text that explains it."""

    def __init__(self, key: str, **values):
        super().__init__(key)
        self.key = key
        self.values = values


@dataclass(frozen=True)
class Rule:
    """When a recurring broadcast occurs: its kind, weekdays or month day, and Tehran time."""

    kind: str
    at: time
    weekdays: tuple[int, ...] = ()
    day: int | None = None

    @property
    def text(self) -> str:
        """Return the rule's canonical form, as stored and shown ("weekly sat,tue 10:00")."""
        clock = f"{self.at:%H:%M}"
        if self.kind == WEEKLY:
            names = [n for n in DAY_NAMES if _WEEKDAY[n] in self.weekdays]
            return f"weekly {','.join(names)} {clock}"
        if self.kind in (MONTHLY, MONTHLY_G):
            return f"{self.kind} {'last' if self.day == LAST_DAY else self.day} {clock}"
        return f"daily {clock}"

    def occurs_on(self, day: date) -> bool:
        """Tell whether the rule has an occurrence on this Tehran (Gregorian) date."""
        if self.kind == WEEKLY:
            return day.weekday() in self.weekdays
        if self.kind == MONTHLY:
            jday = jdatetime.date.fromgregorian(date=day)
            return jday.day == min(self.day, jalali_month_days(jday.year, jday.month))
        if self.kind == MONTHLY_G:
            return day.day == min(self.day, calendar.monthrange(day.year, day.month)[1])
        return True

    def next_after(self, after: datetime) -> datetime:
        """Return the first occurrence strictly after `after` (both naive UTC)."""
        start = to_tehran(after).date()
        for offset in range(SEARCH_DAYS):
            day = start + timedelta(days=offset)
            if self.occurs_on(day):
                at = datetime.combine(day, self.at, tzinfo=TEHRAN).astimezone(timezone.utc).replace(tzinfo=None)
                if at > after:
                    return at
        raise AssertionError(f"{self.text}: no occurrence within {SEARCH_DAYS} days of {after}")


def jalali_month_days(year: int, month: int) -> int:
    """Return the days of a Solar Hijri month (Esfand: 30 in a leap year, else 29)."""
    if month <= 6:
        return 31
    if month <= 11:
        return 30
    return 30 if jdatetime.date(year, 1, 1).isleap() else 29


def _key(word: str) -> str:
    """Fold a day word: lower case, Arabic letters as Persian, no spaces or zero-width non-joiners."""
    return word.lower().replace("ي", "ی").replace("ك", "ک").replace("\u200c", "").replace(" ", "")


def parse_rule(text: str | None) -> Rule:
    """Parse an admin's rule (Persian or Latin digits and words) or raise RuleError."""
    match = _RULE.fullmatch(" ".join(latin_digits(text or "").split()))
    kind = KINDS.get(_key(match["kind"])) if match else None
    if kind is None:
        raise RuleError("rec_err_format")
    hour, minute = int(match["H"]), int(match["M"])
    if hour > 23 or minute > 59:
        raise RuleError("sched_err_time")
    at, mid = time(hour, minute), (match["mid"] or "").strip()
    if (kind == DAILY) == bool(mid):  # daily takes nothing between it and the time; the others need their days
        raise RuleError("rec_err_format")
    if kind == DAILY:
        return Rule(DAILY, at)
    if kind == WEEKLY:
        return Rule(WEEKLY, at, weekdays=_weekdays(mid))
    return Rule(kind, at, day=_month_day(mid))


def _weekdays(words: str) -> tuple[int, ...]:
    """Read "sat,tue" (or Persian names, comma or Persian comma) into sorted weekday numbers."""
    days = set()
    for word in re.split(r"[,،]", words):
        if _key(word) not in _DAY_WORDS:
            raise RuleError("rec_err_weekday", word=word.strip() or "-")
        days.add(_DAY_WORDS[_key(word)])
    return tuple(sorted(days))


def _month_day(word: str) -> int:
    """Read a day of the month, 1 to 31 or "last"."""
    if _key(word) in _LAST_WORDS:
        return LAST_DAY
    if not word.isdigit() or not 1 <= int(word) <= LAST_DAY:
        raise RuleError("rec_err_month_day", word=word or "-")
    return int(word)


def parse_end_date(text: str) -> date:
    """Parse an end date, Solar Hijri (1405-12-29) or Gregorian (2027-03-19), into its Gregorian date."""
    match = re.fullmatch(r"(\d{4})\s*[/.-]\s*(\d{1,2})\s*[/.-]\s*(\d{1,2})", latin_digits(text or "").strip())
    if not match:
        raise RuleError("rec_err_until_format")
    year, month, day = (int(g) for g in match.groups())
    try:
        if year < 1700:  # as send_time reads years: below this, Solar Hijri
            return jdatetime.date(year, month, day).togregorian()
        return date(year, month, day)
    except ValueError:
        raise RuleError("sched_err_date", year=year, month=month, day=day) from None


def end_bound(last_day: date) -> datetime:
    """Return the naive UTC instant an end date's Tehran day ends (occurrences must come before it)."""
    midnight = datetime.combine(last_day + timedelta(days=1), time(0), tzinfo=TEHRAN)
    return midnight.astimezone(timezone.utc).replace(tzinfo=None)
