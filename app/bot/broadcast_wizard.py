"""The admin's broadcast wizard: message -> optional link button -> audience -> pre-send screen -> confirm.

The state lives in admin_states (Passenger runs several processes); the router
has already checked admin rights before any function here runs.

Every button is bound to what is on screen: "no button" and the audience
buttons carry the draft's random id (new on each /broadcast), confirm and
abort carry the preview's id (new on each preview). Both ids live in the
state's JSON draft; a press whose id is not the current one changes nothing.
"""
from __future__ import annotations

import logging
from dataclasses import replace
from datetime import datetime

from app.bot import ab_step, drafts, keyboards, presend, presend_paid, segment_rows, variant_step
from app.bot.buttons import button
from app.bot.callback_data import new_token
from app.bot.context import BotContext
from app.bot.wizard_preview import send_preview
from app.bot.wizard_state import (  # noqa: F401  (re-exported)
    CONFIRM_ID,
    DRAFT_ID,
    PREVIEW_ID,
    STEP_AUDIENCE,
    STEP_BUTTON,
    STEP_MESSAGE,
    STEP_PREVIEW,
    current_draft,
    current_wizard_draft,
)
from app.models.audience import MEMBER_AUDIENCES, Audience
from app.models.broadcast import CONTENT_ALBUM, BroadcastJob
from app.services import admins, albums, audit
from app.services.audience.segments import SegmentMissing
from app.services.broadcast.content import keyboard, variants
from app.services.broadcast.jobs import creation
from app.services.broadcast.jobs.draft import Draft
from app.services.broadcast.sending import runner

log = logging.getLogger(__name__)


def on_broadcast(ctx: BotContext) -> None:
    """Start (or restart) the wizard with a new draft id: ask for the message to broadcast."""
    albums.forget_old(ctx.user_id)
    admins.set_state(ctx.user_id, STEP_MESSAGE, Draft(draft_id=new_token()).to_json())
    ctx.reply("wiz_send_message")


def on_input(ctx: BotContext, step: str, state: dict) -> None:
    """Take the admin's message for the current step."""
    draft = Draft.from_json(state)
    if not draft.draft_id:
        # A draft begun before drafts had ids: give it one so its new buttons are bound.
        draft = replace(draft, draft_id=new_token())
        admins.set_state(ctx.user_id, step, draft.to_json())
    if step == STEP_MESSAGE:
        take_message(ctx, draft)
    elif step == STEP_BUTTON:
        take_button(ctx, draft)
    elif step == variant_step.STEP_VARIANT_LANG:
        variant_step.on_code(ctx, draft)
    elif step == variant_step.STEP_VARIANT:
        variant_step.on_text(ctx, state)
    elif step == ab_step.STEP_AB_VERSION:
        ab_step.on_text(ctx, draft)
    elif step == STEP_AUDIENCE and draft.content_type == CONTENT_ALBUM and keyboard.looks_like_builder(
            ctx.update.message.text):
        take_button(ctx, draft)  # an album's keyboard: its parts skip the button step (wiz_album_taken says so)
    elif step == STEP_AUDIENCE:
        ctx.reply("wiz_choose_audience", audience_keyboard(ctx, draft))
    else:
        ctx.reply("wiz_use_buttons")


def take_message(ctx: BotContext, draft: Draft) -> None:
    """Keep a reference to the admin's message (it is copied, never re-typed), then ask for a button."""
    try:
        content, note = drafts.personalise(ctx.update.message, drafts.copy_draft(ctx.update.message))
    except drafts.DraftError as exc:
        ctx.reply(exc.key, **exc.values)
        return
    if note:
        ctx.reply(note)
    state = Draft(draft_id=draft.draft_id, content=content).to_json()
    if content["type"] == "copy" and ctx.update.message.text is not None:
        state[drafts.MAIN_HTML] = ctx.update.message.text_html  # a language version turns it into a text broadcast
    admins.set_state(ctx.user_id, STEP_BUTTON, state)
    ab = ab_step.start_refusal(Draft.from_json(state)) is None  # 🆎 only under a message that can be a test
    ctx.reply("wiz_ask_button", keyboards.no_button(ctx.lang, draft.draft_id, ab=ab))


