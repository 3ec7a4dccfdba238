"""Durations typed by an admin (pure): "90m", "6h", "3d", one parser with a floor and a ceiling for every option.

The number is compared with the ceiling as a whole number of seconds before
any timedelta is made: "99999999999999999999h" is refused as too long in one
line, never an OverflowError. Persian and Arabic-Indic digits read as Latin.
Each caller keeps its own words for the refusals (OutOfRange says which end).
"""
from __future__ import annotations

import re
from datetime import timedelta

from app.services.broadcast.schedule.send_time import latin_digits

SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86400}
_DURATION = re.compile(r"(\d+)\s*([a-z]?)", re.ASCII)


class NotADuration(ValueError):
    """The text is not a number with one of the allowed units."""


class OutOfRange(ValueError):
    """The duration is below the floor (too_long False) or above the ceiling (too_long True)."""

    def __init__(self, too_long: bool):
        super().__init__("too long" if too_long else "too short")
        self.too_long = too_long


def parse(text: str | None, *, units: str, bare: str | None, low: timedelta, high: timedelta) -> timedelta:
    """Return the duration text names, within [low, high]; raise NotADuration or OutOfRange.

    units: the unit letters allowed ("mh"); bare: the unit of a number with
    none ("h"), or None when a unit is required.
    """
    match = _DURATION.fullmatch(latin_digits(text or "").strip().lower())
    unit = (match.group(2) or bare) if match else None
    if unit is None or unit not in units:
        raise NotADuration(text)
    seconds = int(match.group(1)) * SECONDS[unit]
    if seconds > high.total_seconds():
        raise OutOfRange(too_long=True)
    if seconds < low.total_seconds():
        raise OutOfRange(too_long=False)
    return timedelta(seconds=seconds)
