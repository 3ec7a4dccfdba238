"""An A/B test's input rules (pure): 2-5 versions lettered A..E, the test share, the wait before the winner goes.

The versions live in the job's `variants` JSON ({"A": text, "B": text, ...};
what else a version carries, its own buttons or copied media, in
`ab_content`: ab/specs.py, content/ab_content.py) and each item's `variant`
column holds its recipient's letter, so a version's copies are built by the
per-variant path (content/methods.by_variant), and a retry keeps each
recipient's version.
"""
from __future__ import annotations

from datetime import timedelta

from app.services import durations

LETTERS = "ABCDE"
MIN_VERSIONS, MAX_VERSIONS = 2, len(LETTERS)
MIN_WAIT, MAX_WAIT = timedelta(minutes=10), timedelta(days=7)
# ab_state values: the test waits for its winner; cron found no clear leader and told the admins once
# (an admin picks); the winner job was made (or nobody was left to send it to).
TESTING, ASKED, SENT = "testing", "asked", "sent"
OPEN_STATES = (TESTING, ASKED)


def check_share(share) -> int:
    """Return the test share as a whole percent strictly between 0 and 100, or raise ValueError."""
    try:
        value = int(share)
    except (TypeError, ValueError):
        raise ValueError(f"test share {share!r}: a whole percent such as 10") from None
    if not 1 <= value <= 99:
        raise ValueError(f"test share {value}%: between 1 and 99 (the rest gets the winner)")
    return value


def parse_wait(text: str) -> timedelta:
    """Return the wait before the winner goes from "2h", "90m" or "1d" (10 minutes to 7 days), or raise ValueError."""
    try:
        return durations.parse(text, units="mhd", bare=None, low=MIN_WAIT, high=MAX_WAIT)
    except durations.NotADuration:
        raise ValueError(f"{text!r} is not a wait: write it as 2h, 90m or 1d") from None
    except durations.OutOfRange:
        raise ValueError(f"{text!r}: a wait of 10m to 7d") from None


def sample_size(audience: int, share: int) -> int:
    """Return the test's recipients: share % of the audience, rounded half up (integer arithmetic, no float)."""
    return (audience * share + 50) // 100
