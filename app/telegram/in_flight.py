"""Count this process's requests to Telegram that wait for their answer."""

from __future__ import annotations

import threading


class InFlight:
    """This process's requests to Telegram waiting for their answer, every client's (a pump's release asks)."""

    def __init__(self):
        self._lock = threading.Lock()
        self.count = 0

    def __enter__(self) -> None:
        with self._lock:
            self.count += 1

    def __exit__(self, *exc) -> None:
        with self._lock:
            self.count -= 1


IN_FLIGHT = InFlight()
