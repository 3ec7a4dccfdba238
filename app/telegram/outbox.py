"""Keyed, coalescing queue of interactive sends, edits and deletes; no flush holds a web worker past its deadline."""

from __future__ import annotations

import itertools
import threading
import time
from collections.abc import Callable, Hashable
from concurrent.futures import Future
from typing import Any

from app.telegram.client import MIN_ATTEMPT_SECONDS
from app.telegram.ops import Op, done, resolve
from app.telegram.outbox_busy_chats import BusyChats
from app.telegram.outbox_runner import OpRunner

# flush() and close() without a deadline still return within this many seconds.
DEFAULT_FLUSH_SECONDS = 5.0
# The background worker never lets the client sleep longer than this inside
# one call: longer waits become retry_at, so other chats keep moving.
WORKER_CALL_BUDGET = 2.0
# A started outbox's worker thread ends after this long with nothing queued, and the next op starts one:
# a web worker's late outbox keeps no idle thread (a host's NPROC limit counts threads).
IDLE_EXIT_SECONDS = 10.0


class Outbox(BusyChats, OpRunner):
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
        self._autostart = False  # start() was called: an op queued while no worker runs starts one
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

    def photo(self, chat_id: Any, png: bytes, *, caption: str | None = None, priority: str | None = None) -> Future:
        """Queue an uploaded photo (priority="low": only a free bot-wide slot); resolves to the Message, or None."""
        args = {"chat_id": chat_id, "photo": png, "caption": caption}
        if priority is not None:
            args["priority"] = priority
        return self._queue_send("send_photo", args, None, None)

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
            self._autostart = True
            self._spawn()

    def _spawn(self) -> None:
        """Start the worker thread (caller holds the lock)."""
        self._worker = threading.Thread(target=self._work, name="telegram-outbox", daemon=True)
        self._worker.start()

    def _wake(self) -> None:
        """Tell the worker an op was queued, starting one if it ended while idle (caller holds the lock).

        Every way an op enters the queue comes here (queued, or adopted from a
        request's outbox): an op queued while no worker runs would wait for the process's exit.
        """
        if self._autostart and self._worker is None and not self._stopping:
            self._spawn()
        self._cond.notify_all()

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
        self._wake()
        return op.future

    def _work(self) -> None:
        """Run ops as they become ready until close() asks to stop or nothing was queued for IDLE_EXIT_SECONDS."""
        while True:
            with self._cond:
                if not self._await_ready():
                    return
            self.flush(deadline=self._clock() + WORKER_CALL_BUDGET, wait=False)

    def _await_ready(self) -> bool:
        """Wait (lock held) until an op is ready: True; False to end the thread (stopping, or idle too long)."""
        idle_since = None  # real time, whatever clock the ops use: it bounds a thread's life
        while not self._stopping:
            wait = self._seconds_until_ready()
            if wait == 0.0:
                return True
            if wait is None:
                idle_since = time.monotonic() if idle_since is None else idle_since
                wait = IDLE_EXIT_SECONDS - (time.monotonic() - idle_since)
                if wait <= 0:
                    self._worker = None  # the next op starts another
                    return False
            else:
                idle_since = None
            self._cond.wait(timeout=wait)
        return False

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