def take_button(ctx: BotContext, draft: Draft) -> None:
    """Accept a keyboard, "text | URL" or "text | tag:TAG | answer", or explain what is wrong and stay on the step."""
    if keyboard.looks_like_builder(ctx.update.message.text):
        try:
            kb = keyboard.parse_text(ctx.update.message.text)
        except keyboard.KeyboardError as exc:
            ctx.reply("wiz_bad_key", reason=exc.text(ctx.lang))  # the draft stays on this step, as it was
            return
        if refusal := ab_step.button_refusal(draft, None, kb):
            ctx.reply(refusal)
            return
        to_audience(ctx, replace(draft, button_text=None, button_url=None, tap=None, keyboard=kb))
        return
    try:
        tap = drafts.parse_tap_button(ctx.update.message.text)
        label, url = (None, None) if tap else drafts.parse_url_button(ctx.update.message.text)
    except drafts.DraftError as exc:
        ctx.reply("wiz_bad_button", reason=ctx.text(exc.key, **exc.values))
        return
    if refusal := ab_step.button_refusal(draft, tap):
        ctx.reply(refusal)
        return
    to_audience(ctx, replace(draft, button_text=label, button_url=url, tap=tap, keyboard=None))


@button("w.no_button")
def on_no_button(ctx: BotContext, token: str, _arg: object) -> None:
    """Skip the link button."""
    draft = current_wizard_draft(ctx, (STEP_BUTTON,), DRAFT_ID, token)
    if draft is None:
        return
    if ab_step.needs_shared_link(draft):
        ctx.answer("ab_need_link", alert=True)  # its winner is chosen by clicks on the link
        return
    ctx.answer()
    to_audience(ctx, replace(draft, button_text=None, button_url=None, tap=None, keyboard=None))


def to_audience(ctx: BotContext, draft: Draft) -> None:
    """Move to the audience step and offer each audience with its size."""
    admins.set_state(ctx.user_id, STEP_AUDIENCE, draft.to_json())
    ctx.reply("wiz_choose_audience", audience_keyboard(ctx, draft))


@button("w.aud")
def on_audience(ctx: BotContext, token: str, audience: str) -> None:
    """Choose the audience and show the pre-send screen; an empty audience keeps the admin on this step."""
    state = current_wizard_draft(ctx, (STEP_AUDIENCE, STEP_PREVIEW), DRAFT_ID, token)
    if state is None:
        return
    if audience in MEMBER_AUDIENCES and ctx.main_channel_id is None:
        # No main channel: membership is unknown, so member audiences mean nothing.
        ctx.answer("wiz_no_channel", alert=True)
        return
    # A new audience starts without filters; the send options stay as chosen.
    audience_chosen(ctx, replace(state.without_preview().with_target(Audience(audience)), segment_id=None,
                                 exclude_ids=None))


def audience_chosen(ctx: BotContext, draft: Draft) -> None:
    """Go on to the preview with the audience just chosen; an empty audience keeps the admin on that step."""
    if draft.content_type == CONTENT_ALBUM:
        # The album is complete now: the preview fixes the parts gathered so far.
        content = with_parts(ctx, draft.content)
        if content is None:
            ctx.answer()
            return
        draft = replace(draft, content=content)
    count = presend.count(draft)
    if count == 0:
        admins.set_state(ctx.user_id, STEP_AUDIENCE, draft.to_json())
        ctx.answer("wiz_empty_audience", alert=True)
        return
    ctx.answer()
    to_preview(ctx, draft, count)


def to_preview(ctx: BotContext, draft: Draft, count: int) -> None:
    """Send the preview, then the pre-send screen under it (only once the preview was delivered)."""
    preview = send_preview(ctx, draft)
    # show() stores a new preview id: confirm under any earlier preview (another audience on screen) expires.
    presend.show(ctx, draft, count, preview=preview)


def audience_keyboard(ctx: BotContext, draft: Draft) -> dict:
    """Return the audience buttons (and saved segments); member audiences only when a main channel is configured."""
    markup = keyboards.audience(ctx.lang, creation.audience_counts(), draft.draft_id,
                                members=ctx.main_channel_id is not None)
    return {"inline_keyboard": markup["inline_keyboard"] + segment_rows.audience_row(ctx.lang, draft.draft_id)}


