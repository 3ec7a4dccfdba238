"""Bot statistics for admins: the user population and how it changes (UTC days)."""
from __future__ import annotations

from datetime import datetime, timedelta

from app.clock import utcnow
from app.extensions import db
from app.repository import users as users_repo

# /stats and `flask stats` list this many sources, the largest first.
TOP_SOURCES = 10
# Order of the keys in /stats and `flask stats`.
KEYS = ("users", "active_7d", "active_30d", "blocked", "opted_out", "channel_members", "new_today", "new_week")


def user_stats(now: datetime | None = None) -> dict[str, int]:
    """Return the population counts: "today" starts at 00:00 UTC, "week" is the last 7 days."""
    now = now or utcnow()
    today = now.replace(hour=0, minute=0, second=0, microsecond=0)
    counts = users_repo.population_counts(active_7d=now - timedelta(days=7), active_30d=now - timedelta(days=30),
                                          today=today, week=now - timedelta(days=7))
    db.session.commit()
    return {key: counts[key] for key in KEYS}


def source_stats(now: datetime | None = None, limit: int = TOP_SOURCES) -> list[dict]:
    """Return the top first sources: users, joined in the last 7 / 30 days, still subscribed.

    Still subscribed: neither blocked nor opted out, so a broadcast to the source reaches them.
    """
    now = now or utcnow()
    rows = users_repo.source_counts(week=now - timedelta(days=7), month=now - timedelta(days=30), limit=limit)
    db.session.commit()
    return rows
