"""/chains: the drip chains, each with its steps' numbers and the buttons its state allows (pause, resume, stop)."""
from __future__ import annotations

import html
import re

from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from app.bot.buttons import button
from app.bot.callback_data import build
from app.bot.context import BotContext
from app.models.chain import ACTIVE, PAUSED
from app.services import audit
from app.services.chains import manage
from app.texts import t

LIST_LIMIT = 20
EXCERPT_CHARS = 40
STATUS_KEYS = {"active": "chain_status_active", "paused": "chain_status_paused", "stopped": "chain_status_stopped"}
_TAG = re.compile(r"<[^>]*>")


def excerpt(text: str) -> str:
    """Return a step's text as the user reads it (tags dropped, one line), cut to EXCERPT_CHARS with "…"."""
    plain = " ".join(html.unescape(_TAG.sub("", text)).split())
    return plain if len(plain) <= EXCERPT_CHARS else plain[:EXCERPT_CHARS].rstrip() + "…"


def status_text(status: str, lang: str) -> str:
    """Return a chain's status in words (the raw value for one this screen does not know)."""
    return t(STATUS_KEYS[status], lang) if status in STATUS_KEYS else status


def summary(view: manage.ChainView, lang: str) -> str:
    """Render one chain for an admin (pure): name, trigger, status, and per step its delay, text and numbers."""
    steps = "\n".join(_step(s, lang) for s in view.steps)
    return t("chain_item", lang, id=view.id, name=view.name, status=status_text(view.status, lang),
             trigger=view.trigger, steps=steps)


def _step(s: manage.StepView, lang: str) -> str:
    """Render one step's line and numbers, with who waits for the next day (the daily cap) when anybody does."""
    line = t("chain_step", lang, position=s.position, delay=s.delay, text=excerpt(s.text), claimed=s.stats["claimed"],
             delivered=s.stats["delivered"], failed=s.stats["failed"], pending=s.stats["pending"])
    waiting = s.stats["waiting"]
    return line + t("chain_step_waiting", lang, n=waiting) if waiting else line


def keyboard(lang: str, chain_id: int, status: str, *, confirm_stop: bool = False) -> dict | None:
    """Return a chain's buttons (pure): pause or resume, and stop; a stopped one has none."""
    if confirm_stop and status in (ACTIVE, PAUSED):
        rows = [[(t("btn_chain_stop_yes", lang), build("chain_stop_yes", chain_id))],
                [(t("btn_chain_back", lang), build("chain_back", chain_id))]]
    elif status in (ACTIVE, PAUSED):
        toggle = ("btn_chain_pause", "chain_pause") if status == ACTIVE else ("btn_chain_resume", "chain_resume")
        rows = [[(t(toggle[0], lang), build(toggle[1], chain_id))],
                [(t("btn_chain_stop", lang), build("chain_stop", chain_id))]]
    else:
        return None
    return InlineKeyboardMarkup([[InlineKeyboardButton(text, callback_data=data) for text, data in row]
                                 for row in rows]).to_dict()


def on_list(ctx: BotContext) -> None:
    """/chains: one message per chain, newest first (at most LIST_LIMIT)."""
    views = manage.newest(LIST_LIMIT)
    if not views:
        ctx.reply("chain_none")
    for view in views:
        ctx.send(summary(view, ctx.lang), keyboard(ctx.lang, view.id, view.status))


def _redraw(ctx: BotContext, chain_id: int, *, confirm_stop: bool = False) -> None:
    """Edit the pressed message to the chain as it stands now (a chain gone: its buttons taken away)."""
    query = ctx.update.callback_query
    if query.message is None:
        return
    view = manage.view(chain_id)
    if view is None:
        ctx.outbox.edit(ctx.chat_id, query.message.message_id, ctx.text("chain_unknown"), reply_markup=None)
        return
    text = summary(view, ctx.lang)
    if confirm_stop and view.status in (ACTIVE, PAUSED):
        text += "\n\n" + ctx.text("chain_stop_ask", id=chain_id)
    ctx.outbox.edit(ctx.chat_id, query.message.message_id, text,
                    reply_markup=keyboard(ctx.lang, chain_id, view.status, confirm_stop=confirm_stop))


def _refuse_stale(ctx: BotContext, chain_id: int, allowed: tuple[str, ...]) -> bool:
    """Answer a press the chain's state (or its absence) no longer allows, and redraw; True if refused."""
    status = manage.status_of(chain_id)
    if status is None:
        ctx.answer("chain_unknown", alert=True)
    elif status not in allowed:
        ctx.answer("chain_not_now", alert=True, status=status_text(status, ctx.lang))
    else:
        return False
    _redraw(ctx, chain_id)
    return True


def _act(ctx: BotContext, chain_id: int, change, allowed: tuple[str, ...], done_key: str) -> None:
    """Run a guarded change, audited as the admin; answer what happened (or the state that refused it); redraw."""
    if _refuse_stale(ctx, chain_id, allowed):
        return
    if change(chain_id, audit.admin_actor(ctx.user_id)):
        ctx.answer(done_key)
        _redraw(ctx, chain_id)
    else:  # changed between the read and the guarded UPDATE
        _refuse_stale(ctx, chain_id, ())


@button("ch.pause")
def on_pause(ctx: BotContext, chain_id: int) -> None:
    """⏸ under an active chain: nobody new is claimed until resumed."""
    _act(ctx, chain_id, manage.pause, (ACTIVE,), "chain_done_paused")


@button("ch.resume")
def on_resume(ctx: BotContext, chain_id: int) -> None:
    """▶️ under a paused chain: claims start again, catching up."""
    _act(ctx, chain_id, manage.resume, (PAUSED,), "chain_done_resumed")


@button("ch.stop")
def on_stop(ctx: BotContext, chain_id: int) -> None:
    """⏹ under a chain: ask first (stopping is for good)."""
    if _refuse_stale(ctx, chain_id, (ACTIVE, PAUSED)):
        return
    ctx.answer()
    _redraw(ctx, chain_id, confirm_stop=True)


@button("ch.stop_yes")
def on_stop_yes(ctx: BotContext, chain_id: int) -> None:
    """The confirmation: stop the chain for good."""
    _act(ctx, chain_id, manage.stop, (ACTIVE, PAUSED), "chain_done_stopped")


@button("ch.back")
def on_back(ctx: BotContext, chain_id: int) -> None:
    """↩️ under the confirmation: the chain's own buttons again."""
    ctx.answer()
    _redraw(ctx, chain_id)
