"""Fake clock and fake Bot API client for tests that must not sleep or touch HTTP."""

from __future__ import annotations

import threading
from collections import defaultdict
from typing import Any

from app.telegram.errors import TelegramError


class FakeClock:
    """A monotonic clock that only moves when told to (or when something sleeps)."""

    def __init__(self, start: float = 1000.0, advance_on_sleep: bool = True):
        self.now = start
        self.advance_on_sleep = advance_on_sleep
        self.sleeps: list[float] = []
        self._lock = threading.Lock()

    def __call__(self) -> float:
        with self._lock:
            return self.now

    def sleep(self, seconds: float) -> None:
        with self._lock:
            self.sleeps.append(seconds)
            if self.advance_on_sleep:
                self.now += seconds

    def advance(self, seconds: float) -> None:
        with self._lock:
            self.now += seconds


class FakeClient:
    """Record outbox calls; script failures per method with ``fail(method, exc)``."""

    def __init__(self, clock: FakeClock, chat_pacer: Any = None, call_seconds: float = 0.0):
        self.clock = clock
        self.chat_pacer = chat_pacer
        self.call_seconds = call_seconds
        self.calls: list[tuple[str, dict[str, Any]]] = []
        self._script: dict[str, list[BaseException]] = defaultdict(list)
        self._next_id = 100
        # Called with (method, args) before each call returns; lets a test enqueue mid-call.
        self.on_call = None

    def fail(self, method: str, *errors: BaseException) -> None:
        """Make the next calls of ``method`` raise these errors, in order."""
        self._script[method].extend(errors)

    def methods(self) -> list[str]:
        return [name for name, _ in self.calls]

    def _record(self, method: str, args: dict[str, Any]) -> None:
        if self.chat_pacer is not None and method != "delete_message":
            self.chat_pacer.acquire(args["chat_id"], args.get("deadline"))
        self.calls.append((method, args))
        self.clock.advance(self.call_seconds)
        if self.on_call is not None:
            self.on_call(method, args)
        if self._script[method]:
            raise self._script[method].pop(0)

    def send_message(self, chat_id, text, **kw):
        self._record("send_message", {"chat_id": chat_id, "text": text, **kw})
        self._next_id += 1
        return {"message_id": self._next_id, "chat": {"id": chat_id}, "text": text}

    def copy_message(self, chat_id, from_chat_id, message_id, **kw):
        self._record("copy_message", {"chat_id": chat_id, "from_chat_id": from_chat_id,
                                      "message_id": message_id, **kw})
        self._next_id += 1
        return {"message_id": self._next_id}

    def edit_message_text(self, chat_id, message_id, text, **kw):
        self._record("edit_message_text", {"chat_id": chat_id, "message_id": message_id,
                                           "text": text, **kw})
        return {"message_id": message_id, "text": text}

    def delete_message(self, chat_id, message_id, **kw):
        self._record("delete_message", {"chat_id": chat_id, "message_id": message_id, **kw})
        return True


def bad_request(description: str) -> TelegramError:
    """Build a BadRequest the way the client would."""
    from app.telegram.errors import BadRequest

    return BadRequest("editMessageText", description, 400)
