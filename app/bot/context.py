"""BotContext: what a handler gets for one update, and the after-commit phase."""
from __future__ import annotations

import logging
import time
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any

from telegram import Update

from app.extensions import db
from app.services import admins, telegram_factory
from app.telegram.errors import TelegramError
from app.texts import t

log = logging.getLogger(__name__)
# Replies are flushed before the webhook answers; Telegram waits for us meanwhile.
REPLY_SECONDS = 8.0
ANSWER_SECONDS = 3.0
# Replies queued by a long after-commit step (an interactive pump) still get this long.
LAST_REPLY_SECONDS = 2.0
# A reply waits at most this long for its chat's slot (1/s per private chat):
# a chat written to faster must not hold a web worker (docs/BROADCAST.md, "Replies to a busy chat").
REPLY_CHAT_WAIT = 0.5
# An admin's reply waits longer: one to each message of an admin working at
# human pace (each a second after the last reply) still goes out in its request.
ADMIN_CHAT_WAIT = 1.5


@dataclass
class BotContext:
    """One update being handled: its parsed and raw forms, settings, Telegram I/O and helpers."""

    update: Update
    raw: dict
    settings: dict
    client: Any
    outbox: Any
    admin_ids: frozenset[int]
    main_channel_id: int | None
    lang: str = "fa"
    # The sender's users row as the update's one read found it (None: unknown), and whether it was read at all.
    sender_row: Any = None
    sender_read: bool = False
    committed: bool = False
    _after: list[Callable[[], Any]] = field(default_factory=list)
    _answer: tuple[str | None, bool] | None = None
    _answered: bool = False
    _is_admin: bool | None = None
    _reply_deadline: float | None = None

    @property
    def user_id(self) -> int | None:
        """Return the id of the user behind the update."""
        user = self.update.effective_user
        return user.id if user else None

    @property
    def chat_id(self) -> int | None:
        """Return the chat replies go to (the private chat with the user)."""
        chat = self.update.effective_chat
        return chat.id if chat else self.user_id

    def is_admin(self) -> bool:
        """Tell whether the sender is an admin (looked up once per update)."""
        if self._is_admin is None:
            # Only a plain int: 1001.0 == 1001 and True == 1 in Python (the dispatcher refuses those already).
            uid = self.user_id
            self._is_admin = type(uid) is int and admins.is_admin(uid, self.admin_ids)
        return self._is_admin

    def text(self, text_key: str, /, **values) -> str:
        """Return a text in the user's language (values may include "key", unlike texts.t)."""
        template = t(text_key, self.lang)
        return template.format(**values) if values else template

    def reply(self, text_key: str, markup: dict | None = None, /, **values) -> Future:
        """Queue a keyed text to the user's chat; it is sent after commit."""
        return self.send(self.text(text_key, **values), markup)

    def send(self, text: str, markup: dict | None = None) -> Future:
        """Queue a ready text to the user's chat; it is sent after commit."""
        return self.outbox.send(self.chat_id, text, reply_markup=markup)

    def answer(self, text_key: str | None = None, /, *, alert: bool = False, **values) -> None:
        """Answer the pressed button: at once after commit (or now, if already committed)."""
        if self.update.callback_query is None or self._answered:
            return
        text = self.text(text_key, **values) if text_key else None
        if self.committed:
            self._send_answer(text, alert)
        else:
            self._answer = (text, alert)

    def after_commit(self, fn: Callable[[], Any]) -> None:
        """Run fn after the update's transaction committed (Telegram I/O, engine calls)."""
        self._after.append(fn)

    def end_transaction(self) -> None:
        """Close the read transaction an after-commit step opened, before the next HTTP call."""
        db.session.rollback()

    def finish(self) -> None:
        """Run the after-commit phase: answer, replies, callbacks, then the last replies."""
        self.committed = True
        self._defer_busy_replies()
        # One reply budget for the whole phase, not one per flush.
        self._reply_deadline = time.monotonic() + REPLY_SECONDS
        if self._answer is not None:
            self._send_answer(*self._answer)
        self.flush(final=False)
        for fn in self._after:
            try:
                fn()
            except Exception:
                log.exception("after-commit callback failed")
            finally:
                # Close whatever the callback left open, before any further HTTP call.
                self.end_transaction()
        self.answer()
        self.flush()

    def _defer_busy_replies(self) -> None:
        """Let an admin's replies to a busy chat go out later from this process; a user's are dropped.

        A user only ever gets the welcome, the "I didn't understand" hint or
        "admins only", each answering a message of their own: a chat writing
        faster than 1/s has just had one, so the rest answer noise. An admin's
        reply (a preview, a wizard step) matters: it waits for a slot up to
        ADMIN_CHAT_WAIT here, and beyond that in the process's late outbox.
        """
        if self.is_admin():
            self.outbox.defer_busy_to(telegram_factory.late_outbox(self.client), chat_wait=ADMIN_CHAT_WAIT)
        self.end_transaction()  # the admin lookup may have opened one

    def abandon(self) -> None:
        """Drop queued replies of a failed handler; still stop the button's spinner."""
        self.committed = True
        self._after.clear()
        self.outbox.close(deadline=time.monotonic())
        self.answer()

    def flush(self, final: bool = True) -> None:
        """Send queued replies within the reply budget; at the end, drop what did not fit."""
        now = time.monotonic()
        deadline = self._reply_deadline or now + REPLY_SECONDS
        if final:
            deadline = max(deadline, now + LAST_REPLY_SECONDS)
        self.outbox.flush(deadline=deadline)
        if final and self.outbox.pending():
            log.warning("dropping %d replies that did not fit the reply budget", self.outbox.pending())
            self.outbox.close(deadline=time.monotonic())

    def _send_answer(self, text: str | None, alert: bool) -> None:
        """Call answerCallbackQuery once; a failure is logged, never raised."""
        self._answered = True
        try:
            self.client.answer_callback_query(self.update.callback_query.id, text, show_alert=alert,
                                              deadline=time.monotonic() + ANSWER_SECONDS,
                                              hard_deadline=True)
        except TelegramError as exc:
            log.info("answerCallbackQuery failed: %s", exc)
        except Exception:
            log.exception("answerCallbackQuery failed")
