"""Turn PTB users into the plain profile the services store."""
from __future__ import annotations

from telegram import User as TgUser

from app.services.users import Profile


def profile_of(user: TgUser) -> Profile:
    """Return the stored fields of a Telegram user."""
    return Profile(id=user.id, first_name=user.first_name or "", last_name=user.last_name,
                   username=user.username, language_code=user.language_code)
