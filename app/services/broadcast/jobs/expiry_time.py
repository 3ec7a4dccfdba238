"""Auto-expiry's T: its limits, how it is written and read, and the job columns it gives (pure)."""
from __future__ import annotations

from datetime import datetime, timedelta

from app.services import durations

# The longest T: Telegram deletes a bot's message in a private chat for 48 hours; an hour is left for the pass.
MAX_AFTER = timedelta(hours=47)
MIN_AFTER = timedelta(minutes=1)
TOO_LONG, TOO_SHORT = "at most 47h: Telegram lets a bot delete its messages for 48 hours only", "at least 1m"


def parse_after(text: str) -> timedelta:
    """Return T from "6h", "90m" or "6" (hours); ValueError naming the limit otherwise (durations.parse)."""
    try:
        return durations.parse(text, units="mh", bare="h", low=MIN_AFTER, high=MAX_AFTER)
    except durations.NotADuration:
        raise ValueError(f"{text!r} is not a duration: write it as 6h or 90m") from None
    except durations.OutOfRange as exc:
        raise ValueError(TOO_LONG if exc.too_long else TOO_SHORT) from None


def check_after(after: timedelta) -> None:
    """Raise ValueError unless MIN_AFTER <= T <= MAX_AFTER (Telegram's 48 hours, less an hour for the pass)."""
    if after > MAX_AFTER:
        raise ValueError(TOO_LONG)
    if after < MIN_AFTER:
        raise ValueError(TOO_SHORT)


def format_after(after: timedelta | int) -> str:
    """Render T as "6h" or "90m"."""
    seconds = int(after.total_seconds()) if isinstance(after, timedelta) else int(after)
    return f"{seconds // 3600}h" if seconds % 3600 == 0 else f"{seconds // 60}m"


def expiry_columns(after: timedelta | None, first_copy: datetime) -> dict:
    """Return a new job's expire_after / expire_at for T (none: {}); no copy goes before first_copy.

    first_copy is when the job can send its first copy (now, or its send
    time): no copy can be T old before first_copy + T, so the first pass is
    due then; the pass checks each copy's own deadline.
    """
    if after is None:
        return {}
    check_after(after)
    return {"expire_after": int(after.total_seconds()), "expire_at": first_copy + after}
