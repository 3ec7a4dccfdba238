"""SimulatorControl: drive a simulator in another process over /_sim/ endpoints."""

from __future__ import annotations

import time
from typing import Any

import requests

# How often a client waiting for the simulator to start asks again.
READY_POLL_SECONDS = 0.05


class SimulatorError(RuntimeError):
    """A control endpoint refused the request."""


class SimulatorControl:
    """The SimulatorServer scenario API, over HTTP."""

    def __init__(self, base_url: str, timeout: float = 10.0):
        self.base_url = base_url.rstrip("/")
        self.timeout = timeout
        self._session = requests.Session()

    def _request(self, verb: str, path: str, payload: dict | None = None,
                 params: dict | None = None) -> Any:
        response = self._session.request(verb, f"{self.base_url}/_sim/{path}", json=payload,
                                          params=params, timeout=self.timeout)
        body = response.json()
        if response.status_code >= 400:
            raise SimulatorError(f"{verb} /_sim/{path}: HTTP {response.status_code}: "
                                 f"{body.get('error') if isinstance(body, dict) else body}")
        return body

    def wait_ready(self, timeout: float = 10.0) -> SimulatorControl:
        """Poll /_sim/health until the simulator answers; return self."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                self._request("GET", "health")
                return self
            except requests.ConnectionError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(READY_POLL_SECONDS)

    def close(self) -> None:
        self._session.close()

    def configure(self, **config: Any) -> dict:
        """Change config keys; return the resulting config."""
        if "retry_after_range" in config:
            config["retry_after_range"] = list(config["retry_after_range"])
        return self._request("POST", "config", config)

    def config(self) -> dict:
        return self._request("GET", "config")

    def _chats(self, action: str, chat_ids: list) -> None:
        self._request("POST", "chats", {"action": action, "chat_ids": chat_ids})

    def block(self, *chat_ids: Any) -> None:
        self._chats("block", list(chat_ids))

    def unblock(self, *chat_ids: Any) -> None:
        self._chats("unblock", list(chat_ids))

    def deactivate(self, *chat_ids: Any) -> None:
        self._chats("deactivate", list(chat_ids))

    def forget(self, *chat_ids: Any) -> None:
        self._chats("forget", list(chat_ids))

    def refuse(self, *chat_ids: Any) -> None:
        """Answer every message to these chats 400 before delivery (Telegram refused the message)."""
        self._chats("refuse", list(chat_ids))

    def lose(self, *chat_ids: Any) -> None:
        """Deliver messages to these chats, then answer 502 (the outcome is unknown to the sender)."""
        self._chats("lose", list(chat_ids))

    def restore(self, *chat_ids: Any) -> None:
        self._chats("restore", list(chat_ids))

    def set_member(self, channel_id: Any, user_id: int, status: str) -> None:
        self._request("POST", "members", {"channel_id": channel_id, "user_id": user_id,
                                          "status": status})

    def add_message(self, chat_id: Any, text: str | None = None, caption: str | None = None,
                    photo: bool | str = False, from_user: dict | int | None = None) -> int:
        """Create a copyable message in a chat; return its message_id."""
        return self._request("POST", "messages", {
            "chat_id": chat_id, "text": text, "caption": caption, "photo": photo,
            "from_user": from_user})["message_id"]

    def delete_message_source(self, chat_id: Any, message_id: int) -> bool:
        return self._request("POST", "messages/delete", {
            "chat_id": chat_id, "message_id": message_id})["deleted"]

    def revoke_token(self) -> None:
        self._request("POST", "token", {"revoked": True})

    def restore_token(self) -> None:
        self._request("POST", "token", {"revoked": False})

    def deliveries(self, method: str | None = None, chat_id: Any = None) -> list[dict]:
        params = {k: v for k, v in (("method", method), ("chat_id", chat_id)) if v is not None}
        return self._request("GET", "deliveries", params=params)

    def stats(self) -> dict:
        return self._request("GET", "stats")

    def set_stars(self, amount: int, nanostar_amount: int = 0) -> dict:
        """Set the bot's Stars balance exactly; return it as getMyStarBalance answers it."""
        return self._request("POST", "stars", {"amount": amount, "nanostar_amount": nanostar_amount})

    def star_balance(self) -> dict:
        return self._request("GET", "stars")

    def callback_answers(self) -> list[dict]:
        return self._request("GET", "callback_answers")

    def webhook(self) -> dict | None:
        return self._request("GET", "webhook")

    def reset(self) -> None:
        self._request("POST", "reset")

    def send_update(self, update: dict | None = None, **kind_kwargs: Any) -> dict:
        """Post an Update (given, or built from kind=... and builder kwargs) to the webhook.

        Returns {"update": ..., "status": ..., "body": ...}.
        """
        payload = {"update": update} if update is not None else kind_kwargs
        return self._request("POST", "updates", payload)

    def post_update(self, update: dict) -> tuple[int, Any]:
        """Like SimulatorServer.post_update: return (status, body)."""
        answer = self.send_update(update)
        return answer["status"], answer["body"]
