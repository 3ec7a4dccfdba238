"""The simulated bot's world: chats, messages, members, webhook, deliveries and limits."""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Hashable
from dataclasses import dataclass
from typing import Any

from app.simulator.config import DEFAULTS, merge
from app.simulator.errors import BLOCKED, CHAT_NOT_FOUND, DEACTIVATED, ApiError
from app.simulator.limits import RateLimits
from app.simulator.params import resolve_chat_id
from app.simulator.stars import StarBalance, to_nanostars
from app.simulator.stats import Stats
from app.simulator.updates import bot_user, user

# refuse: every message to the chat is answered 400 before delivery (Telegram refused this message);
# lose: delivered, then answered 502 (the sender cannot know it arrived). restore undoes every action.
CHAT_ACTIONS = ("block", "unblock", "deactivate", "forget", "refuse", "lose", "restore")
REFUSED = "Bad Request: message refused by the simulator"


@dataclass(slots=True)
class Msg:
    """One message that exists in a chat (sent by the bot or added as a source)."""

    chat_id: int
    message_id: int
    date: int
    from_bot: bool = True
    sender: dict | None = None
    text: str | None = None
    entities: tuple = ()
    caption: str | None = None
    caption_entities: tuple = ()
    photo: str | None = None
    reply_markup: dict | None = None
    edit_date: int | None = None
    document: dict | None = None


def bot_id_from_token(token: str) -> int:
    """Return the bot id Telegram encodes before the colon of a token."""
    prefix = token.split(":", 1)[0]
    return int(prefix) if prefix.isdigit() else 0


