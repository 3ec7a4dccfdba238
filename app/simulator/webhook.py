"""Deliver Updates to the webhook set via setWebhook, as Telegram's servers do."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any

from app.simulator.state import SimState

SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"
_MESSAGE_KEYS = ("message", "edited_message", "channel_post", "edited_channel_post")


class NoWebhook(RuntimeError):
    """post_update was called before setWebhook."""


def register_update(state: SimState, update: dict) -> None:
    """Remember what an Update implies: its messages exist, member statuses changed."""
    with state.lock:
        for key in _MESSAGE_KEYS:
            if isinstance(update.get(key), dict):
                state.register_message(update[key], from_bot=False)
        query = update.get("callback_query") or {}
        if isinstance(query.get("message"), dict) and query["message"].get("date"):
            # The pressed message is the bot's own; editing it must work.
            state.register_message(query["message"], from_bot=True)
        _apply_my_chat_member(state, update.get("my_chat_member"))
        change = update.get("chat_member")
        if isinstance(change, dict):
            chat = change["chat"]
            if chat.get("type") == "channel":
                state.channels.add(chat["id"])
            member = change["new_chat_member"]
            state.members[(chat["id"], member["user"]["id"])] = member["status"]


def _apply_my_chat_member(state: SimState, change: Any) -> None:
    """A private chat's kicked/member status means the user blocked/restarted the bot."""
    if not isinstance(change, dict) or change["chat"].get("type") != "private":
        return
    status = change["new_chat_member"]["status"]
    if status == "kicked":
        state.blocked.add(change["chat"]["id"])
    elif status == "member":
        state.blocked.discard(change["chat"]["id"])


def webhook_target(state: SimState) -> tuple[str, str | None]:
    """Return (url, secret) of the current webhook or raise NoWebhook."""
    with state.lock:
        hook = state.webhook
    if hook is None:
        raise NoWebhook("no webhook set: call setWebhook first")
    return hook["url"], hook["secret_token"]


def post_json(url: str, secret: str | None, update: dict, timeout: float) -> tuple[int, Any]:
    """POST the Update; return (status, parsed JSON or text). ConnectionError if unreachable."""
    headers = {"Content-Type": "application/json"}
    if secret:
        headers[SECRET_HEADER] = secret
    data = json.dumps(update, ensure_ascii=False).encode("utf-8")
    request = urllib.request.Request(url, data=data, headers=headers, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            status, raw = response.status, response.read()
    except urllib.error.HTTPError as exc:
        status, raw = exc.code, exc.read()
    except (urllib.error.URLError, OSError) as exc:
        raise ConnectionError(f"webhook {url} unreachable: {exc}") from None
    text = raw.decode("utf-8", "replace")
    try:
        return status, json.loads(text)
    except ValueError:
        return status, text


def webhook_reply(status: int, body: Any) -> tuple[str, dict] | None:
    """Return (method, params) when the webhook answered with a method to execute."""
    if status != 200 or not isinstance(body, dict) or not isinstance(body.get("method"), str):
        return None
    params = {k: v for k, v in body.items() if k != "method"}
    return body["method"], params
