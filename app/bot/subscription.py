"""/stop and /subscribe (and their buttons): a user leaves or rejoins the broadcasts, staying a user."""
from __future__ import annotations

import logging

from app.bot import keyboards
from app.bot.buttons import button
from app.bot.context import BotContext
from app.bot.profile import profile_of
from app.services import users
from app.services.broadcast.content.methods import OPTOUT_DATA, OPTOUT_JOB_PREFIX
from app.services.broadcast.reporting import unsubscribes

log = logging.getLogger(__name__)


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


@button(unsubscribes.PREFIX)
def on_unsubscribe_button(ctx: BotContext, signed: tuple[int, str]) -> None:
    """The signed button under a broadcast's copy: the same as /stop, counted once per (job, user) when it changed them.

    A mac that is not the job's, a job without the button or a presser who
    received no job of its family changes nothing: the user is told to send /stop.
    """
    job_id, mac = signed
    if not unsubscribes.accepts(job_id, mac, ctx.user_id):
        log.info("unsubscribe press refused: job %s, user %s", job_id, ctx.user_id)
        ctx.answer("unsub_unknown_button", alert=True)
        return
    ctx.answer()
    if _set(ctx, opted_out=True):
        unsubscribes.count(job_id, ctx.user_id)


@button(OPTOUT_JOB_PREFIX)
def on_stop_job_button(ctx: BotContext, job_id: int) -> None:
    """The unsigned button under copies sent before it was signed: the same as /stop, never counted.

    A job id no broadcast with the button has (forged data) changes nothing: the user is told to send /stop.
    """
    if not unsubscribes.offers_button(job_id):
        ctx.answer("unsub_unknown_button", alert=True)
        return
    ctx.answer()
    _set(ctx, opted_out=True)


@button("u.sub")
def on_subscribe_button(ctx: BotContext, _arg: object) -> None:
    """The button under the /stop confirmation: the same as /subscribe."""
    ctx.answer()
    _set(ctx, opted_out=False)


def _set(ctx: BotContext, opted_out: bool) -> bool:
    """Store the choice and confirm it; pressing or sending twice confirms again without a second write.

    Return whether the choice changed (in the update's own transaction).
    """
    changed = users.set_opted_out(profile_of(ctx.update.effective_user), opted_out)
    if opted_out:
        ctx.reply("optout_done", keyboards.subscribe_again(ctx.lang))
    else:
        ctx.reply("optin_done")
    return changed
