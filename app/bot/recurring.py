"""/recurring: the recurring broadcasts, each with the buttons its state allows (pause, resume, stop for good)."""
from __future__ import annotations

from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from app.bot.buttons import button
from app.bot.callback_data import build
from app.bot.context import BotContext
from app.models.recurring import ACTIVE, PAUSED
from app.services import audit
from app.services.broadcast.schedule import recurring_series as series
from app.texts import t

LIST_LIMIT = 10


def keyboard(lang: str, series_id: int, status: str, *, confirm_stop: bool = False) -> dict | None:
    """Return a series' buttons (pure): pause or resume, and stop; a stopped or ended one has none."""
    if confirm_stop:
        rows = [[(t("btn_rec_stop_yes", lang), build("rec_stop_yes", series_id))],
                [(t("btn_rec_back", lang), build("rec_back", series_id))]]
    elif status in (ACTIVE, PAUSED):
        toggle = ("btn_rec_pause", "rec_pause") if status == ACTIVE else ("btn_rec_resume", "rec_resume")
        rows = [[(t(toggle[0], lang), build(toggle[1], series_id))],
                [(t("btn_rec_stop", lang), build("rec_stop", series_id))]]
    else:
        return None
    return InlineKeyboardMarkup([[InlineKeyboardButton(text, callback_data=data) for text, data in row]
                                 for row in rows]).to_dict()


def on_list(ctx: BotContext) -> None:
    """/recurring: one message per series, newest first."""
    rows = series.newest(LIST_LIMIT)
    if not rows:
        ctx.reply("rec_none")
    for row in rows:
        ctx.send(series.summary(row, ctx.lang), keyboard(ctx.lang, row.id, row.status))


def _redraw(ctx: BotContext, series_id: int, *, confirm_stop: bool = False) -> None:
    """Edit the pressed message to the series as it stands now."""
    row = series.get(series_id)
    query = ctx.update.callback_query
    if row is None or query.message is None:
        return
    text = series.summary(row, ctx.lang)
    if confirm_stop:
        text += "\n\n" + ctx.text("rec_stop_ask", id=series_id)
    ctx.outbox.edit(ctx.chat_id, query.message.message_id, text,
                    reply_markup=keyboard(ctx.lang, series_id, row.status, confirm_stop=confirm_stop))


def _act(ctx: BotContext, series_id: int, change, done_key: str) -> None:
    """Run a guarded change; answer what happened (or the state that refused it) and redraw the message."""
    row = series.get(series_id)
    if row is None:
        ctx.answer("rec_unknown", alert=True)
        return
    if change(series_id, audit.admin_actor(ctx.user_id)):
        ctx.answer(done_key)
    else:
        fresh = series.get(series_id)
        ctx.answer("rec_not_now", alert=True, status=ctx.text(f"rec_status_{fresh.status}"))
    _redraw(ctx, series_id)


@button("rc.pause")
def on_pause(ctx: BotContext, series_id: int) -> None:
    """⏸ under a series: no occurrence until resumed."""
    _act(ctx, series_id, series.pause, "rec_done_paused")


@button("rc.resume")
def on_resume(ctx: BotContext, series_id: int) -> None:
    """▶️ under a paused series: on again from its next occurrence."""
    _act(ctx, series_id, series.resume, "rec_done_resumed")


@button("rc.stop")
def on_stop(ctx: BotContext, series_id: int) -> None:
    """⏹ under a series: ask first (stopping is for good)."""
    if series.get(series_id) is None:
        ctx.answer("rec_unknown", alert=True)
        return
    ctx.answer()
    _redraw(ctx, series_id, confirm_stop=True)


@button("rc.stop_yes")
def on_stop_yes(ctx: BotContext, series_id: int) -> None:
    """The confirmation: stop the series for good."""
    _act(ctx, series_id, series.stop, "rec_done_stopped")


@button("rc.back")
def on_back(ctx: BotContext, series_id: int) -> None:
    """↩️ under the confirmation: the series' own buttons again."""
    ctx.answer()
    _redraw(ctx, series_id)
