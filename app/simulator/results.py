"""What a method handler returns: a plain value, Ok with a description, or Produce."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


class Ok:
    """A successful result that Telegram answers with a description too."""

    __slots__ = ("value", "description")

    def __init__(self, value: Any, description: str):
        self.value = value
        self.description = description


class Produce:
    """A validated message-producing call, committed later under the lock.

    Splitting validation from commit lets fault injection run in between, and
    keeps slow work (HTML parsing) outside the lock.
    """

    __slots__ = ("commit",)

    def __init__(self, commit: Callable[[float], Any]):
        # commit(now_monotonic) checks recipient and limits, stores, records, returns result.
        self.commit = commit
