"""SimulatorServer: the facade tests, benchmarks and the CLI drive."""

from __future__ import annotations

import re
import threading
from typing import Any
from urllib.parse import unquote, urlsplit

from app.simulator import control_routes
from app.simulator.api import JSON_TYPE, BotApi, Response, encode
from app.simulator.config import as_json
from app.simulator.params import resolve_chat_id
from app.simulator.server import HttpServer
from app.simulator.stars import NANOSTARS_PER_STAR, PER_PAID_MESSAGE, star_amount
from app.simulator.state import SimState
from app.simulator.updates import BUILDERS, check_fields
from app.simulator.webhook import post_json, register_update, webhook_reply, webhook_target

_BOT_PATH = re.compile(r"^/bot([^/]*)/([^/]+)/?$")
_NOT_FOUND = encode({"ok": False, "error_code": 404, "description": "Not Found"})
# serve_forever looks for a shutdown request this often: stop() returns within it
# (tests start and stop many simulators).
SHUTDOWN_POLL_SECONDS = 0.05
# stop() waits this long for the serving thread, which has no request left to finish.
STOP_JOIN_SECONDS = 5


class SimulatorServer:
    """A simulated Telegram Bot API on loopback; see app/simulator/README.md."""

    def __init__(self, token: str = "123456:TEST-token", host: str = "127.0.0.1",
                 port: int = 0, **config: Any):
        self.state = SimState(token, config)
        self.api = BotApi(self.state)
        self._address = (host, port)
        self._httpd: HttpServer | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle -------------------------------------------------------
    def start(self) -> SimulatorServer:
        """Bind and serve in a daemon thread; return self."""
        self._httpd = HttpServer(self._address, self.route)
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={
            "poll_interval": SHUTDOWN_POLL_SECONDS}, name="bot-api-simulator", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and close every connection."""
        if self._httpd is None:
            return
        self._httpd.shutdown()
        self._httpd.close_connections()
        self._httpd.server_close()
        self._thread.join(timeout=STOP_JOIN_SECONDS)
        self._httpd = None

    def __enter__(self) -> SimulatorServer:
        return self if self._httpd else self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    @property
    def port(self) -> int:
        if self._httpd is None:
            raise RuntimeError("simulator is not running: call start() first")
        return self._httpd.server_address[1]

    @property
    def base_url(self) -> str:
        return f"http://{self._address[0]}:{self.port}"

    @property
    def token(self) -> str:
        return self.state.token

    @property
    def api_url(self) -> str:
        """Return the URL prefix of Bot API calls: f"{api_url}/sendMessage"."""
        return f"{self.base_url}/bot{self.state.token}"

    def route(self, verb: str, raw_path: str, headers: Any, body: bytes) -> Response:
        """Send a request to the control endpoints or the Bot API."""
        url = urlsplit(raw_path)
        if url.path.startswith("/_sim/"):
            return control_routes.handle(self, verb, url.path, url.query, body)
        match = _BOT_PATH.match(url.path)
        if match is None:
            return 404, JSON_TYPE, _NOT_FOUND
        return self.api.handle_http(unquote(match.group(1)), match.group(2), url.query,
                                    headers.get("Content-Type", ""), body)

    # -- scenario controls ------------------------------------------------
    def configure(self, **config: Any) -> None:
        """Change config keys at run time."""
        self.state.configure(**config)

    def config(self) -> dict:
        """Return the current config."""
        return as_json(self.state.cfg)

    def block(self, chat_id: Any) -> None:
        self.state.set_chats("block", [chat_id])

    def unblock(self, chat_id: Any) -> None:
        self.state.set_chats("unblock", [chat_id])

    def deactivate(self, chat_id: Any) -> None:
        self.state.set_chats("deactivate", [chat_id])

    def forget(self, chat_id: Any) -> None:
        self.state.set_chats("forget", [chat_id])

    def refuse(self, chat_id: Any) -> None:
        """Answer every message to the chat 400 before delivery."""
        self.state.set_chats("refuse", [chat_id])

    def lose(self, chat_id: Any) -> None:
        """Deliver messages to the chat, then answer 502."""
        self.state.set_chats("lose", [chat_id])

    def restore(self, chat_id: Any) -> None:
        """Undo block, deactivate and forget for a chat."""
        self.state.set_chats("restore", [chat_id])

    def set_member(self, channel_id: Any, user_id: int, status: str) -> None:
        """Set a user's status in a channel, as getChatMember will report it."""
        chat_id = resolve_chat_id(channel_id)
        with self.state.lock:
            self.state.members[(chat_id, int(user_id))] = status
            if chat_id < 0:
                self.state.channels.add(chat_id)

    def add_message(self, chat_id: Any, text: str | None = None, caption: str | None = None,
                    photo: bool | str = False, from_user: dict | int | None = None) -> int:
        """Create a message in a chat (a copy source); return its message_id."""
        return self.state.add_message(chat_id, text, caption, photo, from_user)

    def delete_message_source(self, chat_id: Any, message_id: int) -> bool:
        """Delete a message so that copying it fails; False if it did not exist."""
        with self.state.lock:
            return self.state.remove_message(resolve_chat_id(chat_id), int(message_id))

    def revoke_token(self) -> None:
        with self.state.lock:
            self.state.revoked = True

    def restore_token(self) -> None:
        with self.state.lock:
            self.state.revoked = False

    def reset(self) -> None:
        """Clear deliveries, stats, chats, messages, members and webhook; keep config."""
        with self.state.lock:
            self.state.clear()

    # -- observations ------------------------------------------------------
    def deliveries(self, method: str | None = None, chat_id: Any = None) -> list[dict]:
        """Return successful message-producing calls in order."""
        return self.state.deliveries_view(method, chat_id)

    def delete_attempts(self, chat_id: Any = None) -> list[dict]:
        """Return every deleteMessage(s) request that reached a chat, in order: {chat_id, message_ids, result}."""
        with self.state.lock:
            want = resolve_chat_id(chat_id) if chat_id is not None else None
            return [dict(a) for a in self.state.delete_attempts if want is None or a["chat_id"] == want]

    def pin_attempts(self, chat_id: Any = None) -> list[dict]:
        """Return every pin/unpinChatMessage request that reached a chat, in order."""
        with self.state.lock:
            want = resolve_chat_id(chat_id) if chat_id is not None else None
            return [dict(a) for a in self.state.pin_attempts if want is None or a["chat_id"] == want]

    def pinned(self, chat_id: Any) -> list[int]:
        """Return the ids of a chat's pinned messages that still exist, oldest pin first."""
        with self.state.lock:
            chat = resolve_chat_id(chat_id)
            return [i for i in self.state.pins.get(chat, []) if self.state.find_message(chat, i) is not None]

    def bot_messages(self, chat_id: Any = None) -> list[dict]:
        """Return the bot's messages that still exist (not deleted), as they read now, in (chat, id) order."""
        with self.state.lock:
            chats = [resolve_chat_id(chat_id)] if chat_id is not None else sorted(self.state.messages)
            return [{"chat_id": m.chat_id, "message_id": m.message_id, "text": m.text, "caption": m.caption,
                     "photo": m.photo, "reply_markup": m.reply_markup, "edit_date": m.edit_date}
                    for c in chats for _, m in sorted(self.state.messages.get(c, {}).items()) if m.from_bot]

    def stats(self) -> dict:
        with self.state.lock:
            stars = self.state.stars
            return {**self.state.stats.snapshot(), "calls_during_retry_after": self.state.limits.early_calls,
                    "busiest_second_all": self.state.limits.busiest_second_all,
                    "paid_billed": stars.billed,
                    "stars_spent": round(stars.billed * PER_PAID_MESSAGE / NANOSTARS_PER_STAR, 1),
                    "star_balance": star_amount(stars.nanostars)}

    def set_stars(self, amount: int, nanostar_amount: int = 0) -> dict:
        """Set the bot's Stars balance exactly (a top-up, or Stars spent elsewhere); return the StarAmount."""
        with self.state.lock:
            self.state.stars.set(amount, nanostar_amount)
            return star_amount(self.state.stars.nanostars)

    def star_balance(self) -> dict:
        """Return the bot's Stars balance as getMyStarBalance answers it."""
        with self.state.lock:
            return star_amount(self.state.stars.nanostars)

    def callback_answers(self) -> list[dict]:
        with self.state.lock:
            return [dict(a) for a in self.state.callback_answers]

    def webhook(self) -> dict | None:
        """Return the webhook set via setWebhook (url, secret_token, ...) or None."""
        with self.state.lock:
            return dict(self.state.webhook) if self.state.webhook else None

    # -- webhook delivery ----------------------------------------------------
    def post_update(self, update: dict) -> tuple[int, Any]:
        """POST an Update to the webhook; run a webhook-reply method; return (status, body)."""
        register_update(self.state, update)
        url, secret = webhook_target(self.state)
        status, body = post_json(url, secret, update, self.state.cfg["webhook_timeout"])
        reply = webhook_reply(status, body)
        if reply is not None:
            self.api.call(*reply)
        return status, body

    def build_update(self, kind: str, **kwargs: Any) -> dict:
        """Build an Update of a kind in updates.BUILDERS with this bot's ids."""
        check_fields(kind, kwargs)
        if kind in ("callback_query", "my_chat_member"):
            kwargs.setdefault("bot_id", self.state.bot["id"])
        if kind == "message" and kwargs.get("message_id") is None:
            chat_id = kwargs.get("chat_id") or kwargs["user_id"]
            with self.state.lock:
                kwargs["message_id"] = self.state.next_ids.get(chat_id, 1)
                self.state.next_ids[chat_id] = kwargs["message_id"] + 1
        return BUILDERS[kind](**kwargs)

    def send_update(self, update: dict | None = None, **kind_kwargs: Any) -> dict:
        """Post a given Update or build one ({"kind": ..., builder kwargs}); return all."""
        if update is None:
            update = self.build_update(kind_kwargs.pop("kind", "message"), **kind_kwargs)
        status, body = self.post_update(update)
        return {"update": update, "status": status, "body": body}
