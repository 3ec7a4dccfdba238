"""The unit of work of the outbox: one keyed write and its future."""

from __future__ import annotations

from collections.abc import Hashable
from concurrent.futures import Future, InvalidStateError
from dataclasses import dataclass, field
from typing import Any

PRIORITY = {"send": 0, "delete": 1, "edit": 2}
# Client wrapper -> Bot API method, to decide whether per-chat pacing applies.
API_METHOD = {"send_message": "sendMessage", "copy_message": "copyMessage", "copy_messages": "copyMessages",
              "send_photo": "sendPhoto", "edit_message_text": "editMessageText", "delete_message": "deleteMessage"}
_NEVER = float("-inf")


@dataclass(eq=False)
class Op:
    """One pending write; a newer op with the same key replaces its payload."""

    key: Hashable
    kind: str
    fn: str
    args: dict[str, Any]
    queued_at: float
    seq: int
    future: Future = field(default_factory=Future)
    retry_at: float = _NEVER
    replaces: int | None = None
    # Failed attempts that may be tried again (not sent, or idempotent).
    attempts: int = 0

    @property
    def chat_id(self) -> Any:
        """Return the chat this op writes to."""
        return self.args["chat_id"]

    def order(self) -> tuple[int, float, int]:
        """Return the scheduling key: tier, then oldest first."""
        return PRIORITY[self.kind], self.queued_at, self.seq


def done(value: Any) -> Future:
    """Return a future already resolved to ``value``."""
    future: Future = Future()
    future.set_result(value)
    return future


def resolve(future: Future, value: Any) -> None:
    """Set a future's result unless it is already settled or was cancelled."""
    if future.done():
        return
    try:
        future.set_result(value)
    except InvalidStateError:
        pass
