"""Strict checks of the user and chat ids in a raw update, before anything touches the database.

JSON has no integer type of its own: `true`, `1001.0` or `2**70` would reach
PTB and SQL as 1, 1001 (an admin!) or an overflow. Telegram always sends
plain integers, so anything else marks a forged or broken update.
"""
from __future__ import annotations

BIGINT_MAX = 2**63 - 1  # users.id and every stored chat id are signed BIGINT
# Keys whose value is a User object anywhere in an update, and the one that holds a list of them.
USER_KEYS = frozenset({"from", "user", "forward_from", "via_bot", "left_chat_member", "sender_user",
                       "sender_business_bot"})
USER_LIST_KEYS = frozenset({"new_chat_members"})
# Keys whose value is a Chat object (group and channel ids are negative).
CHAT_KEYS = frozenset({"chat", "sender_chat", "forward_from_chat", "actor_chat", "voter_chat"})


def is_strict_int(value: object) -> bool:
    """Tell whether value is a JSON integer (not a bool, not a float, not a string)."""
    return type(value) is int


def valid_user_id(value: object) -> bool:
    """A user id is a positive integer within BIGINT."""
    return is_strict_int(value) and 0 < value <= BIGINT_MAX


def valid_chat_id(value: object) -> bool:
    """A chat id is a non-zero integer within BIGINT (groups and channels are negative)."""
    return is_strict_int(value) and value != 0 and -BIGINT_MAX <= value <= BIGINT_MAX


def bad_id(update: dict) -> str | None:
    """Return the path of the first malformed user/chat id in a raw update (e.g. "message.from.id"), or None.

    Walks the whole update without recursion (the body's depth is the sender's choice).
    """
    stack: list[tuple[str, object]] = [("", update)]
    while stack:
        path, node = stack.pop()
        if isinstance(node, list):
            stack.extend((f"{path}[{i}]", item) for i, item in enumerate(node))
            continue
        if not isinstance(node, dict):
            continue
        for key, value in node.items():
            where = f"{path}.{key}" if path else key
            if key in USER_LIST_KEYS and isinstance(value, list):
                for i, user in enumerate(value):
                    if not isinstance(user, dict) or not valid_user_id(user.get("id")):
                        return f"{where}[{i}].id"
            elif key in USER_KEYS or key in CHAT_KEYS:
                check = valid_user_id if key in USER_KEYS else valid_chat_id
                # None: an absent sender, which the router ignores.
                if value is not None and (not isinstance(value, dict) or not check(value.get("id"))):
                    return f"{where}.id"
            stack.append((where, value))
    return None
