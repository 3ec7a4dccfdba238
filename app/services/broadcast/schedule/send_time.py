"""Send times of scheduled broadcasts (pure): Tehran wall time in, naive UTC out, both calendars back.

Admins type a Tehran date and time with Persian, Arabic-Indic or Latin digits,
in the Solar Hijri (1405/10/03 21:00) or the Gregorian calendar (2026-12-24
21:00); a 4-digit year below 1700 is Solar Hijri. Everything stored is UTC.
"""
from __future__ import annotations

import re
from datetime import datetime, time, timedelta, timezone
from zoneinfo import ZoneInfo

import jdatetime

from app.texts import t

TEHRAN = ZoneInfo("Asia/Tehran")
PRESETS = ("hour", "tonight", "tomorrow")
# The "tonight" and "tomorrow" presets' Tehran times, as their buttons name them (app/texts/schedule.py).
TONIGHT_AT, TOMORROW_AT = time(21, 0), time(9, 0)
# A year this far ahead is a typo (1505 for 1405), not a plan.
MAX_AHEAD = timedelta(days=366)
# A year below this is Jalali (now about 1405), one above it Gregorian (now about 2026).
JALALI_BEFORE = 1700
_DIGITS = str.maketrans("۰۱۲۳۴۵۶۷۸۹٠١٢٣٤٥٦٧٨٩", "0123456789" * 2)
_PERSIAN = str.maketrans("0123456789", "۰۱۲۳۴۵۶۷۸۹")
_DATE_TIME = re.compile(
    r"(?P<y>\d{4})\s*[/.-]\s*(?P<m>\d{1,2})\s*[/.-]\s*(?P<d>\d{1,2})"
    r"(?:\s*T\s*|\s+)(?P<H>\d{1,2})\s*:\s*(?P<M>\d{2})(?:\s*:\s*(?P<S>\d{2}))?", re.ASCII)
_TIME_ONLY = re.compile(r"(?P<H>\d{1,2})\s*:\s*(?P<M>\d{2})(?:\s*:\s*(?P<S>\d{2}))?", re.ASCII)
# Words an admin may put between date and time ("1405/10/03 ساعت 21:00").
_FILLER = re.compile(r"\s*(?:ساعت|at)\s*", re.IGNORECASE)


class SendTimeError(ValueError):
    """A send time that cannot be used; key and values name the text that explains it."""

    def __init__(self, key: str, **values):
        super().__init__(key)
        self.key = key
        self.values = values

    def text(self, lang: str) -> str:
        """Return the explanation in lang, times shown in Tehran in both calendars."""
        values = {k: describe(v, lang) if isinstance(v, datetime) else v for k, v in self.values.items()}
        return t(self.key, lang, **values)


def latin_digits(text: str) -> str:
    """Write Persian and Arabic-Indic digits as Latin ones."""
    return text.translate(_DIGITS)


def normalize(text: str) -> str:
    """Turn Persian and Arabic-Indic digits into Latin ones and tidy separators and spaces."""
    text = text.translate(_DIGITS).replace("٫", ":").replace("：", ":").replace("\u200c", " ")
    text = _FILLER.sub(" ", text)
    return " ".join(text.split())


def parse_send_time(text: str | None, now: datetime) -> datetime:
    """Parse an admin's Tehran date and time (or a time alone: today) into naive UTC after now."""
    raw = normalize(text or "")
    if match := _DATE_TIME.fullmatch(raw):
        day = _calendar_date(int(match["y"]), int(match["m"]), int(match["d"]))
    elif match := _TIME_ONLY.fullmatch(raw):
        day = to_tehran(now).date()
    else:
        raise SendTimeError("sched_err_format")
    hour, minute, second = int(match["H"]), int(match["M"]), int(match["S"] or 0)
    if hour > 23 or minute > 59 or second > 59:
        raise SendTimeError("sched_err_time")
    local = datetime.combine(day, time(hour, minute, second), tzinfo=TEHRAN)
    return check_future(_to_utc(local, now), now)


def _calendar_date(year: int, month: int, day: int):
    """Return the Gregorian date of a Solar Hijri or Gregorian year/month/day, or raise."""
    try:
        if year < JALALI_BEFORE:
            return jdatetime.date(year, month, day).togregorian()
        return datetime(year, month, day).date()
    except ValueError:
        raise SendTimeError("sched_err_date", year=year, month=month, day=day) from None


