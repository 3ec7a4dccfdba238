"""Who is an admin, and each admin's wizard state (kept in the database)."""
from __future__ import annotations

from datetime import datetime

from app.clock import utcnow
from app.extensions import db
from app.repository import admin_states
from app.repository import users as users_repo
from app.texts import lang_of


def is_admin(user_id: int | None, admin_ids: frozenset[int] | set[int]) -> bool:
    """Tell whether user_id is in ADMIN_IDS or marked is_admin in the users table."""
    if user_id is None:
        return False
    return user_id in admin_ids or users_repo.is_admin_flag(user_id)


def get_state(admin_id: int, *, lock: bool = False) -> tuple[str, dict] | None:
    """Return (step, draft) of an admin's conversation, or None; lock=True holds its row until commit."""
    return admin_states.load(admin_id, lock=lock)


def set_state(admin_id: int, step: str, draft: dict | None = None, now: datetime | None = None) -> None:
    """Put an admin on a step with a draft."""
    admin_states.save(admin_id, step, draft or {}, now or utcnow())


def clear_state(admin_id: int) -> bool:
    """Forget an admin's conversation; True when there was one."""
    return admin_states.remove(admin_id)


def take_state(admin_id: int, step: str, expect: dict | None = None) -> dict | None:
    """Remove and return the draft if the admin is on step (and the draft holds expect), else None.

    The row is read FOR UPDATE and deleted in the caller's transaction, so of two
    concurrent takers (a double tap) exactly one gets the draft.
    """
    state = admin_states.load(admin_id, lock=True)
    if state is None or state[0] != step:
        return None
    if any(state[1].get(key) != value for key, value in (expect or {}).items()):
        return None
    admin_states.remove(admin_id)
    return state[1]


def restore_state(admin_id: int, step: str, draft: dict) -> None:
    """Put an admin back on a step in a transaction of its own (after a failed job creation)."""
    set_state(admin_id, step, draft)
    db.session.commit()


def alert_chats(admin_ids: frozenset[int] | set[int]) -> dict[int, str]:
    """Return {chat id: language} of every admin (ADMIN_IDS and is_admin users) who has not blocked the bot.

    An ADMIN_IDS admin who never started the bot has no row: Persian, the default.
    """
    chats = {admin_id: lang_of(None) for admin_id in admin_ids}
    for user_id, language_code, blocked in users_repo.admin_profiles(admin_ids):
        if blocked:
            chats.pop(user_id, None)
        else:
            chats[user_id] = lang_of(language_code)
    return chats
