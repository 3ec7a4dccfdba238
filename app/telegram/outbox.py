"""Keyed, coalescing queue of interactive sends, edits and deletes; no flush holds a web worker past its deadline."""

from __future__ import annotations

import itertools
import logging
import threading
import time
from collections.abc import Callable, Hashable
from concurrent.futures import Future
from typing import Any

from app.telegram.client import MIN_ATTEMPT_SECONDS
from app.telegram.errors import (
    ChatBusy,
    NetworkError,
    RetryAfter,
    TelegramError,
    UnknownOutcome,
    is_not_modified,
)
from app.telegram.ops import API_METHOD, Op, done, resolve
from app.telegram.policy import is_paced_method

log = logging.getLogger("app.telegram.outbox")

# flush() and close() without a deadline still return within this many seconds.
DEFAULT_FLUSH_SECONDS = 5.0
# The background worker never lets the client sleep longer than this inside
# one call: longer waits become retry_at, so other chats keep moving.
WORKER_CALL_BUDGET = 2.0
# A send is not started with less time left: its capped read would likely end
# as an unknown outcome, which is never retried (the user might get it twice).
SEND_MIN_SECONDS = 0.5
# A write that failed without a verdict (not sent, or an idempotent edit or
# delete whose outcome is unknown) is tried again this much later, this often.
TRANSIENT_RETRY_SECONDS = 1.0
MAX_ATTEMPTS = 3
# An outbox taking over another's ops for busy chats keeps at most this many
# per chat: a chat flooding an admin's bot cannot pile up work without end.
ADOPTED_PER_CHAT = 5


