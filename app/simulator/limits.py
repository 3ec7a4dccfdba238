"""Telegram's flood limits: a bot-wide window, a paid window and per-chat pacing."""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping

from app.simulator.errors import too_many_requests


class SlidingWindow:
    """Timestamps of accepted events within the last `period` seconds."""

    __slots__ = ("period", "events")

    def __init__(self, period: float = 1.0):
        self.period = period
        self.events: deque[float] = deque()

    def wait(self, now: float, limit: int) -> float:
        """Return seconds until one more event fits under limit (0 = fits now)."""
        events = self.events
        cutoff = now - self.period
        while events and events[0] <= cutoff:
            events.popleft()
        if not limit or len(events) < limit:
            return 0.0
        # The event that must expire before a new one fits.
        return events[len(events) - limit] + self.period - now

    def add(self, now: float) -> None:
        self.events.append(now)


class RateLimits:
    """All flood limits of one bot; callers hold the simulator lock."""

    def __init__(self) -> None:
        self.bot_window = SlidingWindow()
        self.paid_window = SlidingWindow()
        self.private_last: dict[int, float] = {}
        self.group_windows: dict[int, SlidingWindow] = {}
        # A 429's retry_after holds the whole bot (free or paid lane) until then;
        # calls that arrive earlier are counted: a well-behaved bot makes none.
        self.hold_until = {False: 0.0, True: 0.0}
        self.early_calls = 0
        # Most counted calls (messages and edits) accepted in any 1 s window, free lane.
        self.busiest_second_all = 0

    def take(self, cfg: Mapping, chat_id: int, paid: bool, edit: bool, now: float, parts: int = 1) -> None:
        """Reserve a slot for one message (an album: `parts` bot-wide slots, one chat slot) or raise a 429."""
        per_chat = cfg["per_chat_limits"] and (cfg["per_chat_edits"] or not edit)
        if now < self.hold_until[paid]:
            self.early_calls += 1
        if per_chat:
            wait = self._chat_wait(cfg, chat_id, now)
            if wait > 0:
                raise too_many_requests(wait, "per_chat")
        window = self.paid_window if paid else self.bot_window
        limit = cfg["paid_rate"] if paid else cfg["global_rate"]
        # Every part of an album counts bot-wide: all of them must fit, or none is taken.
        wait = window.wait(now, max(limit - parts + 1, 1) if limit else limit)
        if wait > 0:
            error = too_many_requests(wait, "paid" if paid else "global")
            self.hold_until[paid] = max(self.hold_until[paid], now + error.parameters["retry_after"])
            raise error
        for _ in range(parts):
            window.add(now)
        if not paid:
            self.busiest_second_all = max(self.busiest_second_all, len(window.events))
        if per_chat:
            self._chat_add(cfg, chat_id, now)

    def _chat_wait(self, cfg: Mapping, chat_id: int, now: float) -> float:
        """Return seconds until this chat may receive another message."""
        if chat_id > 0:
            last = self.private_last.get(chat_id)
            if last is None:
                return 0.0
            interval = cfg["private_chat_interval"]
            # Tolerance: a client pacing at exactly 1/s arrives a hair early due to jitter.
            if now - last >= interval - cfg["per_chat_tolerance"]:
                return 0.0
            return last + interval - now
        window = self.group_windows.get(chat_id)
        if window is None:
            return 0.0
        window.period = cfg["group_window"]
        return window.wait(now, cfg["group_rate"])

    def _chat_add(self, cfg: Mapping, chat_id: int, now: float) -> None:
        if chat_id > 0:
            self.private_last[chat_id] = now
            return
        window = self.group_windows.get(chat_id)
        if window is None:
            window = self.group_windows[chat_id] = SlidingWindow(cfg["group_window"])
        window.add(now)
