"""The job view's 📊 button: the broadcast's results picture, drawn off the webhook and sent as a photo."""
from __future__ import annotations

from app.bot.buttons import button
from app.bot.context import BotContext
from app.services.broadcast.reporting import picture
from app.services.broadcast.reporting.results import NoResults, check


@button("j.chart")
def on_chart(ctx: BotContext, job_id: int) -> None:
    """Queue the picture for this chat and answer at once; it arrives from the picture thread in a moment."""
    try:
        check(job_id)
    except NoResults as exc:
        keys = {"unknown": "cb_unknown_job", "purged": "cb_chart_purged"}
        ctx.answer(keys.get(exc.reason, "cb_chart_nothing"), alert=exc.reason == "purged", id=job_id)
        return
    # Without a picture (RESULTS_PICTURE off, or matplotlib not installed) the numbers follow as one line of text.
    ctx.answer("cb_chart_preparing" if picture.drawable() else "cb_chart_numbers")
    # Queued once the update committed: the picture thread reads the database on its own connection.
    ctx.after_commit(lambda: _queue(ctx, job_id))


def _queue(ctx: BotContext, job_id: int) -> None:
    """Hand the picture to the picture thread; say so when one for this chat is still on its way."""
    if not picture.queue(job_id, {ctx.chat_id: ctx.lang}, tell_failure=True):
        ctx.reply("cb_chart_busy")
