"""The pre-send screen: the exact message, recipients after filters, duration, options and paid cost.

Its toggles (silent, protect, languages, active/joined presets, the largest sources) and the
confirm button carry the preview id; every toggle stores a new preview id and
re-renders the screen, so a Confirm under an older screen can never confirm
options the admin no longer sees. The screen's text is presend_text, its
keyboard presend_keyboard, a paid broadcast's questions presend_paid.
"""
from __future__ import annotations

from concurrent.futures import Future
from dataclasses import replace

from app.bot import ab_extras, ab_presend, keyboards, presend_rules
from app.bot.buttons import button
from app.bot.callback_data import new_token
from app.bot.context import BotContext
from app.bot.presend_keyboard import screen_keyboard, toggled
from app.bot.presend_paid import is_paid, paid_lines
from app.bot.presend_text import screen_body
from app.bot.wizard_state import PREVIEW_ID, STEP_PREVIEW, current_wizard_draft
from app.services import admins
from app.services.audience import segments
from app.services.broadcast.jobs import creation
from app.services.broadcast.jobs.draft import Draft
from app.services.broadcast.jobs.estimate import pending_ahead


def count(draft: Draft) -> int:
    """Count the draft's recipients now, with the WHERE population will use."""
    return creation.count_recipients(segments.of_draft(draft))


@button("w.opt")
def on_toggle(ctx: BotContext, token: str, option: str) -> None:
    """Flip one filter or option and re-render the screen under a new preview id."""
    retoggle(ctx, token, lambda draft: toggled(draft, option))


@button("w.src")
def on_toggle_source(ctx: BotContext, token: str, source: str) -> None:
    """Add or remove one source filter and re-render the screen under a new preview id."""
    retoggle(ctx, token, lambda draft: draft.with_target(draft.target.toggle_source(source)))


@button("w.abg")
def on_goal(ctx: BotContext, token: str, position: int) -> None:
    """Choose what picks an A/B test's winner (the CTR, or clicks on one button) and re-render the screen."""
    retoggle(ctx, token, lambda draft: ab_extras.set_goal(draft, position) if draft.ab else draft)


def retoggle(ctx: BotContext, token: str, change) -> None:
    """Apply change to the screen's draft when the press is current, and show it unless nobody would receive it."""
    draft = current_wizard_draft(ctx, (STEP_PREVIEW,), PREVIEW_ID, token)
    if draft is None:
        return
    if draft.paid_ok:
        ctx.answer("wiz_stale", alert=True)  # the screen was already confirmed once
        return
    draft = change(draft)
    n = count(draft)
    if n == 0:
        # Never show a screen nobody would receive; the current one stays valid.
        ctx.answer("wiz_filters_empty", alert=True)
        return
    ctx.answer()
    message = ctx.update.callback_query.message
    show(ctx, draft, n, edit_message_id=message.message_id if message else None)


def show(ctx: BotContext, draft: Draft, n: int, *, edit_message_id: int | None = None,
         preview: Future | tuple[Future, ...] | None = None) -> None:
    """Store a new preview id and render the screen, once the preview just sent (if any) was delivered.

    With a preview, the screen waits for the reply flush that sends it: a
    preview that failed (a 429 that outlasted the reply budget, a deleted
    source message) gets a refusal and the audience buttons, never a Confirm
    under nothing. Paid: the screen also waits for the Star balance.
    """
    preview_id = new_token()
    draft = replace(presend_rules.resolve(draft, ctx.settings), paid_ok=False, preview_id=preview_id,
                    confirm_id=new_token())
    admins.set_state(ctx.user_id, STEP_PREVIEW, draft.to_json())
    paid = is_paid(ctx, draft)
    body = screen_body(ctx, draft, n, paid, pending_ahead())

    def render() -> None:
        if not delivered(preview):
            counts = creation.audience_counts()
            ctx.send(ctx.text("wiz_preview_failed"), keyboards.audience(ctx.lang, counts, draft.draft_id,
                                                                      members=ctx.main_channel_id is not None))
            return
        ok = ab_presend.enough(draft, n)  # a test with fewer recipients than versions offers no Confirm
        if not paid:
            ask = ctx.text("wiz_ask_send") if ok else ""
            _put(ctx, body + ask, screen_keyboard(ctx.lang, draft, preview_id, confirm=ok), edit_message_id)
            return
        line, enough = paid_lines(ctx, ab_presend.sent_now(draft, n))
        enough = enough and ok
        # Scheduled (never a test), the engine reads the balance when it starts, as for the CLI's --at.
        line = ("" if draft.ab else ctx.text("wiz_paid_at_start")) + line
        markup = screen_keyboard(ctx.lang, draft, preview_id, confirm=enough)
        _put(ctx, body + line + (ctx.text("wiz_ask_send") if enough else ""), markup, edit_message_id)

    if preview is None and not paid:
        render()  # a re-rendered screen: its preview was delivered before
    else:
        ctx.after_commit(render)


def delivered(preview: Future | tuple[Future, ...] | None) -> bool:
    """Tell whether the preview reached the admin; one still queued (its 429 outlasted the flush) is withdrawn.

    A tuple (the previews of each language version) is delivered when every one of them is.
    """
    if isinstance(preview, tuple):
        return all([delivered(one) for one in preview])  # a list: every one still queued is withdrawn
    if preview is None:
        return True
    if not preview.done():
        preview.cancel()  # the outbox drops a cancelled op: no preview arriving after its refusal
        return False
    return preview.result() is not None


def _put(ctx: BotContext, text: str, markup: dict, edit_message_id: int | None) -> None:
    """Send the screen, or replace the one whose toggle was pressed."""
    if edit_message_id is None:
        ctx.send(text, markup)
    else:
        ctx.outbox.edit(ctx.chat_id, edit_message_id, text, reply_markup=markup)
