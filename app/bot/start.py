"""/start: register or refresh the user and welcome them (admins also get their menu)."""
from __future__ import annotations

import time

from app.bot import keyboards
from app.bot.context import BotContext
from app.bot.profile import profile_of
from app.services import admins, users

# One getChatMember call may take this long; it runs after commit, off the transaction.
MEMBERSHIP_CHECK_SECONDS = 5.0


def on_start(ctx: BotContext) -> None:
    """Store the user, answer the welcome, and look up unknown channel membership once."""
    user = ctx.update.effective_user
    status, _created = users.register_start(profile_of(user))
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
