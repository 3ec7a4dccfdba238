"""Non-sending methods: getMe, getMyStarBalance, getChatMember, callbacks, webhook management, commands."""

from __future__ import annotations

import re
import time

from app.simulator.errors import ApiError, bad_request
from app.simulator.params import get_bool, get_chat_id, get_int, get_json, get_str
from app.simulator.results import Ok
from app.simulator.stars import star_amount
from app.simulator.state import SimState
from app.simulator.updates import chat_member, user

_SECRET = re.compile(r"^[A-Za-z0-9_-]{1,256}$")
# setWebhook's max_connections, as Telegram documents it: 40 unless given, at most 100.
DEFAULT_MAX_CONNECTIONS, MAX_CONNECTIONS = 40, 100


def get_me(state: SimState, params: dict) -> dict:
    """Return the bot's User object with the getMe-only flags."""
    return {**state.bot, "can_join_groups": True, "can_read_all_group_messages": False,
            "supports_inline_queries": False, "can_connect_to_business": False,
            "has_main_web_app": False}


def get_my_star_balance(state: SimState, params: dict) -> dict:
    """Return the bot's StarAmount: whole Stars plus nanostars, as paid sends left it."""
    with state.lock:
        return star_amount(state.stars.nanostars)


def get_chat_member(state: SimState, params: dict) -> dict:
    """Return a ChatMember; users never set with set_member have "left"."""
    chat_id = get_chat_id(params)
    user_id = get_int(params, "user_id")
    with state.lock:
        state.check_chat(chat_id)
        status = state.members.get((chat_id, user_id), "left")
    member = state.bot if user_id == state.bot["id"] else user(user_id, language_code=None)
    return chat_member(member, status)


def answer_callback_query(state: SimState, params: dict) -> bool:
    """Acknowledge a button press and remember the answer."""
    query_id = get_str(params, "callback_query_id")
    if not query_id:
        raise bad_request("query is too old and response timeout expired or query ID is invalid")
    record = {"t": time.time(), "callback_query_id": query_id,
              "text": get_str(params, "text"), "show_alert": get_bool(params, "show_alert"),
              "url": get_str(params, "url"), "cache_time": get_int(params, "cache_time", False)}
    with state.lock:
        state.callback_answers.append(record)
    return True


def set_webhook(state: SimState, params: dict) -> Ok:
    """Store the webhook; an empty url removes it, as in Telegram."""
    url = get_str(params, "url") or ""
    secret = get_str(params, "secret_token")
    if secret is not None and not _SECRET.match(secret):
        raise bad_request("secret token contains unallowed characters")
    if url and not url.lower().startswith(("https://", "http://")):
        raise bad_request("bad webhook: Webhook can be set up only on ports 80, 88, 443 or 8443")
    max_connections = get_int(params, "max_connections", False) or DEFAULT_MAX_CONNECTIONS
    allowed = get_json(params, "allowed_updates", "can't parse allowed updates JSON array")
    if allowed is not None and not isinstance(allowed, list):
        raise bad_request("can't parse allowed updates JSON array")
    with state.lock:
        if not url:
            state.webhook = None
            return Ok(True, "Webhook was deleted")
        state.webhook = {"url": url, "secret_token": secret, "allowed_updates": allowed,
                         "max_connections": max(1, min(MAX_CONNECTIONS, max_connections))}
    return Ok(True, "Webhook was set")


def get_webhook_info(state: SimState, params: dict) -> dict:
    """Return WebhookInfo; url is "" when no webhook is set."""
    with state.lock:
        hook = state.webhook
    info = {"url": hook["url"] if hook else "", "has_custom_certificate": False,
            "pending_update_count": 0}
    if hook:
        info["max_connections"] = hook["max_connections"]
        info["ip_address"] = "127.0.0.1"
        if hook["allowed_updates"] is not None:
            info["allowed_updates"] = hook["allowed_updates"]
    return info


def delete_webhook(state: SimState, params: dict) -> Ok:
    """Remove the webhook."""
    with state.lock:
        had = state.webhook is not None
        state.webhook = None
    return Ok(True, "Webhook was deleted" if had else "Webhook is already deleted")


def get_updates(state: SimState, params: dict) -> list:
    """Refuse while a webhook is set (Telegram's 409); otherwise nothing is queued."""
    with state.lock:
        if state.webhook is not None:
            raise ApiError(409, "Conflict: can't use getUpdates method while webhook is "
                                "active; use deleteWebhook to delete the webhook first")
    return []


def set_my_commands(state: SimState, params: dict) -> bool:
    """Accept a command list (not stored)."""
    commands = get_json(params, "commands", "can't parse commands JSON object")
    if not isinstance(commands, list):
        raise bad_request("can't parse commands JSON object")
    return True


def delete_my_commands(state: SimState, params: dict) -> bool:
    """Accept a command list removal."""
    return True
