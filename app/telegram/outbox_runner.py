"""Run an outbox's ops: take the next ready one, make its call, settle its future by the outcome."""

from __future__ import annotations

import logging
from typing import Any

from app.telegram.errors import (
    ChatBusy,
    NetworkError,
    RetryAfter,
    TelegramError,
    UnknownOutcome,
    is_not_modified,
)
from app.telegram.ops import Op, resolve

# The outbox's own logger, whichever of its modules logs.
log = logging.getLogger("app.telegram.outbox")

# A send is not started with less time left: its capped read would likely end
# as an unknown outcome, which is never retried (the user might get it twice).
SEND_MIN_SECONDS = 0.5
# A write that failed without a verdict (not sent, or an idempotent edit or
# delete whose outcome is unknown) is tried again this much later, this often.
TRANSIENT_RETRY_SECONDS = 1.0
MAX_ATTEMPTS = 3


class OpRunner:
    """Mixin of Outbox's running of ops; the host provides the queue, its lock and the busy-chat checks."""

    def _take_ready(self, now: float, room: float) -> tuple[Op | None, float | None]:
        """Pop the best op ready at ``now`` that fits ``room`` seconds; else when the next one will be."""
        with self._cond:
            best: Op | None = None
            wake_at: float | None = None
            for key, op in list(self._pending.items()):
                if op.future.cancelled():
                    del self._pending[key]
                    continue
                if op.kind == "send" and room < SEND_MIN_SECONDS:
                    continue  # left for a later flush with more time
                chat_at = self._chat_ready_at(op)
                if self._is_busy(op, chat_at, now):
                    del self._pending[key]
                    self._give_up(op, chat_at - now if chat_at is not None else 0.0)
                    continue
                ready = op.retry_at if chat_at is None else max(op.retry_at, chat_at)
                if chat_at is not None and self._waits_for_chat(op) is not None:
                    # Booked at once by the call (refused past chat_wait), which then sleeps to the
                    # slot: sleeping here first would let every request of a flooding chat wait
                    # for the same slot, and all but one be refused only after that wait.
                    ready = op.retry_at
                if ready <= now:
                    if best is None or op.order() < best.order():
                        best = op
                elif wake_at is None or ready < wake_at:
                    wake_at = ready
            if best is not None:
                del self._pending[best.key]
                return best, None
            return None, wake_at

    def _ready_at(self, op: Op) -> float:
        """Return when an op may run: after its 429 wait and its chat's pacing."""
        chat_at = self._chat_ready_at(op)
        return op.retry_at if chat_at is None else max(op.retry_at, chat_at)

    def _execute(self, op: Op, deadline: float | None) -> None:
        """Make the call for one op and settle its future."""
        try:
            result = self._call(op, deadline)
        except ChatBusy as exc:
            with self._cond:
                self._give_up(op, exc.retry_after)
            return
        except RetryAfter as exc:
            self._requeue(op, exc.retry_after)
            return
        except (NetworkError, UnknownOutcome) as exc:
            self._retry_later(op, exc)
            return
        except TelegramError as exc:
            if op.kind == "edit" and is_not_modified(exc):
                self._finish(op, True)
                return
            log.info("outbox %s chat=%s dropped: %s", op.fn, op.chat_id, exc)
            self._finish(op, None)
            return
        except Exception:
            # A bug in one op must not kill the worker or strand later ops.
            log.exception("outbox %s chat=%s failed", op.fn, op.chat_id)
            self._finish(op, None)
            return
        self._finish(op, result)

    def _finish(self, op: Op, result: Any) -> None:
        """Resolve an op; after a replacing send succeeds, delete the old message."""
        with self._cond:
            if op.replaces is not None and op.key not in self._pending:
                self._replacing.discard((op.chat_id, op.replaces))
            if op.replaces is not None and result is not None:
                # Only now: a failed final send must never lose the progress message.
                args = {"chat_id": op.chat_id, "message_id": op.replaces}
                self._put(("delete", op.chat_id, op.replaces), "delete", "delete_message", args)
        resolve(op.future, result)

    def _retry_later(self, op: Op, exc: TelegramError) -> None:
        """Requeue a write that failed without a verdict, unless that could duplicate it."""
        op.attempts += 1
        if isinstance(exc, UnknownOutcome) and op.kind == "send":
            # The message may have arrived: a second copy is worse than none.
            log.warning("outbox %s chat=%s may have been delivered: %s", op.fn, op.chat_id, exc)
            self._finish(op, None)
        elif op.attempts >= MAX_ATTEMPTS:
            log.info("outbox %s chat=%s dropped after %d attempts: %s", op.fn, op.chat_id,
                     op.attempts, exc)
            self._finish(op, None)
        else:
            self._requeue(op, TRANSIENT_RETRY_SECONDS)

    def _requeue(self, op: Op, retry_after: float) -> None:
        """Put an op back after a 429 unless a newer op for its key has arrived."""
        with self._cond:
            op.retry_at = self._clock() + retry_after
            newer = self._pending.get(op.key)
            if newer is None and not self._closed:
                self._pending[op.key] = op
                self._cond.notify_all()
                return
            if newer is not None:
                newer.queued_at, newer.seq = op.queued_at, op.seq
                newer.retry_at = max(newer.retry_at, op.retry_at)
        resolve(op.future, None)