class Outbox:
    """Serialize a request's Telegram writes, coalescing edits and honouring 429s.

    No method blocks its caller past its deadline (``DEFAULT_FLUSH_SECONDS``
    when none is given), whatever Telegram does: a 429 that does not fit is
    requeued with ``retry_at``, and each call's timeouts are cut to the time left.

    ``chat_wait`` (a web request's outbox): the first message this outbox puts
    in a chat waits at most that long for the chat's slot. A chat whose slot
    is further off (it is being written to faster than Telegram's 1/s) is
    busy: its ops leave this outbox, handed to ``defer_busy_to``'s outbox if
    one was given, else dropped, so the request never holds its worker for
    one chat's pace. Later messages to a chat this outbox already wrote to
    keep their own pace (the request's own replies, in order).
    """

    def __init__(self, client: Any, clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], None] = time.sleep, chat_wait: float | None = None):
        self._client = client
        self._clock = clock
        self._sleep = sleep
        self._chat_wait = chat_wait
        self._overflow: Outbox | None = None
        # Chats this outbox booked a slot in, and chats it gave up on (their later ops follow).
        self._booked_chats: set[Any] = set()
        self._busy_chats: set[Any] = set()
        # Guards every field below; the pump thread enqueues while the worker runs.
        self._cond = threading.Condition()
        # One runner at a time, so two writes to one chat never race each other.
        self._run_lock = threading.Lock()
        self._pending: dict[Hashable, Op] = {}
        self._replacing: set[tuple[Any, int]] = set()
        self._seq = itertools.count()
        self._worker: threading.Thread | None = None
        self._stopping = False
        self._closed = False

    def send(self, chat_id: Any, text: str, *, parse_mode: str | None = None,
             reply_markup: Any = None, key: Hashable = None,
             replace_message_id: int | None = None) -> Future:
        """Queue a text message; resolves to the Message, or None on failure."""
        args = {"chat_id": chat_id, "text": text, "parse_mode": parse_mode,
                "reply_markup": reply_markup}
        return self._queue_send("send_message", args, key, replace_message_id)

    def copy(self, chat_id: Any, from_chat_id: Any, message_id: int, *,
             reply_markup: Any = None, key: Hashable = None, caption: str | None = None) -> Future:
        """Queue a copy of a stored message (caption: HTML replacing its own); resolves to its MessageId, or None."""
        args = {"chat_id": chat_id, "from_chat_id": from_chat_id, "message_id": message_id,
                "reply_markup": reply_markup}
        if caption is not None:
            args.update(caption=caption, parse_mode="HTML")
        return self._queue_send("copy_message", args, key, None)

    def copy_album(self, chat_id: Any, from_chat_id: Any, message_ids: list[int]) -> Future:
        """Queue a copy of several messages (an album) in one call; resolves to their MessageIds, or None."""
        args = {"chat_id": chat_id, "from_chat_id": from_chat_id, "message_ids": sorted(message_ids)}
        return self._queue_send("copy_messages", args, None, None)

    def edit(self, chat_id: Any, message_id: int, text: str, *, parse_mode: str | None = None,
             reply_markup: Any = None, priority: str | None = None) -> Future:
        """Queue an edit, replacing any pending edit of the same message.

        ``priority="low"`` (progress edits): sent only when a bot-wide slot is
        free at once; otherwise it stays queued, coalesced with newer edits.
        """
        args = {"chat_id": chat_id, "message_id": message_id, "text": text,
                "parse_mode": parse_mode, "reply_markup": reply_markup}
        if priority is not None:
            args["priority"] = priority
        with self._cond:
            if (chat_id, message_id) in self._replacing:
                # The message is about to be replaced and deleted: editing it is waste.
                return done(None)
            return self._put(("edit", chat_id, message_id), "edit", "edit_message_text", args)

    def delete(self, chat_id: Any, message_id: int) -> Future:
        """Queue a delete; resolves to True, or None on failure."""
        args = {"chat_id": chat_id, "message_id": message_id}
        with self._cond:
            return self._put(("delete", chat_id, message_id), "delete", "delete_message", args)

    def defer_busy_to(self, other: Outbox | None, chat_wait: float | None = None) -> None:
        """Hand ops for busy chats to ``other`` (it sends them later), not drop them; chat_wait: a new bound."""
        self._overflow = other
        if chat_wait is not None:
            self._chat_wait = chat_wait

    @property
    def later(self) -> Outbox:
        """Return the outbox that sends what this one hands over (itself when it hands nothing over)."""
        return self._overflow or self

    def pending(self) -> int:
        """Return how many ops wait to run (in-flight ones excluded)."""
        with self._cond:
            return len(self._pending)

    def flush(self, deadline: float | None = None, wait: bool = True) -> None:
        """Run pending ops in (priority, queued_at) order until deadline; wait=False runs only ready ones."""
        deadline = self._bound(deadline)
        if not self._run_lock.acquire(timeout=self._lock_timeout(deadline)):
            return
        try:
            while True:
                now = self._clock()
                if deadline - now < MIN_ATTEMPT_SECONDS:
                    return
                op, wake_at = self._take_ready(now, deadline - now)
                if op is not None:
                    self._execute(op, deadline)
                    continue
                if not wait or wake_at is None or wake_at > deadline:
                    return
                self._sleep(wake_at - now)
        finally:
            self._run_lock.release()

    def start(self) -> None:
        """Start a background worker that runs ops as they become ready."""
        with self._cond:
            if self._closed or (self._worker is not None and self._worker.is_alive()):
                return
            self._stopping = False
            self._worker = threading.Thread(target=self._work, name="telegram-outbox",
                                            daemon=True)
            self._worker.start()

    def close(self, deadline: float | None = None) -> int:
        """Stop the worker after a final flush bounded by deadline; fail what is left and return how many."""
        deadline = self._bound(deadline)
        with self._cond:
            self._stopping = True
            self._cond.notify_all()
            worker = self._worker
        if worker is not None and worker is not threading.current_thread():
            worker.join(timeout=self._lock_timeout(deadline))
        self.flush(deadline, wait=True)
        with self._cond:
            self._closed = True
            leftovers = list(self._pending.values())
            self._pending.clear()
            self._replacing.clear()
        for op in leftovers:
            resolve(op.future, None)
        return len(leftovers)

    def _queue_send(self, fn: str, args: dict[str, Any], key: Hashable,
                    replace: int | None) -> Future:
        """Queue a send or copy under its key, dropping edits of what it replaces."""
        chat = args["chat_id"]
        if replace is not None:
            op_key: Hashable = ("send", chat, replace)
        elif key is not None:
            op_key = ("send", chat, "key", key)
        else:
            op_key = ("send", chat, "unique", next(self._seq))
        with self._cond:
            if replace is not None:
                stale = self._pending.pop(("edit", chat, replace), None)
                if stale is not None:
                    resolve(stale.future, None)
                self._replacing.add((chat, replace))
            return self._put(op_key, "send", fn, args, replace)

    def _put(self, key: Hashable, kind: str, fn: str, args: dict[str, Any],
             replaces: int | None = None) -> Future:
        """Insert or coalesce an op (caller holds the lock) and return its future."""
        if self._closed:
            return done(None)
        op = Op(key, kind, fn, args, self._clock(), next(self._seq), replaces=replaces)
        old = self._pending.get(key)
        if old is not None:
            # Keep the old place in line: constant updates must not starve an op.
            op.queued_at, op.seq, op.retry_at = old.queued_at, old.seq, old.retry_at
            resolve(old.future, None)
        self._pending[key] = op
        self._cond.notify_all()
        return op.future

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

    def _chat_ready_at(self, op: Op) -> float | None:
        """Return when the op's chat may next receive a message; None when it is not paced."""
        pacer = getattr(self._client, "chat_pacer", None)
        if pacer is None or not is_paced_method(API_METHOD[op.fn]):
            return None
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
            self._cond.notify_all()
            return True

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

    def _work(self) -> None:
        """Run ops as they become ready until close() asks to stop."""
        while True:
            with self._cond:
                while not self._stopping:
                    wait = self._seconds_until_ready()
                    if wait == 0.0:
                        break
                    self._cond.wait(timeout=wait)
                if self._stopping:
                    return
            self.flush(deadline=self._clock() + WORKER_CALL_BUDGET, wait=False)

    def _seconds_until_ready(self) -> float | None:
        """Return 0.0 if an op is ready, seconds until one is, or None when idle."""
        if not self._pending:
            return None
        now = self._clock()
        earliest = min(self._ready_at(op) for op in self._pending.values())
        return max(0.0, earliest - now)

    def _bound(self, deadline: float | None) -> float:
        """Return the deadline, or the default bound when the caller gave none."""
        return self._clock() + DEFAULT_FLUSH_SECONDS if deadline is None else deadline

    def _lock_timeout(self, deadline: float) -> float:
        """Return a lock/join timeout in seconds for a deadline."""
        return max(0.0, deadline - self._clock())

