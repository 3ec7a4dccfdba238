"""A recurring broadcast's series (pure): its occurrences within an end and a count, and what a due one releases.

The count counts the rule's occurrences, sent or skipped, so a series ends on
a date known in advance whatever cron did. An occurrence more than the grace
late was missed (cron was down over it): several missed ones collapse into at
most one sent, the latest, under "send"; under "skip" none is sent. Either way
every occurrence not sent is recorded as skipped, and the series moves on to
its first occurrence after now.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from app.services.broadcast.schedule.recurrence import Rule

IF_MISSED = ("send", "skip")
# Occurrences recorded one by one per release; beyond this (a daily rule after years without cron) only counted.
MAX_RECORDED = 400


@dataclass(frozen=True)
class Series:
    """A rule with its end: occurrences before until (naive UTC, exclusive) and at most count of them."""

    rule: Rule
    until: datetime | None = None
    count: int | None = None

    def following(self, after: datetime, done: int) -> datetime | None:
        """Return the occurrence after `after`, given `done` occurrences so far; None once the series is over."""
        if self.count is not None and done >= self.count:
            return None
        at = self.rule.next_after(after)
        return None if self.until is not None and at >= self.until else at

    def first(self, now: datetime) -> datetime | None:
        """Return the series' first occurrence after now (None: it would never occur)."""
        return self.following(now, 0)

    def upcoming(self, start: datetime | None, done: int, n: int) -> list[datetime]:
        """Return up to n occurrences from start (the next one) on."""
        found = []
        while start is not None and len(found) < n:
            found.append(start)
            start = self.following(start, done + len(found))
        return found


@dataclass(frozen=True)
class Release:
    """What one due series does now: the occurrence it sends (if any), those it skips, and its next one."""

    send: datetime | None
    skipped: tuple[datetime, ...]
    skipped_total: int
    next_at: datetime | None

    @property
    def occurrences(self) -> int:
        """Return how many occurrences this release uses up (sent and skipped)."""
        return self.skipped_total + (self.send is not None)


def plan(series: Series, due: datetime, done: int, now: datetime, if_missed: str, grace: timedelta) -> Release:
    """Decide what a series whose occurrence `due` has come (due <= now) does at now, `done` occurrences before."""
    passed, latest, total = [], due, 1
    following = series.following(due, done + 1)
    while following is not None and following <= now:
        if len(passed) < MAX_RECORDED:
            passed.append(latest)
        latest, total = following, total + 1
        following = series.following(latest, done + total)
    missed = now - latest > grace
    send = None if missed and if_missed == "skip" else latest
    skipped = tuple(passed) + (() if send else (latest,))
    return Release(send, skipped, total - (send is not None), following)
