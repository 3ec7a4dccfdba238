"""/stop and /subscribe (and their buttons): a user leaves or rejoins the broadcasts, staying a user."""
from __future__ import annotations

from app.bot import keyboards
from app.bot.buttons import button
from app.bot.context import BotContext
from app.bot.profile import profile_of
from app.services import users
from app.services.broadcast.content.methods import OPTOUT_DATA


def on_stop(ctx: BotContext) -> None:
    """Opt the user out of broadcasts and offer to subscribe again."""
    _set(ctx, opted_out=True)


def on_subscribe(ctx: BotContext) -> None:
    """Opt the user back in to broadcasts."""
    _set(ctx, opted_out=False)


@button(OPTOUT_DATA)
def on_stop_button(ctx: BotContext, _arg: object) -> None:
    """The button under a copy (setting broadcast_optout_button): the same as /stop."""
    ctx.answer()
    _set(ctx, opted_out=True)


@button("u.sub")
def on_subscribe_button(ctx: BotContext, _arg: object) -> None:
    """The button under the /stop confirmation: the same as /subscribe."""
    ctx.answer()
    _set(ctx, opted_out=False)


def _set(ctx: BotContext, opted_out: bool) -> None:
    """Store the choice and confirm it; pressing or sending twice confirms again without a second write."""
    users.set_opted_out(profile_of(ctx.update.effective_user), opted_out)
    if opted_out:
        ctx.reply("optout_done", keyboards.subscribe_again(ctx.lang))
    else:
        ctx.reply("optin_done")
