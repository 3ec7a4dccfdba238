"""The rate slots one recipient's send takes: the pump's booking rule, shared with the duration estimate (pure)."""
from __future__ import annotations


def span(parts: int) -> int:
    """Return the bot-wide slots a send of `parts` messages books: 2k - 1, its parts at the middle.

    An album's k parts arrive at once, so the pump books k - 1 empty slots on
    each side of its k (see Pump._book_shared): whichever way a 1 s window
    cuts the span, it holds at least as many slots as the album puts parts in it.
    """
    return 2 * parts - 1


def seconds_per_send(parts: int, own_rate: float, lane_rate: float) -> float:
    """Return the seconds one recipient's send takes: a slot of its own rate per part, its span on the lane."""
    return max(parts / own_rate, span(parts) / lane_rate)
