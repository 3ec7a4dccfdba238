"""A job view's auto-delete line: T, the next pass in Tehran time and the countdown (pure)."""
from __future__ import annotations

from datetime import datetime, timedelta

from app.models.broadcast import BroadcastJob
from app.services.broadcast.schedule.send_time import describe, to_persian_digits
from app.texts import t


def after_text(seconds: int, lang: str) -> str:
    """Render T as "6 h" (or "90 min" when it is not whole hours)."""
    if seconds % 3600:
        return t("expiry_left", lang, h=seconds // 3600, m=seconds % 3600 // 60)
    return _digits(t("expiry_after", lang, h=seconds // 3600), lang)


def next_pass(job: BroadcastJob) -> datetime | None:
    """Return when the next pass can delete a copy: expire_at, not before the first copy is T old."""
    if job.expire_at is None or job.expire_after is None:
        return None
    first = job.started_at + timedelta(seconds=job.expire_after) if job.started_at else job.expire_at
    return max(job.expire_at, first)


def expiry_line(job: BroadcastJob, now: datetime, lang: str) -> str:
    """Return the view's auto-delete line, or "" for a job without one."""
    if job.expire_after is None:
        return ""
    after = after_text(job.expire_after, lang)
    if job.expire_at is None:
        return t("expiry_line_done", lang, after=after)
    if job.started_at is None:
        return t("expiry_line_waiting", lang, after=after)
    due = next_pass(job)
    left = int((due - now).total_seconds())
    if left <= 0:
        return t("expiry_line_now", lang, after=after)
    minutes = (left + 59) // 60
    countdown = _digits(t("expiry_left", lang, h=minutes // 60, m=minutes % 60), lang)
    return t("expiry_line_due", lang, after=after, at=describe(due, lang), left=countdown)


def _digits(text: str, lang: str) -> str:
    """Write a Persian text's digits as Persian ones."""
    return to_persian_digits(text) if lang == "fa" else text
