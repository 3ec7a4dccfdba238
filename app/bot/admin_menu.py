"""Admin entry points shared by the wizard and the settings menu: rights check and /cancel."""
from __future__ import annotations

import logging

from app.bot.context import BotContext
from app.services import admins

log = logging.getLogger(__name__)


def require_admin(ctx: BotContext) -> bool:
    """Return True for admins; otherwise tell the user "not_admin" and change nothing."""
    if ctx.is_admin():
        return True
    log.info("user %s refused an admin action", ctx.user_id)
    if ctx.update.callback_query is not None:
        ctx.answer("not_admin", alert=True)
    else:
        ctx.reply("not_admin")
    return False


def on_cancel(ctx: BotContext) -> None:
    """Leave whatever conversation the admin is in."""
    ctx.reply("cancelled" if admins.clear_state(ctx.user_id) else "nothing_to_cancel")
