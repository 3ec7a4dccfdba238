"""The Bot API request pipeline: token, latency, dispatch, faults, limits, JSON."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

from app.simulator import methods_album, methods_edit, methods_misc, methods_pin, methods_send
from app.simulator.errors import BAD_GATEWAY_HTML, NOT_FOUND, UNAUTHORIZED, ApiError
from app.simulator.faults import fault_after, fault_before, without_faults
from app.simulator.params import parse_params
from app.simulator.results import Ok, Produce
from app.simulator.state import SimState

JSON_TYPE = "application/json"
Response = tuple[int, str, bytes]

_HANDLERS: dict[str, Callable[[SimState, dict], Any]] = {
    "getMe": methods_misc.get_me,
    "sendMessage": methods_send.send_message,
    "copyMessage": methods_send.copy_message,
    "copyMessages": methods_album.copy_messages,
    "sendPhoto": methods_send.send_photo,
    "sendDocument": methods_send.send_document,
    "editMessageText": methods_edit.edit_message_text,
    "editMessageCaption": methods_edit.edit_message_caption,
    "editMessageReplyMarkup": methods_edit.edit_message_reply_markup,
    "deleteMessage": methods_edit.delete_message,
    "deleteMessages": methods_edit.delete_messages,
    "pinChatMessage": methods_pin.pin_chat_message,
    "unpinChatMessage": methods_pin.unpin_chat_message,
    "answerCallbackQuery": methods_misc.answer_callback_query,
    "getChatMember": methods_misc.get_chat_member,
    "getMyStarBalance": methods_misc.get_my_star_balance,
    "setWebhook": methods_misc.set_webhook,
    "getWebhookInfo": methods_misc.get_webhook_info,
    "deleteWebhook": methods_misc.delete_webhook,
    "getUpdates": methods_misc.get_updates,
    "setMyCommands": methods_misc.set_my_commands,
    "deleteMyCommands": methods_misc.delete_my_commands,
}
# Telegram matches method names case-insensitively.
_BY_LOWER = {name.lower(): (name, handler) for name, handler in _HANDLERS.items()}
PRODUCING = frozenset({"sendMessage", "copyMessage", "copyMessages", "sendPhoto", "sendDocument", "editMessageText",
                       "editMessageCaption", "editMessageReplyMarkup"})


def encode(payload: Any) -> bytes:
    """Serialize a JSON answer compactly, keeping non-ASCII text readable."""
    return json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


class BotApi:
    """Answers Bot API calls against one SimState."""

    def __init__(self, state: SimState):
        self.state = state

    def handle_http(self, token: str, method: str, query: str, content_type: str,
                    body: bytes) -> Response:
        """Answer one HTTP Bot API request."""
        self._sleep_latency()
        try:
            self._check_token(token)
            name, handler = self._lookup(method)
            params = parse_params(query, content_type, body)
        except ApiError as exc:
            return self._failure(exc)
        return self._invoke(name, handler, params)

    def call(self, method: str, params: dict) -> Response:
        """Execute a method without HTTP, token or latency (webhook replies)."""
        try:
            name, handler = self._lookup(method)
        except ApiError as exc:
            return self._failure(exc)
        return self._invoke(name, handler, {k: v for k, v in params.items() if v is not None})

    def _sleep_latency(self) -> None:
        cfg = self.state.cfg
        delay = cfg["latency_ms"]
        if cfg["latency_jitter_ms"]:
            delay += self.state.rng.uniform(0, cfg["latency_jitter_ms"])
        if delay > 0:
            # Sleep in the handler thread, never under the lock.
            time.sleep(delay / 1000.0)

    def _check_token(self, token: str) -> None:
        state = self.state
        if state.revoked or token != state.token:
            raise ApiError(401, UNAUTHORIZED)

    def _lookup(self, method: str) -> tuple[str, Callable]:
        found = _BY_LOWER.get(method.lower())
        if found is None:
            with self.state.lock:
                self.state.stats.calls[method] += 1
            raise ApiError(404, NOT_FOUND)
        return found

    def _invoke(self, name: str, handler: Callable, params: dict) -> Response:
        """Run a handler; message-producing ones go through faults and limits."""
        state = self.state
        with state.lock:
            state.stats.calls[name] += 1
        try:
            if name not in PRODUCING and name in state.cfg["fault_methods"]:
                # Named explicitly: a read such as getMyStarBalance can fail before answering too.
                injected = fault_before(state.cfg, state.rng)
                if injected is not None:
                    raise injected
            with state.lock:
                state.last_lost = False
            result = handler(state, params)
            if isinstance(result, Produce):
                return self._produce(result, name)
        except ApiError as exc:
            return self._failure(exc)
        with state.lock:
            lost, state.last_lost = state.last_lost, False
            if lost:  # a pin in a "lose" chat: done, then its answer lost
                state.stats.faults["5xx_after_delivery"] += 1
            else:
                state.stats.ok += 1
        if lost:
            return 502, "text/html", BAD_GATEWAY_HTML
        if isinstance(result, Ok):
            return 200, JSON_TYPE, encode({"ok": True, "result": result.value,
                                           "description": result.description})
        return 200, JSON_TYPE, encode({"ok": True, "result": result})

    def _produce(self, produce: Produce, name: str) -> Response:
        """Inject faults, then commit (recipient, limits, delivery) atomically."""
        state = self.state
        cfg = state.cfg
        if cfg["fault_methods"] and name not in cfg["fault_methods"]:
            cfg = without_faults(cfg)
        injected = fault_before(cfg, state.rng)
        if injected is not None:
            raise injected
        with state.lock:
            state.last_lost = False
            result = produce.commit(time.monotonic())
            after = "502" if state.last_lost else fault_after(cfg, state.rng)
            if after == "502":
                state.stats.faults["5xx_after_delivery"] += 1
            else:
                state.stats.ok += 1
                if after == "hang":
                    state.stats.faults["hang_after_delivery"] += 1
        if after == "502":
            return 502, "text/html", BAD_GATEWAY_HTML
        if after == "hang":
            # The client's read timeout should fire while we sit on a delivered message.
            time.sleep(cfg["hang_seconds"])
        return 200, JSON_TYPE, encode({"ok": True, "result": result})

    def _failure(self, exc: ApiError) -> Response:
        with self.state.lock:
            self.state.stats.failed(exc.code, exc.description, exc.kind)
        return exc.code, JSON_TYPE, encode(exc.payload())
