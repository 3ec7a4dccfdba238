"""How long a copy whose answer was lost may still land, and so how long it holds unsends and edits.

A copy given up on (unknown) may still reach its chat: Telegram can process
a request after we stopped waiting for its answer, and a pump that stalled
past its lease may still hear back. For LANDING_WINDOW after an item was
settled unknown, an unsend or edit of its broadcast is refused ("try again
in N s"), and a late answer that still comes in that time is written (the
item becomes sent, with its message id). The two never overlap: a late
answer is taken only up to LATE_ANSWER_MARGIN before the window closes, so
an action accepted after it can miss no copy that is still to be recorded.
"""
from __future__ import annotations

from datetime import datetime, timedelta

# No copy waits more than a minute for its answer (telegram_send_read_timeout <= 60), and no
# pump starts a request once its lease may have run out (Lease.fresh): an item is settled
# unknown when its wait ends, or once its pump's lease is dead, so its request has been out
# at most a minute by then; it lands within a minute after, or never.
LANDING_WINDOW = timedelta(seconds=60)
# A late answer is written only while the window has this much left: the database's clock
# as this process reads it, and the second-precision times of MySQL, are a little off.
LATE_ANSWER_MARGIN = timedelta(seconds=5)


def open_since(now: datetime) -> datetime:
    """Return the earliest settling time of an unknown copy that may still land (it holds actions)."""
    return now - LANDING_WINDOW


def late_answers_since(now: datetime) -> datetime:
    """Return the earliest settling time of an unknown copy whose late answer may still be written."""
    return now - LANDING_WINDOW + LATE_ANSWER_MARGIN
