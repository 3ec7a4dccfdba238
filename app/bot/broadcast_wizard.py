"""The admin's broadcast wizard: message -> optional link button -> audience -> preview -> confirm.

The state lives in admin_states (Passenger runs several processes); the router
has already checked admin rights before any function here runs.
"""
from __future__ import annotations

import logging

from app.bot import drafts, keyboards
from app.bot.context import BotContext
from app.services import admins
from app.services.broadcast import jobs, runner

log = logging.getLogger(__name__)
STEP_MESSAGE, STEP_BUTTON = "wiz:message", "wiz:button"
STEP_AUDIENCE, STEP_PREVIEW = "wiz:audience", "wiz:preview"
STAR_PER_MESSAGE = 0.1


def on_broadcast(ctx: BotContext) -> None:
    """Start (or restart) the wizard: ask for the message to broadcast."""
    admins.set_state(ctx.user_id, STEP_MESSAGE, {})
    ctx.reply("wiz_send_message")


def on_input(ctx: BotContext, step: str, draft: dict) -> None:
    """Take the admin's message for the current step."""
    if step == STEP_MESSAGE:
        take_message(ctx)
    elif step == STEP_BUTTON:
        take_button(ctx, draft)
    elif step == STEP_AUDIENCE:
        ctx.reply("wiz_choose_audience", keyboards.audience(ctx.lang, jobs.audience_counts()))
    else:
        ctx.reply("wiz_use_buttons")


def take_message(ctx: BotContext) -> None:
    """Keep a reference to the admin's message (it is copied, never re-typed), then ask for a button."""
    try:
        content = drafts.copy_draft(ctx.update.message)
    except drafts.DraftError as exc:
        ctx.reply(exc.key, **exc.values)
        return
    admins.set_state(ctx.user_id, STEP_BUTTON, {"content": content})
    ctx.reply("wiz_ask_button", keyboards.no_button(ctx.lang))


def take_button(ctx: BotContext, draft: dict) -> None:
    """Accept "text | URL" or explain what is wrong and stay on the step."""
    try:
        label, url = drafts.parse_url_button(ctx.update.message.text)
    except drafts.DraftError as exc:
        ctx.reply("wiz_bad_button", reason=ctx.text(exc.key, **exc.values))
        return
    to_audience(ctx, {**draft, "button_text": label, "button_url": url})


def on_no_button(ctx: BotContext, _arg: object) -> None:
    """Skip the link button."""
    state = admins.get_state(ctx.user_id)
    if state is None or state[0] != STEP_BUTTON:
        ctx.answer("wiz_expired")
        return
    ctx.answer()
    to_audience(ctx, {**state[1], "button_text": None, "button_url": None})


def to_audience(ctx: BotContext, draft: dict) -> None:
    """Move to the audience step and offer each audience with its size."""
    admins.set_state(ctx.user_id, STEP_AUDIENCE, draft)
    ctx.reply("wiz_choose_audience", keyboards.audience(ctx.lang, jobs.audience_counts()))


def on_audience(ctx: BotContext, audience: str) -> None:
    """Choose the audience and show the preview; an empty audience keeps the admin on this step."""
    state = admins.get_state(ctx.user_id)
    if state is None or state[0] not in (STEP_AUDIENCE, STEP_PREVIEW):
        ctx.answer("wiz_expired")
        return
    draft = {k: v for k, v in state[1].items() if k != "audience"}
    count = jobs.audience_counts()[audience]
    if count == 0:
        admins.set_state(ctx.user_id, STEP_AUDIENCE, draft)
        ctx.answer("wiz_empty_audience", alert=True)
        return
    admins.set_state(ctx.user_id, STEP_PREVIEW, {**draft, "audience": audience})
    ctx.answer()
    send_preview(ctx, draft, audience, count)


def send_preview(ctx: BotContext, draft: dict, audience: str, count: int) -> None:
    """Copy the message to the admin exactly as users will get it, then the confirm question."""
    content = draft["content"]
    ctx.outbox.copy(ctx.chat_id, content["from_chat_id"], content["message_id"],
                    reply_markup=keyboards.url_button(draft.get("button_text"), draft.get("button_url")))
    paid = ""
    if ctx.settings["broadcast_paid_enabled"]:
        paid = ctx.text("wiz_paid_line", stars=f"{count * STAR_PER_MESSAGE:.1f}",
                        cap=ctx.settings["broadcast_paid_max_messages"])
    ctx.reply("wiz_preview", keyboards.confirm(ctx.lang), audience=ctx.text(f"aud_name_{audience}"),
              count=count, paid=paid)


def on_confirm(ctx: BotContext, _arg: object) -> None:
    """Take the draft (exactly once, even for a double tap), answer at once, start the job after commit."""
    draft = admins.take_state(ctx.user_id, STEP_PREVIEW)
    if draft is None:
        ctx.answer("wiz_expired")
        return
    ctx.answer("cb_working")
    ctx.after_commit(lambda: start_job(ctx, draft))


def start_job(ctx: BotContext, draft: dict) -> None:
    """Create, populate and start the job, then run the request's bounded pumps."""
    try:
        job = jobs.create_job(
            audience=draft["audience"], created_by=ctx.user_id, content=draft["content"],
            button_text=draft.get("button_text"), button_url=draft.get("button_url"),
            settings=ctx.settings, progress_chat_id=ctx.chat_id, lang=ctx.lang,
        )
    except ValueError as exc:
        # Nothing was created (EmptyAudience is a ValueError): let the admin choose again.
        ctx.end_transaction()
        admins.restore_state(ctx.user_id, STEP_AUDIENCE, {k: v for k, v in draft.items() if k != "audience"})
        if isinstance(exc, jobs.EmptyAudience):
            ctx.reply("wiz_empty_audience", keyboards.audience(ctx.lang, jobs.audience_counts()))
        else:
            ctx.reply("wiz_create_failed", error=str(exc))
        return
    job_id = job.id
    ctx.end_transaction()
    runner.run_interactive(job_id, settings=ctx.settings, client=ctx.client, outbox=ctx.outbox,
                           chat_id=ctx.chat_id, lang=ctx.lang)


def on_abort(ctx: BotContext, _arg: object) -> None:
    """Drop the draft at any step."""
    if not admins.clear_state(ctx.user_id):
        ctx.answer("wiz_expired")
        return
    ctx.answer()
    ctx.reply("wiz_aborted")