class SimState:
    """Everything the simulator remembers; mutate only while holding `lock`."""

    def __init__(self, token: str, config: dict[str, Any]):
        # One lock, held briefly: request threads only do dict/deque work under it.
        self.lock = threading.Lock()
        self.token = token
        self.revoked = False
        self.cfg = merge(DEFAULTS, config)
        self.rng = random.Random(self.cfg["seed"])
        self.bot = bot_user(bot_id_from_token(token))
        self.clear()

    def clear(self) -> None:
        """Forget chats, messages, webhook, records and counters (not token/config)."""
        self.blocked: set[int] = set()
        self.deactivated: set[int] = set()
        self.forgotten: set[int] = set()
        self.refused: set[int] = set()
        self.lost: set[int] = set()
        # True when the last recorded delivery went to a "lose" chat (read under the lock by the API).
        self.last_lost = False
        self.channels: set[int] = set()
        self.messages: dict[int, dict[int, Msg]] = {}
        self.next_ids: dict[int, int] = {}
        self.members: dict[tuple[int, int], str] = {}
        self.webhook: dict | None = None
        self.deliveries: list[dict] = []
        self.callback_answers: list[dict] = []
        # Every deleteMessage(s) request that reached a chat: {chat_id, message_ids, result}.
        self.delete_attempts: list[dict] = []
        # Every pin/unpinChatMessage request that reached a chat: {method, chat_id, message_id, silent, result}.
        self.pin_attempts: list[dict] = []
        # Each chat's pinned messages, oldest first (a chat may hold several pins).
        self.pins: dict[int, list[int]] = {}
        self.albums = 0  # copyMessages calls delivered: each album's parts share its number
        self.stats = Stats()
        self.limits = RateLimits()
        self.stars = StarBalance(to_nanostars(self.cfg["star_balance"]))
        self.revoked = False

    def configure(self, **updates: Any) -> None:
        """Apply config changes atomically; requests see old or new, never a mix."""
        with self.lock:
            self.cfg = merge(self.cfg, updates)
            if "seed" in updates:
                self.rng.seed(self.cfg["seed"])
            if "star_balance" in updates:
                self.stars.nanostars = to_nanostars(self.cfg["star_balance"])

    def set_chats(self, action: str, chat_ids: list) -> None:
        """Block, unblock, deactivate, forget or restore chats."""
        if action not in CHAT_ACTIONS:
            raise ValueError(f"unknown chat action {action!r}; use one of {CHAT_ACTIONS}")
        ids = [resolve_chat_id(c) for c in chat_ids]
        with self.lock:
            for chat_id in ids:
                if action == "block":
                    self.blocked.add(chat_id)
                elif action == "unblock":
                    self.blocked.discard(chat_id)
                elif action == "deactivate":
                    self.deactivated.add(chat_id)
                elif action == "forget":
                    self.forgotten.add(chat_id)
                elif action == "refuse":
                    self.refused.add(chat_id)
                elif action == "lose":
                    self.lost.add(chat_id)
                else:
                    for group in (self.blocked, self.deactivated, self.forgotten, self.refused, self.lost):
                        group.discard(chat_id)

    def check_chat(self, chat_id: int) -> None:
        """Raise "chat not found" for a forgotten chat (lock held)."""
        if chat_id in self.forgotten:
            raise ApiError(400, CHAT_NOT_FOUND)

    def check_recipient(self, chat_id: int) -> None:
        """Raise the error Telegram gives for a chat that cannot receive messages."""
        self.check_chat(chat_id)
        if chat_id in self.deactivated:
            raise ApiError(403, DEACTIVATED)
        if chat_id in self.blocked:
            raise ApiError(403, BLOCKED)
        if chat_id in self.refused:
            raise ApiError(400, REFUSED)

    def new_message(self, chat_id: int, **fields: Any) -> Msg:
        """Store a new message with the chat's next id (lock held)."""
        message_id = self.next_ids.get(chat_id, 1)
        self.next_ids[chat_id] = message_id + 1
        msg = Msg(chat_id, message_id, int(time.time()), **fields)
        self.messages.setdefault(chat_id, {})[message_id] = msg
        return msg

    def find_message(self, chat_id: int, message_id: int) -> Msg | None:
        """Return a stored message or None (lock held)."""
        return self.messages.get(chat_id, {}).get(message_id)

    def remove_message(self, chat_id: int, message_id: int) -> bool:
        """Delete a stored message; False when it did not exist (lock held)."""
        return self.messages.get(chat_id, {}).pop(message_id, None) is not None

    def add_message(self, chat_id: Any, text: str | None = None, caption: str | None = None,
                    photo: bool | str = False, from_user: dict | int | None = None) -> int:
        """Create a user's message that the bot can later copy; return its id."""
        chat_id = resolve_chat_id(chat_id)
        if isinstance(from_user, int) or from_user is None:
            from_user = user(from_user if from_user is not None else abs(chat_id))
        file_id = photo if isinstance(photo, str) else ("sim-photo-source" if photo else None)
        with self.lock:
            msg = self.new_message(chat_id, from_bot=False, sender=from_user, text=text,
                                   caption=caption, photo=file_id)
            return msg.message_id

    def register_message(self, message: dict, from_bot: bool) -> None:
        """Remember a message seen in an Update; keep an existing bot message (lock held)."""
        chat_id = message["chat"]["id"]
        message_id = int(message["message_id"])
        if message["chat"].get("type") == "channel":
            self.channels.add(chat_id)
        existing = self.find_message(chat_id, message_id)
        if existing is not None and from_bot:
            return
        photo = message.get("photo")
        self.messages.setdefault(chat_id, {})[message_id] = Msg(
            chat_id, message_id, int(message.get("date") or time.time()), from_bot=from_bot,
            sender=message.get("from"), text=message.get("text"),
            caption=message.get("caption"), photo=photo[-1]["file_id"] if photo else None,
            reply_markup=message.get("reply_markup"))
        # Later bot messages must get higher ids than anything already in the chat.
        self.next_ids[chat_id] = max(self.next_ids.get(chat_id, 1), message_id + 1)

    def take_rate(self, chat_id: int, paid: bool, edit: bool, now: float, parts: int = 1) -> None:
        """Reserve a flood-limit slot (`parts` bot-wide for an album) or raise 429; bill a paid one (lock held)."""
        self.limits.take(self.cfg, chat_id, paid, edit, now, parts)
        if paid:
            self.stars.charge(self.cfg, now, parts)

    def record(self, now: float, method: str, msg: Msg, content_key: Hashable | None,
               **fields: Any) -> dict:
        """Append a delivery record and count it (lock held)."""
        record = {
            "seq": len(self.deliveries) + 1, "t": time.time(), "method": method,
            "chat_id": msg.chat_id, "message_id": msg.message_id, "text": None,
            "caption": None, "from_chat_id": None, "source_message_id": None,
            "reply_markup": None, "paid": False, "parse_mode": None, "photo": msg.photo,
            "disable_notification": False, "protect_content": False,
        }
        record.update(fields)
        self.last_lost = msg.chat_id in self.lost
        self.deliveries.append(record)
        self.stats.delivered(msg.chat_id, content_key, record["paid"], now)
        return record

    def chat_object(self, chat_id: int) -> dict:
        """Build the Chat object for a chat id."""
        if chat_id > 0:
            return {"id": chat_id, "type": "private", "first_name": "User"}
        kind = "channel" if chat_id in self.channels else "supergroup"
        return {"id": chat_id, "type": kind, "title": "Sim Chat"}

    def deliveries_view(self, method: str | None = None, chat_id: Any = None) -> list[dict]:
        """Return copies of the delivery records, optionally filtered."""
        wanted = resolve_chat_id(chat_id) if chat_id not in (None, "") else None
        with self.lock:
            records = list(self.deliveries)
        if method:
            records = [r for r in records if r["method"].lower() == method.lower()]
        if wanted is not None:
            records = [r for r in records if r["chat_id"] == wanted]
        return [dict(r) for r in records]
