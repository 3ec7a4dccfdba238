"""Quiet hours and the frequency cap's day (pure): Tehran wall time in, naive UTC out.

Both are read in Tehran time, which is what a Persian operator means by "the
night" and "today": Iran keeps no daylight saving time since 2022, so a day
is always 24 hours and a window always as long as it reads. Times come from
the database's clock (a pump's lease clock, cron's db_utcnow), never a server's.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, time, timedelta, timezone

from app.services.broadcast.schedule.send_time import TEHRAN, to_persian_digits


@dataclass(frozen=True)
class Window:
    """A quiet window in Tehran time; end before start wraps past midnight (23:00 to 08:00)."""

    start: time
    end: time

    def label(self) -> str:
        """Return "23:00–08:00" (Latin digits; texts turn them Persian)."""
        return f"{self.start:%H:%M}–{self.end:%H:%M}"


def window(settings: dict) -> Window | None:
    """Return the quiet window the settings define, or None when quiet hours are off (either time unset)."""
    start, end = settings.get("quiet_hours_start") or "", settings.get("quiet_hours_end") or ""
    if not start or not end or start == end:
        return None
    return Window(time.fromisoformat(start), time.fromisoformat(end))


def _tehran(now_utc: datetime) -> datetime:
    """Return naive UTC as naive Tehran wall time."""
    return now_utc.replace(tzinfo=timezone.utc).astimezone(TEHRAN).replace(tzinfo=None)


def _wall(now_utc: datetime) -> datetime:
    """Return the Tehran wall time "now" reads as (one seam: tests move it to 23:00 without waiting for night)."""
    return _tehran(now_utc)


def _utc(wall: datetime) -> datetime:
    """Return naive Tehran wall time as naive UTC."""
    return wall.replace(tzinfo=TEHRAN).astimezone(timezone.utc).replace(tzinfo=None)


def quiet_until(w: Window | None, now_utc: datetime) -> datetime | None:
    """Return when the quiet period now_utc falls in ends (naive UTC), or None when now is not quiet."""
    if w is None:
        return None
    wall = _wall(now_utc)
    at = wall.time()
    if w.start < w.end:
        inside = w.start <= at < w.end
        end_day = wall.date()
    else:  # wraps midnight: quiet from start to 24:00 and from 00:00 to end
        inside = at >= w.start or at < w.end
        end_day = wall.date() + timedelta(days=1) if at >= w.start else wall.date()
    if not inside:
        return None
    return _utc(datetime.combine(end_day, w.end))


def holds(settings: dict, urgent: bool, now_utc: datetime) -> datetime | None:
    """Return until when quiet hours hold a job back (naive UTC), or None: it may send now."""
    return None if urgent else quiet_until(window(settings), now_utc)


def tehran_day_start(now_utc: datetime) -> datetime:
    """Return when the Tehran calendar day of now_utc began, as naive UTC (the frequency cap's "today")."""
    return _utc(datetime.combine(_wall(now_utc).date(), time(0, 0)))


def next_tehran_day_start(now_utc: datetime) -> datetime:
    """Return when the Tehran calendar day after now_utc's begins, as naive UTC (a capped chain step's retry)."""
    return _utc(datetime.combine(_wall(now_utc).date() + timedelta(days=1), time(0, 0)))


def tehran_clock(when_utc: datetime) -> str:
    """Return the Tehran wall time of a naive UTC moment as "08:00" (Latin digits)."""
    return f"{_tehran(when_utc):%H:%M}"


def digits(text: str, lang: str) -> str:
    """Return a time text with Persian digits for a Persian reader."""
    return to_persian_digits(text) if lang == "fa" else text
