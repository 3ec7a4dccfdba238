"""'📌 Pin for everyone' and '📍 Unpin' from a job's view: a confirm screen, then the pin or unpin job.

Steps (admin_states), each with a fresh "act_token" its buttons carry:
  act:pin    the pin question: 🔕 silently / 🔔 with a notification / abort
  act:unpin  the unpin question: yes / abort
A step is taken once (take_state); the job is created after commit and run
by the request's bounded pumps, like an unsend.
"""
from __future__ import annotations

import logging

from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from app.bot.buttons import button
from app.bot.callback_data import build, new_token
from app.bot.context import BotContext
from app.models.broadcast import KIND_PIN, KIND_UNPIN
from app.services import admins, audit
from app.services.broadcast.actions import pin, unsend_edit
from app.services.broadcast.jobs import control
from app.services.broadcast.sending import runner

log = logging.getLogger(__name__)
STEP_PIN, STEP_UNPIN = "act:pin", "act:unpin"
TOKEN = "act_token"


@button("j.pin")
def on_pin(ctx: BotContext, job_id: int) -> None:
    """'📌 Pin for everyone': check the job, then ask silently or with a notification."""
    total = _checked(ctx, job_id, KIND_PIN)
    if total is None:
        return
    token = _step(ctx, STEP_PIN, job_id)
    ctx.send(ctx.text("pin_confirm", id=job_id, total=total),
             _keyboard(ctx, [[("btn_pin_silent", build("pin_silent", token=token))],
                             [("btn_pin_notify", build("pin_notify", token=token))],
                             [("btn_act_abort", build("act_no", token=token))]]))


@button("j.unpin")
def on_unpin(ctx: BotContext, job_id: int) -> None:
    """'📍 Unpin': check that a pin is there to remove, then ask."""
    total = _checked(ctx, job_id, KIND_UNPIN)
    if total is None:
        return
    token = _step(ctx, STEP_UNPIN, job_id)
    ctx.send(ctx.text("unpin_confirm", id=job_id, total=total),
             _keyboard(ctx, [[("btn_unpin_yes", build("unpin_yes", token=token)),
                              ("btn_act_abort", build("act_no", token=token))]]))


@button("a.pns")
def on_pin_silent(ctx: BotContext, token: str, _arg: object) -> None:
    """🔕: pin without a notification."""
    _confirmed(ctx, STEP_PIN, token, notify=False)


@button("a.pnn")
def on_pin_notify(ctx: BotContext, token: str, _arg: object) -> None:
    """🔔: pin, each user notified."""
    _confirmed(ctx, STEP_PIN, token, notify=True)


@button("a.upy")
def on_unpin_yes(ctx: BotContext, token: str, _arg: object) -> None:
    """Yes under the unpin question."""
    _confirmed(ctx, STEP_UNPIN, token, notify=False)


def _checked(ctx: BotContext, job_id: int, kind: str) -> int | None:
    """Return the copies the action would reach, or answer why it cannot run now (an alert) and return None."""
    source = control.get_job(job_id)
    if source is None:
        ctx.answer("cb_unknown_job")
        return None
    try:
        total = pin.check_pin(source, kind)
    except unsend_edit.NotActionable as exc:
        ctx.answer(exc.key, alert=True, **exc.values)
        return None
    ctx.answer()
    return total


def _step(ctx: BotContext, step: str, job_id: int) -> str:
    """Put the admin on a step with a fresh token; return the token."""
    token = new_token()
    admins.set_state(ctx.user_id, step, {"job_id": job_id, TOKEN: token})
    return token


def _keyboard(ctx: BotContext, rows: list[list[tuple[str, str]]]) -> dict:
    """Build an inline keyboard from (text key, callback data) rows."""
    return InlineKeyboardMarkup([[InlineKeyboardButton(ctx.text(key), callback_data=data) for key, data in row]
                                 for row in rows]).to_dict()


def _confirmed(ctx: BotContext, step: str, token: str, notify: bool) -> None:
    """Take the question once (a button under an older one does nothing), then create the job after commit."""
    state = admins.get_state(ctx.user_id)
    if state is None or state[0] != step:
        ctx.answer("wiz_expired")
        return
    taken = admins.take_state(ctx.user_id, step, expect={TOKEN: token})
    if taken is None:
        ctx.answer("wiz_stale", alert=True)
        return
    ctx.answer()
    ctx.after_commit(lambda: _create(ctx, KIND_PIN if step == STEP_PIN else KIND_UNPIN, taken["job_id"], notify))


def _create(ctx: BotContext, kind: str, job_id: int, notify: bool) -> None:
    """Create the pin or unpin job, say so, and run the request's bounded pumps."""
    common = dict(actor=audit.admin_actor(ctx.user_id), created_by=ctx.user_id, progress_chat_id=ctx.chat_id,
                  lang=ctx.lang, settings=ctx.settings)
    try:
        job = pin.pin_job(job_id, notify=notify, **common) if kind == KIND_PIN else pin.unpin_job(job_id, **common)
    except unsend_edit.NotActionable as exc:
        ctx.end_transaction()
        log.info("admin %s: %s of job %s refused: %s", ctx.user_id, kind, job_id, exc)
        ctx.reply(exc.key, **exc.values)
        return
    new_id, total = job.id, job.total_count
    ctx.end_transaction()
    ctx.send(ctx.text(f"act_started_{kind}", id=new_id, source=job_id, total=total))
    runner.run_interactive(new_id, settings=ctx.settings, outbox=ctx.outbox, chat_id=ctx.chat_id, lang=ctx.lang)
