"""A press on a broadcast's tap button: tag the presser and answer them (anyone may press)."""
from __future__ import annotations

import logging

from app.bot.buttons import button
from app.bot.context import BotContext
from app.services.audience import tap

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
