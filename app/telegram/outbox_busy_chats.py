"""Busy chats of an outbox: when a chat may next be written to, and handing its ops on when that is too far off."""

from __future__ import annotations

import logging
from typing import Any

from app.telegram.errors import ChatBusy
from app.telegram.ops import API_METHOD, Op, resolve
from app.telegram.policy import is_paced_method

# The outbox's own logger, whichever of its modules logs.
log = logging.getLogger("app.telegram.outbox")

# An outbox taking over another's ops for busy chats keeps at most this many
# per chat: a chat flooding an admin's bot cannot pile up work without end.
ADOPTED_PER_CHAT = 5


class BusyChats:
    """Mixin of Outbox's per-chat waits; the host provides the queue, its lock, ``chat_wait`` and the overflow."""

    def _chat_ready_at(self, op: Op) -> float | None:
        """Return when the op's chat may next receive a message; None when it is not paced."""
        pacer = getattr(self._client, "chat_pacer", None)
        if pacer is None or not is_paced_method(API_METHOD[op.fn]):
            return None
        if self._waits_for_chat(op) is not None and op.chat_id not in self._busy_chats:
            # The call books the chat itself, refused past chat_wait (ChatBusy): reading its slot
            # first would cost every reply a statement and decide nothing the booking does not.
            return self._clock()
        # A hint (a shared pacer reads the database at most every 0.1 s): the call itself books the chat afresh.
        return getattr(pacer, "ready_hint", pacer.ready_at)(op.chat_id)

    def _waits_for_chat(self, op: Op) -> float | None:
        """Return how long the op may wait for its chat's slot: chat_wait for a chat not written to yet, else None."""
        if self._chat_wait is None or op.chat_id in self._booked_chats:
            return None
        return self._chat_wait

    def _is_busy(self, op: Op, chat_at: float | None, now: float) -> bool:
        """Tell whether the op's chat is given up on, or its slot is further off than the op may wait."""
        if chat_at is None or self._chat_wait is None:
            return False
        if op.chat_id in self._busy_chats:
            return True
        wait = self._waits_for_chat(op)
        return wait is not None and chat_at - now > wait

    def _give_up(self, op: Op, wait: float) -> None:
        """Hand an op for a busy chat to the overflow outbox, or drop it (caller holds the lock)."""
        self._busy_chats.add(op.chat_id)
        if op.replaces is not None:
            self._replacing.discard((op.chat_id, op.replaces))
        if self._overflow is not None and self._overflow._adopt(op):
            log.info("outbox %s chat=%s deferred: the chat's next slot is %.1fs away", op.fn, op.chat_id, wait)
            return
        log.info("outbox %s chat=%s dropped: the chat's next slot is %.1fs away", op.fn, op.chat_id, wait)
        resolve(op.future, None)

    def _adopt(self, op: Op) -> bool:
        """Take over another outbox's op (its future included); False if closed or the chat has enough queued."""
        with self._cond:
            if op.key[2:3] == ("unique",):
                # Unique keys count per outbox: two requests' first replies would collide here.
                op.key = ("send", op.chat_id, "unique", next(self._seq))
            queued = sum(1 for other in self._pending.values() if other.chat_id == op.chat_id)
            if self._closed or (op.key not in self._pending and queued >= ADOPTED_PER_CHAT):
                return False
            old = self._pending.get(op.key)
            if old is not None:
                resolve(old.future, None)  # an older edit of the same message: the newer text wins
            if op.replaces is not None:
                self._replacing.add((op.chat_id, op.replaces))
            self._pending[op.key] = op
            self._wake()  # the late outbox's worker may have ended while idle
            return True

    def _call(self, op: Op, deadline: float | None) -> Any:
        """Make the op's client call; in a chat not written to yet, only within chat_wait (else ChatBusy)."""
        wait = self._waits_for_chat(op) if is_paced_method(API_METHOD[op.fn]) else None
        if wait is None:
            return getattr(self._client, op.fn)(**op.args, deadline=deadline, hard_deadline=True)
        try:
            result = getattr(self._client, op.fn)(**op.args, deadline=deadline, hard_deadline=True, chat_wait=wait)
        except ChatBusy:
            raise
        except Exception:
            # The chat's slot was booked before the call failed: this outbox's next ops keep its pace.
            self._booked_chats.add(op.chat_id)
            raise
        self._booked_chats.add(op.chat_id)
        return result

