"""A paid broadcast's questions: its cost against the bot's Star balance, and the second Confirm.

A paid broadcast's first Confirm leads to a second one, under yet another id,
after the bot's Star balance was checked; the last Confirm checks it once more.
Scheduled instead, it is checked when it starts (sending/stars.before_run), as
the CLI's `--at` is. Stars are counted in whole nanostars (jobs/star_amount.py),
the balance read as the engine reads it (sending/stars.cover).
"""
from __future__ import annotations

from dataclasses import replace

from app.bot.ab_presend import sent_now
from app.bot.callback_data import build, new_token
from app.bot.context import BotContext
from app.bot.wizard_state import CONFIRM_ID, STEP_PREVIEW, current_wizard_draft
from app.models.broadcast import CONTENT_ALBUM
from app.services import admins
from app.services.audience import segments
from app.services.broadcast.jobs import creation
from app.services.broadcast.jobs.draft import Draft
from app.services.broadcast.jobs.estimate import paid_messages
from app.services.broadcast.jobs.star_amount import PER_PAID_MESSAGE, cost_text, stars_text
from app.services.broadcast.sending import stars
from app.texts import t


def is_paid(ctx: BotContext, draft: Draft) -> bool:
    """Tell whether the draft would go as a paid broadcast (never an album: copyMessages has no paid option)."""
    return bool(ctx.settings["broadcast_paid_enabled"]) and draft.content.get("type") != CONTENT_ALBUM


def paid_lines(ctx: BotContext, n: int) -> tuple[str, bool]:
    """Return the cost and balance lines, and whether the balance covers the capped cost (exactly, in nanostars)."""
    cap = ctx.settings["broadcast_paid_max_messages"]
    likely, most = paid_messages(n, ctx.settings)
    line = ctx.text("wiz_paid_line", stars=cost_text(most * PER_PAID_MESSAGE), cap=cap)
    if likely < most:
        line += ctx.text("wiz_paid_likely", stars=cost_text(likely * PER_PAID_MESSAGE))
    found = stars.cover(ctx.client, most)
    if found.balance is None:
        return line + ctx.text("wiz_balance_unknown"), False
    line += ctx.text("wiz_balance_line", balance=stars_text(found.balance))
    if not found.enough:
        return line + ctx.text("wiz_balance_short", balance=stars_text(found.balance),
                               stars=cost_text(found.cost)), False
    return line, True


def ask_paid_confirm(ctx: BotContext, token: str) -> bool:
    """Turn a paid broadcast's first Confirm into a second question; False once that one is confirmed."""
    draft = current_wizard_draft(ctx, (STEP_PREVIEW,), CONFIRM_ID, token)
    if draft is None:
        return True  # refused and answered
    if draft.paid_ok or not is_paid(ctx, draft):
        return False
    # New ids: the first Confirm (and a double tap of it) cannot stand in for the second.
    preview_id, confirm_id = new_token(), new_token()
    draft = replace(draft, paid_ok=True, preview_id=preview_id, confirm_id=confirm_id)
    admins.set_state(ctx.user_id, STEP_PREVIEW, draft.to_json())
    n = sent_now(draft, creation.count_recipients(segments.of_draft(draft)))  # a test pays for its share only
    ctx.answer()

    def second_question() -> None:
        line, enough = paid_lines(ctx, n)
        row = [(t("btn_pay_confirm", ctx.lang), build("confirm", token=confirm_id))] if enough else []
        row.append((t("btn_abort", ctx.lang), build("abort", token=preview_id)))
        markup = {"inline_keyboard": [[{"text": label, "callback_data": data} for label, data in row]]}
        ctx.send(ctx.text("wiz_paid_confirm", count=n) + line + (ctx.text("wiz_paid_ask") if enough else ""), markup)

    ctx.after_commit(second_question)
    return True


def balance_refusal(ctx: BotContext, draft: Draft) -> str | None:
    """Read the balance again at a paid broadcast's last Confirm; return the refusal to show, or None if it covers it.

    The screens checked it too, but a balance spent since (or a crafted
    press) must not start a paid broadcast the bot cannot pay for.
    """
    if not (draft.paid_ok and is_paid(ctx, draft)):
        return None
    line, enough = paid_lines(ctx, sent_now(draft, creation.count_recipients(segments.of_draft(draft))))
    return None if enough else line
