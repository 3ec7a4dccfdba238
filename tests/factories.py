"""Plain helpers that create rows and deliver updates in tests (no fixture-of-fixtures)."""
from __future__ import annotations

import json

from app.clock import utcnow
from app.extensions import db
from app.models import AdminState, ProcessedUpdate, User
from app.models.user import CHANNEL_UNKNOWN
from app.simulator.webhook import register_update
from tests.conftest import WEBHOOK_SECRET

WEBHOOK_PATH = "/telegram/webhook"


def create_user(user_id: int, *, first_name: str = "User", last_name: str | None = None,
                username: str | None = None, language_code: str | None = "fa", is_blocked: bool = False,
                is_admin: bool = False, main_channel_status: str = CHANNEL_UNKNOWN) -> User:
    """Insert and commit a user row."""
    now = utcnow()
    user = User(id=user_id, first_name=first_name, last_name=last_name, username=username,
                language_code=language_code, is_blocked=is_blocked, blocked_at=now if is_blocked else None,
                is_admin=is_admin, main_channel_status=main_channel_status, started_at=now, last_seen_at=now)
    db.session.add(user)
    db.session.commit()
    return user


def create_users(ids, **fields) -> None:
    """Insert and commit several users with the same fields."""
    for user_id in ids:
        create_user(user_id, **fields)


def create_admin_state(admin_id: int, step: str, draft: dict | None = None) -> AdminState:
    """Insert and commit an admin conversation state."""
    state = AdminState(admin_id=admin_id, step=step, draft=json.dumps(draft or {}), updated_at=utcnow())
    db.session.add(state)
    db.session.commit()
    return state


def post_update(client, update, *, secret: str | None = WEBHOOK_SECRET, sim=None):
    """POST an update (dict, or raw bytes/str) to the webhook; register it with the simulator first."""
    if sim is not None and isinstance(update, dict):
        # What Telegram knows about the update (the admin's message exists, so copying it works).
        register_update(sim.state, update)
    headers = {"Content-Type": "application/json"}
    if secret is not None:
        headers["X-Telegram-Bot-Api-Secret-Token"] = secret
    body = update if isinstance(update, (bytes, str)) else json.dumps(update, ensure_ascii=False)
    return client.post(WEBHOOK_PATH, data=body, headers=headers)


def get_user(user_id: int) -> User | None:
    """Read a user fresh from the database."""
    db.session.expire_all()
    return db.session.get(User, user_id)


def processed_ids() -> set[int]:
    """Return every recorded update id."""
    db.session.expire_all()
    ids = {row for row in db.session.execute(db.select(ProcessedUpdate.update_id)).scalars()}
    db.session.commit()
    return ids


def admin_state(admin_id: int) -> AdminState | None:
    """Read an admin's state fresh from the database."""
    db.session.expire_all()
    state = db.session.get(AdminState, admin_id)
    db.session.commit()
    return state
