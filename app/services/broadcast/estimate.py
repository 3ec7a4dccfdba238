"""How long a new broadcast would take at the current budget, queue included (pure arithmetic plus one read)."""
from __future__ import annotations

import math

from app.repository import broadcast_jobs as jobs_repo
from app.services.broadcast.send_time import to_persian_digits
from app.texts import t


def send_rate(settings: dict, paid: bool) -> float:
    """Return the messages per second a job sends at: paid has its own lane, free shares the bot-wide cap."""
    if paid:
        return float(settings["broadcast_paid_rate_per_second"])
    return float(min(settings["broadcast_rate_per_second"], settings["telegram_rate_per_second"]))


def estimate_seconds(count: int, paid: bool, settings: dict, ahead: dict[bool, int]) -> float:
    """Return seconds until count recipients are sent, after the items of jobs ahead of it."""
    waiting = sum(n / send_rate(settings, job_paid) for job_paid, n in ahead.items())
    return waiting + count / send_rate(settings, paid)


def pending_ahead() -> dict[bool, int]:
    """Return the items queued and running jobs still have to send, by paid flag."""
    return jobs_repo.pending_ahead()


def format_estimate(seconds: float, lang: str) -> str:
    """Render a duration as "≈ 12 min" / "≈ ۱۲ دقیقه" (seconds under a minute, hours and minutes past one)."""
    seconds = max(math.ceil(seconds), 1)
    if seconds < 60:
        text = t("dur_seconds", lang, n=seconds)
    elif seconds < 3600:
        text = t("dur_minutes", lang, n=math.ceil(seconds / 60))
    else:
        hours, minutes = divmod(math.ceil(seconds / 60), 60)
        text = t("dur_hours", lang, h=hours, m=minutes)
    return "≈ " + (to_persian_digits(text) if lang == "fa" else text)
