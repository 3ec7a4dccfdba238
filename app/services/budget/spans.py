"""An album on the bot-wide lane: the slots one call of k messages books, and which of them it goes at."""
from __future__ import annotations


def span_for(parts: int) -> int:
    """Return the bot-wide slots one call of ``parts`` messages books: 2k - 1, so it can go at the middle.

    An album's k parts all arrive at once: with k - 1 empty slots on each side
    of its k, whichever way a 1 s window cuts the span it holds at least as many
    slots as the album puts parts in it, so arrivals stay within cap + 1.
    """
    return 2 * max(parts, 1) - 1


def send_slots(slots: list[float], parts: int) -> list[float]:
    """Return the send time of each span_for(parts)-slot span in consecutive ``slots``: its middle slot."""
    return slots[max(parts, 1) - 1::span_for(parts)]
