"""Bot statistics for admins: the user population and how it changes (UTC days).

Counting scans `users`: instant for a small bot, seconds at a million. So the
figures are also kept as a snapshot (table stats_snapshots) that cron's
housekeeping recounts every SNAPSHOT_EVERY; /stats and `flask stats` count
live while the bot has fewer than LIVE_UP_TO_USERS users and otherwise show
the snapshot with its age. No counter is touched by /start: the webhook's
writes stay as cheap as before.
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import datetime, timedelta

from app.clock import utcnow
from app.extensions import db
from app.repository import stats_snapshots
from app.repository import users as users_repo

# /stats and `flask stats` list this many sources, the largest first.
TOP_SOURCES = 10
# Order of the keys in /stats and `flask stats`.
KEYS = ("users", "active_7d", "active_30d", "blocked", "opted_out", "channel_members", "new_today", "new_week")
# Below this many users a live count takes about 0.1 s on either database: /stats counts live and is exact.
LIVE_UP_TO_USERS = 50_000
# Housekeeping recounts a snapshot older than this (one scan of users: seconds at a million users).
SNAPSHOT_EVERY = timedelta(minutes=10)


@dataclass(frozen=True)
class Figures:
    """The counts and top sources as of taken_at; live when counted for this very request."""

    counts: dict
    sources: list
    taken_at: datetime
    live: bool

    def age_minutes(self, now: datetime | None = None) -> int:
        """Whole minutes since the figures were counted."""
        return max(0, int(((now or utcnow()) - self.taken_at).total_seconds() // 60))


def user_stats(now: datetime | None = None) -> dict[str, int]:
    """Count the population now: "today" starts at 00:00 UTC, "week" is the last 7 days."""
    now = now or utcnow()
    today = now.replace(hour=0, minute=0, second=0, microsecond=0)
    counts = users_repo.population_counts(active_7d=now - timedelta(days=7), active_30d=now - timedelta(days=30),
                                          today=today, week=now - timedelta(days=7))
    db.session.commit()
    return {key: counts[key] for key in KEYS}


def source_stats(now: datetime | None = None, limit: int = TOP_SOURCES) -> list[dict]:
    """Count the top first sources now: users, joined in the last 7 / 30 days, still subscribed.

    Still subscribed: neither blocked nor opted out, so a broadcast to the source reaches them.
    """
    now = now or utcnow()
    rows = users_repo.source_counts(week=now - timedelta(days=7), month=now - timedelta(days=30), limit=limit)
    db.session.commit()
    return rows


def refresh(now: datetime | None = None) -> Figures:
    """Count everything now and store it as the snapshot."""
    now = now or utcnow()
    started = time.perf_counter()
    counts, sources = user_stats(now), source_stats(now)
    took_ms = int((time.perf_counter() - started) * 1000)
    stats_snapshots.save(now, took_ms, {"counts": counts, "sources": sources})
    db.session.commit()
    return Figures(counts, sources, now, live=True)


def figures(now: datetime | None = None) -> Figures:
    """Return what /stats shows: a live count for a small bot (or before any snapshot), else the snapshot."""
    snapshot = stats_snapshots.load()
    db.session.commit()
    if snapshot is None or snapshot[1]["counts"]["users"] < LIVE_UP_TO_USERS:
        return refresh(now)
    taken_at, stored = snapshot
    return Figures(stored["counts"], stored["sources"], taken_at, live=False)


def refresh_if_due(now: datetime | None = None) -> bool:
    """Recount the snapshot when there is none or it is SNAPSHOT_EVERY old (cron's housekeeping); True when done."""
    now = now or utcnow()
    snapshot = stats_snapshots.load()
    db.session.commit()
    if snapshot is not None and now - snapshot[0] < SNAPSHOT_EVERY:
        return False
    refresh(now)
    return True
