"""pinChatMessage and unpinChatMessage in a private chat, with Telegram's errors."""

from __future__ import annotations

from app.simulator.errors import bad_request
from app.simulator.params import get_bool, get_chat_id, get_int
from app.simulator.state import SimState

PIN_GONE = "message to pin not found"
UNPIN_GONE = "message to unpin not found"


def _attempt(state: SimState, method: str, chat_id: int, message_id: int | None, silent: bool, result: str) -> None:
    """Record one request's result (lock held); raise Telegram's error for a refused one.

    A done one in a "lose" chat is answered 502 after it (the API reads last_lost), as a send there is.
    """
    state.pin_attempts.append({"method": method, "chat_id": chat_id, "message_id": message_id, "silent": silent,
                               "result": result})
    if result not in ("pinned", "unpinned"):
        raise bad_request(result)
    state.last_lost = chat_id in state.lost


def pin_chat_message(state: SimState, params: dict) -> bool:
    """Pin a message; 403 when the user blocked the bot, 400 when the message no longer exists."""
    chat_id = get_chat_id(params)
    message_id = get_int(params, "message_id")
    silent = bool(get_bool(params, "disable_notification"))
    with state.lock:
        state.check_recipient(chat_id)
        if state.find_message(chat_id, message_id) is None:
            _attempt(state, "pinChatMessage", chat_id, message_id, silent, PIN_GONE)
        pins = state.pins.setdefault(chat_id, [])
        if message_id in pins:
            pins.remove(message_id)  # pinned again: it becomes the newest pin
        pins.append(message_id)
        _attempt(state, "pinChatMessage", chat_id, message_id, silent, "pinned")
    return True


def unpin_chat_message(state: SimState, params: dict) -> bool:
    """Unpin a message (the newest pin without message_id); 400 when it no longer exists.

    Unpinning a message that exists but is not pinned answers True, as Telegram does.
    """
    chat_id = get_chat_id(params)
    message_id = get_int(params, "message_id", False)
    with state.lock:
        state.check_recipient(chat_id)
        pins = state.pins.setdefault(chat_id, [])
        target = message_id if message_id is not None else (pins[-1] if pins else None)
        if target is not None and state.find_message(chat_id, target) is None:
            _attempt(state, "unpinChatMessage", chat_id, target, False, UNPIN_GONE)
        if target in pins:
            pins.remove(target)
        _attempt(state, "unpinChatMessage", chat_id, target, False, "unpinned")
    return True