def parse_iso(text: str, now: datetime) -> datetime:
    """Parse the CLI's ISO 8601 time (no offset: Tehran) into naive UTC after now."""
    try:
        value = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError:
        raise SendTimeError("sched_err_iso") from None
    if value.tzinfo is None:
        value = value.replace(tzinfo=TEHRAN)
    return check_future(_to_utc(value, now).replace(microsecond=0), now)


def _to_utc(value: datetime, now: datetime) -> datetime:
    """Return an aware time as naive UTC, or raise when UTC cannot hold it (9999-12-31T23:59-05:00)."""
    try:
        return value.astimezone(timezone.utc).replace(tzinfo=None)
    except (OverflowError, ValueError):
        raise out_of_range(now) from None


def preset_time(name: str, now: datetime) -> datetime:
    """Return a preset's send time: in one hour, tonight 21:00 or tomorrow 09:00 (Tehran)."""
    local_now = to_tehran(now)
    if name == "hour":
        return check_future((now + timedelta(hours=1)).replace(microsecond=0), now)
    if name == "tonight":
        local = datetime.combine(local_now.date(), TONIGHT_AT, tzinfo=TEHRAN)
    elif name == "tomorrow":
        local = datetime.combine(local_now.date() + timedelta(days=1), TOMORROW_AT, tzinfo=TEHRAN)
    else:
        raise ValueError(f"unknown preset {name!r}")
    return check_future(local.astimezone(timezone.utc).replace(tzinfo=None), now)


def check_future(send_at: datetime, now: datetime) -> datetime:
    """Return send_at (rounded up to a whole second, as MySQL stores it) if after now and within MAX_AHEAD."""
    if send_at.microsecond:
        send_at = send_at.replace(microsecond=0) + timedelta(seconds=1)
    if (send_at <= now or send_at - now > MAX_AHEAD) and not describable(send_at):
        raise out_of_range(now)  # a year the calendars cannot even show (before 622, after 9377 Solar Hijri)
    if send_at <= now:
        raise SendTimeError("sched_err_past", when=send_at, now=now)
    if send_at - now > MAX_AHEAD:
        raise SendTimeError("sched_err_far", when=send_at)
    return send_at


def out_of_range(now: datetime) -> SendTimeError:
    """Return the refusal of a time outside what can be scheduled, naming the latest time that can."""
    return SendTimeError("sched_err_range", latest=(now + MAX_AHEAD).replace(microsecond=0))


def describable(utc: datetime) -> bool:
    """Tell whether describe() can show the time in both calendars."""
    try:
        describe(utc, "en")
    except (OverflowError, ValueError):
        return False
    return True


def to_tehran(utc: datetime) -> datetime:
    """Return a naive UTC time as an aware Tehran time."""
    return utc.replace(tzinfo=timezone.utc).astimezone(TEHRAN)


def to_persian_digits(text: str) -> str:
    """Write Latin digits as Persian ones."""
    return text.translate(_PERSIAN)


def describe(utc: datetime, lang: str) -> str:
    """Render a UTC time in Tehran in both calendars, e.g. 1405/10/03 21:00 and 2026-12-24 21:00."""
    local = to_tehran(utc)
    jalali = jdatetime.date.fromgregorian(date=local.date()).strftime("%Y/%m/%d")
    clock = local.strftime("%H:%M:%S" if local.second else "%H:%M")
    gregorian = local.strftime("%Y-%m-%d")
    if lang == "fa":
        return f"{to_persian_digits(jalali)} ساعت {to_persian_digits(clock)} به وقت تهران ({gregorian} {clock})"
    return f"{gregorian} {clock} Tehran time ({jalali} {clock} Solar Hijri)"


def tehran_minute(utc: datetime | None) -> str:
    """Render a naive UTC time as Tehran wall time to the minute, "2026-12-24 21:00" ("-" for none)."""
    return to_tehran(utc).strftime("%Y-%m-%d %H:%M") if utc else "-"


def tehran_iso(utc: datetime | None) -> str | None:
    """Render a naive UTC time as ISO 8601 in Tehran time (with its +03:30 offset)."""
    return to_tehran(utc).isoformat(timespec="seconds") if utc else None
