"""The rate slots one recipient's send takes, for the duration estimate (pure).

The booking rule itself (a span of 2k - 1 slots, the k parts at its middle)
lives with the budget that books it (app.services.telegram_budget.span_for),
used by the pump and the client's album previews alike; this only turns it
into seconds.
"""
from __future__ import annotations

from app.services.telegram_budget import span_for as span

__all__ = ["seconds_per_send", "span"]


def seconds_per_send(parts: int, own_rate: float, lane_rate: float) -> float:
    """Return the seconds one recipient's send takes: a slot of its own rate per part, its span on the lane."""
    return max(parts / own_rate, span(parts) / lane_rate)
