"""editMessageText, editMessageCaption, editMessageReplyMarkup, deleteMessage and deleteMessages."""

from __future__ import annotations

import time

from app.simulator.content import caption_content, message_object, text_content
from app.simulator.errors import NOT_MODIFIED, ApiError, bad_request
from app.simulator.markup import get_markup, inline_only
from app.simulator.methods_album import message_ids
from app.simulator.params import get_chat_id, get_int
from app.simulator.results import Produce
from app.simulator.state import Msg, SimState


def _target(params: dict) -> tuple[int, int]:
    """Return (chat_id, message_id) of the message to edit."""
    if params.get("inline_message_id") and "chat_id" not in params:
        # Inline messages never exist in the simulator.
        raise bad_request("message to edit not found")
    return get_chat_id(params), get_int(params, "message_id")


def _editable(state: SimState, chat_id: int, message_id: int) -> Msg:
    """Return the bot's own message or raise Telegram's edit errors (lock held)."""
    state.check_recipient(chat_id)
    msg = state.find_message(chat_id, message_id)
    if msg is None:
        raise bad_request("message to edit not found")
    if not msg.from_bot:
        raise bad_request("message can't be edited")
    return msg


def _finish_edit(state: SimState, now: float, method: str, msg: Msg, **fields) -> dict:
    """Stamp the edit, record it and render the Message (after the rate slot was taken)."""
    msg.edit_date = int(time.time())
    state.record(now, method, msg, None, reply_markup=msg.reply_markup, **fields)
    return message_object(state, msg)


def edit_message_text(state: SimState, params: dict) -> Produce:
    """Replace a message's text (and inline keyboard: absent means removed)."""
    chat_id, message_id = _target(params)
    content = text_content(params)
    markup = inline_only(get_markup(params))

    def commit(now: float) -> dict:
        msg = _editable(state, chat_id, message_id)
        if msg.text is None:
            raise bad_request("there is no text in the message to edit")
        if (msg.text, msg.entities, msg.reply_markup) == (content.plain, content.entities, markup):
            raise ApiError(400, NOT_MODIFIED)
        # The slot first: a 429'd edit must leave the message untouched.
        state.take_rate(chat_id, False, True, now)
        msg.text, msg.entities, msg.reply_markup = content.plain, content.entities, markup
        return _finish_edit(state, now, "editMessageText", msg, text=content.raw,
                            parse_mode=content.parse_mode)

    return Produce(commit)


def edit_message_caption(state: SimState, params: dict) -> Produce:
    """Replace a media message's caption."""
    chat_id, message_id = _target(params)
    caption = caption_content(params)
    markup = inline_only(get_markup(params))
    plain, entities = (caption.plain, caption.entities) if caption else (None, ())

    def commit(now: float) -> dict:
        msg = _editable(state, chat_id, message_id)
        if msg.photo is None:
            raise bad_request("there is no caption in the message to edit")
        if (msg.caption, msg.caption_entities, msg.reply_markup) == (plain, entities, markup):
            raise ApiError(400, NOT_MODIFIED)
        # The slot first: a 429'd edit must leave the message untouched.
        state.take_rate(chat_id, False, True, now)
        msg.caption, msg.caption_entities, msg.reply_markup = plain, entities, markup
        return _finish_edit(state, now, "editMessageCaption", msg,
                            caption=caption.raw if caption else None,
                            parse_mode=caption.parse_mode if caption else None)

    return Produce(commit)


def edit_message_reply_markup(state: SimState, params: dict) -> Produce:
    """Replace (or with none given, remove) a message's inline keyboard."""
    chat_id, message_id = _target(params)
    markup = inline_only(get_markup(params))

    def commit(now: float) -> dict:
        msg = _editable(state, chat_id, message_id)
        if msg.reply_markup == markup:
            raise ApiError(400, NOT_MODIFIED)
        # The slot first: a 429'd edit must leave the message untouched.
        state.take_rate(chat_id, False, True, now)
        msg.reply_markup = markup
        return _finish_edit(state, now, "editMessageReplyMarkup", msg)

    return Produce(commit)


# A bot may delete its messages in a private chat for this long.
DELETE_WINDOW = 48 * 3600
TOO_OLD = "message can't be deleted"
GONE = "message to delete not found"


def _too_old(state: SimState, msg: Msg) -> bool:
    """True when the message is older than Telegram lets a bot delete it (config message_age_offset ages all)."""
    return time.time() + state.cfg["message_age_offset"] - msg.date > DELETE_WINDOW


def _attempt(state: SimState, chat_id: int, ids: list[int], result: str) -> None:
    """Record one delete request's result (lock held); raise Telegram's error for a refused one."""
    state.delete_attempts.append({"chat_id": chat_id, "message_ids": ids, "result": result})
    if result != "deleted":
        raise bad_request(result)


def delete_message(state: SimState, params: dict) -> bool:
    """Delete a message; True, or 400 when it does not exist or is older than 48 hours."""
    chat_id = get_chat_id(params)
    message_id = get_int(params, "message_id")
    with state.lock:
        state.check_chat(chat_id)
        msg = state.find_message(chat_id, message_id)
        if msg is None:
            _attempt(state, chat_id, [message_id], GONE)
        if _too_old(state, msg):
            _attempt(state, chat_id, [message_id], TOO_OLD)
        state.remove_message(chat_id, message_id)
        _attempt(state, chat_id, [message_id], "deleted")
    return True


def delete_messages(state: SimState, params: dict) -> bool:
    """Delete 1-100 messages of one chat; those missing are skipped.

    True when any was deleted; 400 "not found" when none existed, "can't be
    deleted" when every one that exists is older than 48 hours (Telegram
    answers True in more cases; the simulator is stricter so tests can count).
    """
    chat_id = get_chat_id(params)
    ids = message_ids(params)
    with state.lock:
        state.check_chat(chat_id)
        found = [m for m in (state.find_message(chat_id, int(i)) for i in ids) if m is not None]
        if not found:
            _attempt(state, chat_id, ids, GONE)
        young = [m for m in found if not _too_old(state, m)]
        if not young:
            _attempt(state, chat_id, ids, TOO_OLD)
        for msg in young:
            state.remove_message(chat_id, msg.message_id)
        _attempt(state, chat_id, ids, "deleted")
    return True
