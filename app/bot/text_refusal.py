"""Answer an admin whose text Telegram would refuse, with the numbers the engine uses."""
from __future__ import annotations

from app.bot.context import BotContext
from app.services.broadcast.content import text_rules


def refuse_text(ctx: BotContext, exc: text_rules.TextRefused, empty_key: str) -> None:
    """Tell the admin why the text is refused: too long, broken HTML, or (empty_key) no text at all."""
    if exc.reason == text_rules.TOO_LONG:
        ctx.reply("edit_too_long", length=exc.length, limit=exc.limit)
    elif exc.reason == text_rules.BAD_HTML:
        ctx.reply("edit_bad_html", problem=exc.problem)
    else:
        ctx.reply(empty_key)
