"""/start: register or refresh the user (with a deep link's source) and welcome them (admins also get their menu)."""
from __future__ import annotations

import logging
import time

from app.bot import keyboards
from app.bot.context import BotContext
from app.bot.profile import profile_of
from app.models.audience import valid_source
from app.services import admins, users
from app.services.audience import source_tags

log = logging.getLogger(__name__)
# One getChatMember call may take this long; it runs after commit, off the transaction.
MEMBERSHIP_CHECK_SECONDS = 5.0
# A refused payload is logged cut to this many characters (a valid one has at most 64).
LOGGED_PAYLOAD_CHARS = 80


def source_of(text: str | None) -> str | None:
    """Return the deep link's payload of "/start <payload>" when Telegram could have sent it; None otherwise.

    Anything else (too long, other characters, several words) is a hand-typed
    or forged start: it is logged and the user is welcomed as without one.
    """
    words = (text or "").split(maxsplit=1)
    if len(words) < 2:
        return None
    payload = words[1].strip()
    if valid_source(payload):
        return payload
    log.info("/start payload ignored: %r", payload[:LOGGED_PAYLOAD_CHARS])
    return None


def on_start(ctx: BotContext) -> None:
    """Store the user, answer the welcome, and look up unknown channel membership once."""
    user = ctx.update.effective_user
    source = source_of(ctx.update.message.text)
    status, _created = users.register_start(profile_of(user), source=source, looked_up=ctx.sender_read)
    source_tags.tag_from_start(user.id, source)  # every start with the link, not only the first
    text = ctx.text("welcome", name=user.first_name or "")
    markup = None
    if ctx.is_admin():
        # /start is a fresh start: an unfinished wizard is dropped.
        admins.clear_state(user.id)
        text += "\n\n" + ctx.text("admin_menu")
        markup = keyboards.admin_menu(ctx.lang)
    ctx.send(text, markup)
    if users.needs_membership_check(status, ctx.main_channel_id):
        ctx.after_commit(lambda: users.check_membership(
            ctx.client, ctx.main_channel_id, user.id, deadline=time.monotonic() + MEMBERSHIP_CHECK_SECONDS))
