"""/help: a user learns what the bot is for; an admin, what they can do (commands and buttons)."""
from __future__ import annotations

from app.bot import keyboards
from app.bot.context import BotContext

MENU_LABELS = ("menu_broadcast", "menu_jobs", "menu_settings")


def on_help(ctx: BotContext) -> None:
    """Answer /help in the sender's language; an admin's answer names the menu's buttons and brings the menu back."""
    if not ctx.is_admin():
        ctx.reply("help_user")
        return
    ctx.reply("help_admin", keyboards.admin_menu(ctx.lang), **{key: ctx.text(key) for key in MENU_LABELS})
