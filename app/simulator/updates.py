"""Pure builders of Bot API Update objects, as Telegram would POST them to a webhook."""

from __future__ import annotations

import inspect
import itertools
import re
import time
import zlib

BOT_ID = 123456
BOT_USERNAME = "update_pack_sim_bot"
BOT_NAME = "UpdatePack Sim"

# itertools.count is atomic under the GIL, so threads never share an id.
_update_ids = itertools.count(1)
# High start: builder-made user messages never collide with ids the simulator hands out.
_message_ids = itertools.count(1_000_001)
_callback_ids = itertools.count(1)
_COMMAND = re.compile(r"^/[A-Za-z0-9_]{1,64}(?:@[A-Za-z0-9_]{3,64})?")

_ADMIN_RIGHTS = ("can_manage_chat", "can_delete_messages", "can_manage_video_chats",
                 "can_restrict_members", "can_promote_members", "can_change_info",
                 "can_invite_users", "can_post_stories", "can_edit_stories",
                 "can_delete_stories", "can_post_messages", "can_edit_messages")
_MEMBER_RIGHTS = ("can_send_messages", "can_send_audios", "can_send_documents",
                  "can_send_photos", "can_send_videos", "can_send_video_notes",
                  "can_send_voice_notes", "can_send_polls", "can_send_other_messages",
                  "can_add_web_page_previews", "can_change_info", "can_invite_users",
                  "can_pin_messages", "can_manage_topics", "can_edit_tag",
                  "can_react_to_messages")


def user(user_id: int, first_name: str = "User", last_name: str | None = None,
         username: str | None = None, language_code: str | None = "fa") -> dict:
    """Build a (human) User object."""
    out = {"id": user_id, "is_bot": False, "first_name": first_name}
    for key, value in (("last_name", last_name), ("username", username),
                       ("language_code", language_code)):
        if value is not None:
            out[key] = value
    return out


def bot_user(bot_id: int = BOT_ID, username: str = BOT_USERNAME) -> dict:
    """Build the bot's own User object."""
    return {"id": bot_id, "is_bot": True, "first_name": BOT_NAME, "username": username}


def chat(chat_id: int, title: str = "Sim Channel", kind: str | None = None,
         first_name: str = "User") -> dict:
    """Build a Chat: private for positive ids, else a supergroup or channel."""
    if chat_id > 0:
        return {"id": chat_id, "type": "private", "first_name": first_name}
    return {"id": chat_id, "type": kind or "supergroup", "title": title}


def chat_member(member: dict, status: str, until_date: int = 0) -> dict:
    """Build a ChatMember of the given status with the fields Telegram includes."""
    out: dict = {"status": status, "user": member}
    if status == "creator":
        out["is_anonymous"] = False
    elif status == "administrator":
        out.update(can_be_edited=False, is_anonymous=False)
        out.update(dict.fromkeys(_ADMIN_RIGHTS, True))
    elif status == "restricted":
        out.update(is_member=True, until_date=until_date)
        out.update(dict.fromkeys(_MEMBER_RIGHTS, False))
    elif status == "kicked":
        out["until_date"] = until_date
    return out


