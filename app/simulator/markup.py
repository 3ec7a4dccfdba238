"""Validate reply_markup the way Telegram does for the cases the app can hit."""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Any
from urllib.parse import urlsplit

from app.simulator.errors import bad_request
from app.simulator.params import get_json

_MARKUP_JSON_ERROR = "can't parse reply keyboard markup JSON object"
_ACTION_KEYS = ("url", "callback_data", "web_app", "login_url", "switch_inline_query",
                "switch_inline_query_current_chat", "switch_inline_query_chosen_chat",
                "copy_text", "callback_game", "pay")


def get_markup(params: dict) -> dict | None:
    """Return the validated reply_markup object, or None when absent."""
    raw = params.get("reply_markup")
    if raw is None or raw == "":
        return None
    if isinstance(raw, str):
        # Cached by text: a broadcast repeats one keyboard for every chat.
        return json.loads(_validated_text(raw))
    markup = get_json(params, "reply_markup", _MARKUP_JSON_ERROR)
    validate_markup(markup)
    return markup


@lru_cache(maxsize=256)
def _validated_text(raw: str) -> str:
    """Validate markup given as JSON text; return it unchanged."""
    validate_markup(get_json({"m": raw}, "m", _MARKUP_JSON_ERROR))
    return raw


def inline_only(markup: dict | None) -> dict | None:
    """Return the markup if it is an inline keyboard (the only kind a Message echoes)."""
    if markup and "inline_keyboard" in markup:
        return markup
    return None


def validate_markup(markup: Any) -> None:
    """Raise a Telegram 400 for a markup object Telegram would refuse."""
    if not isinstance(markup, dict):
        raise bad_request(_MARKUP_JSON_ERROR)
    if "inline_keyboard" in markup:
        _validate_rows(markup["inline_keyboard"], "inline keyboard")
        for row in markup["inline_keyboard"]:
            for button in row:
                _validate_inline_button(button)
    elif "keyboard" in markup:
        _validate_rows(markup["keyboard"], "keyboard")
    elif not markup.get("remove_keyboard") and not markup.get("force_reply"):
        raise bad_request(_MARKUP_JSON_ERROR)


def _validate_rows(rows: Any, what: str) -> None:
    """Require a list of lists of buttons."""
    if not isinstance(rows, list) or not all(isinstance(row, list) for row in rows):
        raise bad_request(f"field \"{what}\" of the markup must be an Array of Arrays")


def _validate_inline_button(button: Any) -> None:
    """Check one InlineKeyboardButton: text, a single action, URL and data limits."""
    if not isinstance(button, dict) or not isinstance(button.get("text"), str):
        raise bad_request("can't find field \"text\"")
    if not any(key in button for key in _ACTION_KEYS):
        raise bad_request("text buttons are unallowed in the inline keyboard")
    if "url" in button:
        problem = _url_problem(str(button["url"]))
        if problem:
            raise bad_request(f"inline keyboard button URL '{button['url']}' is invalid: {problem}")
    if "callback_data" in button:
        data = str(button["callback_data"]).encode("utf-8")
        if not 1 <= len(data) <= 64:
            raise bad_request("BUTTON_DATA_INVALID")


def _url_problem(url: str) -> str | None:
    """Return why Telegram would reject a button URL, or None if it is fine."""
    lowered = url.strip().lower()
    if lowered.startswith("tg://"):
        return None if len(lowered) > len("tg://") else "Wrong URL host"
    if "://" in lowered and not lowered.startswith(("http://", "https://")):
        return "Unsupported URL protocol"
    candidate = url if "://" in url else ""
    try:
        host = urlsplit(candidate).hostname if candidate else None
    except ValueError:
        host = None
    if not host or "." not in host and host != "localhost":
        return "Wrong HTTP URL"
    return None
