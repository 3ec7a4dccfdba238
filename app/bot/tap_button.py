"""A press on a broadcast's tap button or keyboard button: tag the presser or answer them (anyone may press)."""
from __future__ import annotations

import logging

from app.bot.buttons import button
from app.bot.context import BotContext
from app.services.audience import key_press, tap

log = logging.getLogger(__name__)


@button(tap.PREFIX)
def on_tap(ctx: BotContext, signed: tuple[int, str]) -> None:
    """Tag the presser with the job's tag and answer with its text; a forged or stale press changes nothing."""
    job_id, mac = signed
    accepted, answer = tap.press(job_id, mac, ctx.user_id)
    if not accepted:
        log.info("tap refused: job %s, user %s", job_id, ctx.user_id)
        ctx.answer("tap_refused")
    elif answer:
        ctx.answer("tap_custom", answer=answer)
    else:
        ctx.answer("tap_done")


@button(key_press.PREFIX)
def on_key(ctx: BotContext, keyed: tuple[int, int, str]) -> None:
    """Answer a keyboard's tap button (a toast) or menu button (an alert, its text); a forged press changes nothing."""
    job_id, position, mac = keyed
    kind, answer = key_press.press(job_id, position, mac, ctx.user_id)
    if kind is None:
        log.info("keyboard press refused: job %s, button %s, user %s", job_id, position, ctx.user_id)
        ctx.answer("key_refused")
    elif answer:
        # A menu's answer is the admin's text, shown as an alert the user reads and closes.
        ctx.answer("tap_custom", alert=kind == "menu", answer=answer)
    else:
        ctx.answer("tap_done")


@button("w.kp")
def on_preview(ctx: BotContext, _arg: object) -> None:
    """Say what a tap or menu button under the admin's preview does in users' copies (the preview has no job)."""
    ctx.answer("key_preview", alert=True)