def with_parts(ctx: BotContext, content: dict) -> dict | None:
    """Return album content with the parts gathered so far (ascending), or None (the admin is told) if none.

    The admin's state row is locked first, as a part arriving now locks it
    (broadcast_album.on_part): either that part committed before this read
    and is in the ids, or it waits and then finds these ids without it.
    """
    admins.get_state(ctx.user_id, lock=True)
    ids = albums.part_ids(ctx.user_id, content["media_group_id"])
    if not ids:
        ctx.reply("wiz_album_gone")
        return None
    return {**content, "message_ids": ids}


@button("w.confirm")
def on_confirm(ctx: BotContext, token: str, _arg: object) -> None:
    """Take this preview's draft (exactly once, even for a double tap), answer at once, start the job after commit."""
    if ctx.settings["broadcast_paid_enabled"] and presend_paid.ask_paid_confirm(ctx, token):
        return  # a paid broadcast's first confirm only leads to the second one
    taken = admins.take_state(ctx.user_id, STEP_PREVIEW, expect={CONFIRM_ID: token})
    if taken is None:
        state = admins.get_state(ctx.user_id)
        if state is not None and state[1].get(CONFIRM_ID) != token:
            log.info("confirm under an old preview refused")
            ctx.answer("wiz_stale", alert=True)
        else:
            ctx.answer("wiz_expired")
        return
    ctx.answer("cb_working")
    draft = Draft.from_json(taken)
    ctx.after_commit(lambda: start_job(ctx, draft))


def start_job(ctx: BotContext, draft: Draft) -> None:
    """Create, populate and start the job (a paid one only if the balance still covers it), then run its pumps."""
    short = presend_paid.balance_refusal(ctx, draft)
    if short is not None:
        log.info("paid broadcast refused at confirm: the balance no longer covers it")
        ctx.reply("wiz_paid_refused", line=short)
        return
    try:
        job = create_job(ctx, draft)
    except ValueError as exc:
        creation_refused(ctx, draft, exc)
        return
    job_id = job.id
    ctx.end_transaction()
    runner.run_interactive(job_id, settings=ctx.settings, outbox=ctx.outbox,
                           chat_id=ctx.chat_id, lang=ctx.lang)


def create_job(ctx: BotContext, draft: Draft, send_at: datetime | None = None) -> BroadcastJob:
    """Create the draft's job (now, or scheduled for send_at) as this admin; its progress comes to this chat."""
    if draft.ab:
        return ab_step.create(ctx, draft)  # never scheduled: ⏰ refuses a test, as `--at` with `--ab` is refused
    return creation.create_from_draft(draft, send_at, created_by=ctx.user_id, settings=ctx.settings, lang=ctx.lang,
                                      actor=audit.admin_actor(ctx.user_id), progress_chat_id=ctx.chat_id,
                                      action=audit.CONFIRMED)


def creation_refused(ctx: BotContext, draft: Draft, exc: ValueError) -> None:
    """Nothing was created (EmptyAudience is a ValueError): put the admin back on the audience step, saying why.

    A job cancelled while it was prepared was the admin's own choice: they are told so, and the draft ends.
    """
    ctx.end_transaction()
    if isinstance(exc, creation.CancelledWhilePreparing):
        ctx.reply("wiz_cancelled_preparing", id=exc.job_id, count=exc.total)
        return
    if isinstance(exc, variants.VariantRefused):
        ctx.reply(exc.key, **exc.values)
        return
    admins.restore_state(ctx.user_id, STEP_AUDIENCE, draft.without_preview().to_json())
    if isinstance(exc, SegmentMissing):  # deleted between the screen and Confirm: nothing was created
        ctx.reply("seg_gone_draft", audience_keyboard(ctx, draft))
    elif isinstance(exc, creation.EmptyAudience):
        ctx.reply("wiz_empty_audience", audience_keyboard(ctx, draft))
    else:
        ctx.reply("wiz_create_failed", error=str(exc))


@button("w.abort")
def on_abort(ctx: BotContext, token: str, _arg: object) -> None:
    """Drop the draft shown in this preview (an older preview's abort leaves a newer draft alone)."""
    if current_draft(ctx, (STEP_PREVIEW,), PREVIEW_ID, token) is None:
        return
    if not admins.clear_state(ctx.user_id):
        ctx.answer("wiz_expired")
        return
    ctx.answer()
    ctx.reply("wiz_aborted")
