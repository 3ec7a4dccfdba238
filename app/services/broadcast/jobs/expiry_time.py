"""Auto-expiry's T: its limits, how it is written and read, and the job columns it gives (pure)."""
from __future__ import annotations

import re
from datetime import datetime, timedelta

# The longest T: Telegram deletes a bot's message in a private chat for 48 hours; an hour is left for the pass.
MAX_AFTER = timedelta(hours=47)
MIN_AFTER = timedelta(minutes=1)
_DURATION = re.compile(r"^\s*(\d+)\s*([hm]?)\s*$", re.IGNORECASE)


def parse_after(text: str) -> timedelta:
    """Return T from "6h", "90m" or "6" (hours); ValueError naming the limit otherwise."""
    match = _DURATION.match(text or "")
    if not match:
        raise ValueError(f"{text!r} is not a duration: write it as 6h or 90m")
    n, unit = int(match.group(1)), match.group(2).lower()
    after = timedelta(minutes=n) if unit == "m" else timedelta(hours=n)
    check_after(after)
    return after


def check_after(after: timedelta) -> None:
    """Raise ValueError unless MIN_AFTER <= T <= MAX_AFTER (Telegram's 48 hours, less an hour for the pass)."""
    if after > MAX_AFTER:
        raise ValueError("at most 47h: Telegram lets a bot delete its messages for 48 hours only")
    if after < MIN_AFTER:
        raise ValueError("at least 1m")


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
