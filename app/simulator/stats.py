"""Counters of what the simulator answered and delivered; callers hold the lock."""

from __future__ import annotations

from collections import Counter, deque
from collections.abc import Hashable


class Stats:
    """Per-method calls, outcomes, 429/5xx kinds, duplicates and the busiest second."""

    def __init__(self) -> None:
        self.calls: Counter[str] = Counter()
        self.ok = 0
        self.rate_limited: Counter[str] = Counter()
        self.faults: Counter[str] = Counter()
        self.errors_4xx: Counter[str] = Counter()
        self.deliveries = 0
        self.paid_deliveries = 0
        self.busiest_second = 0
        self._recent_sends: deque[float] = deque()
        self._content_seen: dict[tuple[int, Hashable], int] = {}
        self._duplicate_chats: set[int] = set()

    def delivered(self, chat_id: int, content_key: Hashable | None, paid: bool,
                  now: float) -> None:
        """Count one delivery; content_key is None for edits."""
        self.deliveries += 1
        if paid:
            self.paid_deliveries += 1
        if content_key is None:
            return
        # Max over windows ending at each send equals the max over all 1 s windows.
        recent = self._recent_sends
        recent.append(now)
        cutoff = now - 1.0
        while recent[0] <= cutoff:
            recent.popleft()
        if len(recent) > self.busiest_second:
            self.busiest_second = len(recent)
        key = (chat_id, content_key)
        seen = self._content_seen.get(key, 0) + 1
        self._content_seen[key] = seen
        if seen == 2:
            self._duplicate_chats.add(chat_id)

    def failed(self, code: int, description: str, kind: str | None) -> None:
        """Count one error answer by its class."""
        if code == 429:
            self.rate_limited[kind or "global"] += 1
        elif code >= 500:
            self.faults[kind or "5xx_injected"] += 1
        else:
            self.errors_4xx[description] += 1

    def snapshot(self) -> dict:
        """Return all counters as a JSON-friendly dict."""
        limited = self.rate_limited
        return {
            "calls": dict(self.calls),
            "calls_total": sum(self.calls.values()),
            "ok": self.ok,
            "429_global": limited["global"],
            "429_paid": limited["paid"],
            "429_per_chat": limited["per_chat"],
            "429_injected": limited["injected"],
            "429_total": sum(limited.values()),
            "5xx_injected": self.faults["5xx_injected"],
            "5xx_after_delivery": self.faults["5xx_after_delivery"],
            "hangs_after_delivery": self.faults["hang_after_delivery"],
            "4xx": dict(self.errors_4xx),
            "4xx_total": sum(self.errors_4xx.values()),
            "deliveries": self.deliveries,
            "duplicates": len(self._duplicate_chats),
            "busiest_second": self.busiest_second,
            "paid_deliveries": self.paid_deliveries,
        }