def command_entities(text: str | None) -> list[dict]:
    """Return a bot_command entity when text starts with /command."""
    match = _COMMAND.match(text or "")
    if not match:
        return []
    return [{"type": "bot_command", "offset": 0,
             "length": len(match.group(0).encode("utf-16-le")) // 2}]


def message_update(user_id: int, text: str | None = None, first_name: str = "User",
                   last_name: str | None = None, username: str | None = None,
                   language_code: str | None = "fa", chat_id: int | None = None,
                   photo: str | bool | None = None, caption: str | None = None,
                   message_id: int | None = None, update_id: int | None = None,
                   date: int | None = None, media_group_id: str | None = None) -> dict:
    """Build an Update carrying a user's message (text, or photo with caption; a part of an album)."""
    sender = user(user_id, first_name, last_name, username, language_code)
    message = {
        "message_id": message_id if message_id is not None else next(_message_ids),
        "from": sender,
        "chat": chat(chat_id if chat_id is not None else user_id, first_name=first_name),
        "date": date or int(time.time()),
    }
    if photo:
        file_id = photo if isinstance(photo, str) else f"sim-photo-{message['message_id']}"
        message["photo"] = photo_sizes(file_id)
        if caption is not None:
            message["caption"] = caption
        if media_group_id is not None:
            message["media_group_id"] = str(media_group_id)
    if text is not None:
        message["text"] = text
        entities = command_entities(text)
        if entities:
            message["entities"] = entities
    return {"update_id": _next_update_id(update_id), "message": message}


def photo_sizes(file_id: str) -> list[dict]:
    """Build the PhotoSize list Telegram attaches to a photo message."""
    return [{"file_id": file_id, "file_unique_id": f"u{zlib.crc32(file_id.encode()):08x}",
             "width": 90, "height": 90, "file_size": 1024}]


def callback_update(user_id: int, data: str, message_chat_id: int, message_id: int,
                    language_code: str | None = "fa", first_name: str = "User",
                    message_text: str = "menu", callback_id: str | None = None,
                    update_id: int | None = None, bot_id: int = BOT_ID) -> dict:
    """Build an Update for a press of an inline button under a bot message."""
    query = {
        "id": callback_id or f"{user_id}{next(_callback_ids):08d}",
        "from": user(user_id, first_name, language_code=language_code),
        "chat_instance": str(-abs(message_chat_id) * 7 - 13),
        "data": data,
        "message": {
            "message_id": message_id,
            "from": bot_user(bot_id),
            "chat": chat(message_chat_id, first_name=first_name),
            "date": int(time.time()) - 1,
            "text": message_text,
        },
    }
    return {"update_id": _next_update_id(update_id), "callback_query": query}


def my_chat_member_update(user_id: int, old_status: str, new_status: str,
                          first_name: str = "User", update_id: int | None = None,
                          bot_id: int = BOT_ID, bot_username: str = BOT_USERNAME) -> dict:
    """Build an Update telling that a user blocked (kicked) or restarted the bot."""
    me = bot_user(bot_id, bot_username)
    change = {
        "chat": chat(user_id, first_name=first_name),
        "from": user(user_id, first_name),
        "date": int(time.time()),
        "old_chat_member": chat_member(me, old_status),
        "new_chat_member": chat_member(me, new_status),
    }
    return {"update_id": _next_update_id(update_id), "my_chat_member": change}


def chat_member_update(chat_id: int, user_id: int, old_status: str, new_status: str,
                       first_name: str = "User", update_id: int | None = None,
                       chat_title: str = "Sim Channel", by: int | None = None) -> dict:
    """Build an Update telling that a user joined or left a channel (by a channel admin's change, if given)."""
    member = user(user_id, first_name)
    change = {
        "chat": chat(chat_id, chat_title, kind="channel"),
        "from": member if by is None else user(by, "Channel admin"),
        "date": int(time.time()),
        "old_chat_member": chat_member(member, old_status),
        "new_chat_member": chat_member(member, new_status),
    }
    return {"update_id": _next_update_id(update_id), "chat_member": change}


def _next_update_id(explicit: int | None) -> int:
    return explicit if explicit is not None else next(_update_ids)


BUILDERS = {
    "message": message_update,
    "callback_query": callback_update,
    "my_chat_member": my_chat_member_update,
    "chat_member": chat_member_update,
}


class FieldError(ValueError):
    """An update kind or field the builders do not know (answered 400 with what they accept)."""


def fields(kind: str) -> tuple[list[str], list[str]]:
    """Return (required, optional) field names of an update kind, in the builder's order."""
    params = inspect.signature(BUILDERS[kind]).parameters.values()
    return ([p.name for p in params if p.default is inspect.Parameter.empty],
            [p.name for p in params if p.default is not inspect.Parameter.empty])


def check_fields(kind: str, given: dict) -> None:
    """Raise FieldError naming an unknown kind, unknown fields or missing ones, and listing what is accepted."""
    if kind not in BUILDERS:
        raise FieldError(f"unknown update kind {kind!r}; use one of: {', '.join(BUILDERS)}")
    required, optional = fields(kind)
    unknown = sorted(set(given) - set(required) - set(optional))
    missing = [name for name in required if name not in given]
    if unknown or missing:
        problem = "; ".join(filter(None, [unknown and f"unknown field(s) {', '.join(unknown)}",
                                          missing and f"missing field(s) {', '.join(missing)}"]))
        raise FieldError(f"update kind {kind!r}: {problem}; required: {', '.join(required)}; "
                         f"optional: {', '.join(optional)}")

