"""'⏳ Auto-delete' from a job's view: choose T (1, 6, 24 or 47 hours) or cancel it; cron does the deleting.

Step (admin_states) act:expire, with a fresh "act_token" its buttons carry;
taken once (take_state), so a button under an older screen does nothing.
"""
from __future__ import annotations

from datetime import timedelta

from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from app.bot.buttons import button
from app.bot.callback_data import build, new_token
from app.bot.context import BotContext
from app.repository.db_clock import db_utcnow
from app.services import admins, audit
from app.services.broadcast.actions import expiry, unsend_edit
from app.services.broadcast.jobs import control
from app.services.broadcast.reporting.expiry_view import after_text, expiry_line

STEP_EXPIRE = "act:expire"
TOKEN = "act_token"
# The choices offered: Telegram deletes for 48 hours, so 47 is the longest (an hour left for the pass).
HOURS = (1, 6, 24, 47)


@button("j.exp")
def on_expire(ctx: BotContext, job_id: int) -> None:
    """'⏳ Auto-delete': show the job's current expiry and the choices."""
    job = control.get_job(job_id)
    if job is None:
        ctx.answer("cb_unknown_job")
        return
    ctx.answer()
    token = new_token()
    admins.set_state(ctx.user_id, STEP_EXPIRE, {"job_id": job_id, TOKEN: token})
    text = ctx.text("expire_pick", id=job_id) + expiry_line(job, db_utcnow(), ctx.lang)
    rows = [[(ctx.text("btn_expire_h", h=h), build("expire_hours", h, token)) for h in HOURS[:2]],
            [(ctx.text("btn_expire_h", h=h), build("expire_hours", h, token)) for h in HOURS[2:]]]
    if job.expire_after is not None:
        rows.append([(ctx.text("btn_expire_off"), build("expire_off", token=token))])
    rows.append([(ctx.text("btn_act_abort"), build("act_no", token=token))])
    ctx.send(text, InlineKeyboardMarkup([[InlineKeyboardButton(label, callback_data=data) for label, data in row]
                                         for row in rows]).to_dict())


@button("a.exh")
def on_expire_hours(ctx: BotContext, token: str, hours: int) -> None:
    """A T chosen: set it (the job's copies then go T after each arrived)."""
    job_id = _taken(ctx, token)
    if job_id is None:
        return
    if hours not in HOURS:
        ctx.reply("wiz_expired")
        return
    try:
        expiry.set_expiry(job_id, timedelta(hours=hours), audit.admin_actor(ctx.user_id))
    except unsend_edit.NotActionable as exc:
        ctx.reply(exc.key, **exc.values)
        return
    ctx.reply("expire_set", id=job_id, after=after_text(hours * 3600, ctx.lang))


@button("a.exo")
def on_expire_off(ctx: BotContext, token: str, _arg: object) -> None:
    """'🚫 Cancel auto-delete': no later pass (an unsend job it already made runs on; cancel that one apart)."""
    job_id = _taken(ctx, token)
    if job_id is None:
        return
    done = expiry.cancel_expiry(job_id, audit.admin_actor(ctx.user_id))
    ctx.reply("expire_cancelled" if done else "expire_none", id=job_id)


def _taken(ctx: BotContext, token: str) -> int | None:
    """Take the expiry screen once; return its job id, or answer why the button is stale and return None."""
    state = admins.get_state(ctx.user_id)
    if state is None or state[0] != STEP_EXPIRE:
        ctx.answer("wiz_expired")
        return None
    taken = admins.take_state(ctx.user_id, STEP_EXPIRE, expect={TOKEN: token})
    if taken is None:
        ctx.answer("wiz_stale", alert=True)
        return None
    ctx.answer()
    return taken["job_id"]
