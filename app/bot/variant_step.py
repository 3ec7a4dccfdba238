"""The wizard's language versions: after the main message, "➕ English version" (or another language) adds a variant.

Steps (admin_states, the draft's JSON carries the code being asked for):
  wiz:button        the button step; its keyboard offers the versions beside "no button"
  wiz:variant_lang  waiting for a two-letter language code ("another language")
  wiz:variant       waiting for that version's text (a caption for a copied media message)
Each version is checked as the engine will check it (app.services.broadcast.content.variants),
so the pre-send screen never shows a version the Confirm would refuse. Albums
never reach the button step: they take no versions.
"""
from __future__ import annotations

from dataclasses import replace

from app.bot import drafts, keyboards
from app.bot.buttons import button
from app.bot.context import BotContext
from app.bot.text_refusal import refuse_text
from app.bot.wizard_state import DRAFT_ID, STEP_BUTTON, current_wizard_draft
from app.models.broadcast import CONTENT_COPY, CONTENT_TEXT
from app.services import admins
from app.services.broadcast.content import text_rules, variants
from app.services.broadcast.jobs.draft import Draft

STEP_VARIANT_LANG, STEP_VARIANT = "wiz:variant_lang", "wiz:variant"
ASKED = "variant_code"  # the draft's JSON key of the code whose text is awaited
MORE = keyboards.MORE_VARIANTS  # the "another language" button's argument


def codes_text(ctx: BotContext, draft: Draft) -> str:
    """Name the draft's versions: the default, then each code."""
    return ctx.text("list_sep").join([ctx.text("var_default"), *(draft.variants or {})])


@button("w.var")
def on_add(ctx: BotContext, token: str, code: str) -> None:
    """Ask for the English version's text, or first for another language's code."""
    draft = current_wizard_draft(ctx, (STEP_BUTTON,), DRAFT_ID, token)
    if draft is None:
        return
    if draft.ab:
        ctx.answer("ab_no_variants", alert=True)  # each user gets one version of a test: never one per language
        return
    have = draft.variants or {}
    if code not in have and len(have) >= variants.MAX_VARIANTS:
        ctx.answer("var_too_many", alert=True, max=variants.MAX_VARIANTS)
        return
    ctx.answer()
    if code == MORE:
        admins.set_state(ctx.user_id, STEP_VARIANT_LANG, draft.to_json())
        ctx.reply("var_ask_code")
        return
    ask_text(ctx, draft, code)


def ask_text(ctx: BotContext, draft: Draft, code: str) -> None:
    """Wait for one version's text (a caption when the main message is a media copy)."""
    admins.set_state(ctx.user_id, STEP_VARIANT, {**draft.to_json(), ASKED: code})
    kind = target_type(draft)
    key = "var_ask_text" if kind == CONTENT_TEXT else "var_ask_caption"
    ctx.reply(key, code=code, limit=variants.limit_for(kind))


def target_type(draft: Draft) -> str:
    """Return the content type the job will have with versions: a text message becomes a text broadcast."""
    content = draft.content or {}
    if content.get("type") == CONTENT_COPY and draft.extra.get(drafts.MAIN_HTML) is not None:
        return CONTENT_TEXT
    return content.get("type")



def on_code(ctx: BotContext, draft: Draft) -> None:
    """Take another language's code, or say what a code looks like."""
    raw = (ctx.update.message.text or "").strip()
    try:
        code = variants.normalise_code(raw)
    except variants.VariantRefused:
        ctx.reply("var_bad_code", code=raw[:20])
        return
    have = draft.variants or {}
    if code not in have and len(have) >= variants.MAX_VARIANTS:
        ctx.reply("var_too_many", max=variants.MAX_VARIANTS)
        return
    ask_text(ctx, draft, code)


def on_text(ctx: BotContext, state: dict) -> None:
    """Take a version's text, check it with the others as the engine will, and go back to the button step."""
    code = state.get(ASKED)
    draft = Draft.from_json({k: v for k, v in state.items() if k != ASKED})
    message = ctx.update.message
    if message.text is not None:
        text = message.text_html
    elif any(getattr(message, kind, None) for kind in drafts.MEDIA_KINDS) and message.caption:
        text = message.caption_html
    else:
        ctx.reply("var_need_text")
        return
    kind = target_type(draft)
    try:
        text_rules.check(text, variants.limit_for(kind))
    except text_rules.TextRefused as exc:
        refuse_text(ctx, exc, "var_need_text")
        return
    content = draft.content
    if kind == CONTENT_TEXT and content.get("type") == CONTENT_COPY:
        # A plain text message with versions is sent as text (its HTML), so each language can differ.
        content = {"type": CONTENT_TEXT, "text": draft.extra[drafts.MAIN_HTML], "parse_mode": "HTML"}
    elif content.get("type") == CONTENT_COPY:
        content = {**content, variants.MEDIA: True}  # a copy with versions here is media: text became text above
    try:
        checked = variants.check({**(draft.variants or {}), code: text}, kind, content.get("text"))
    except variants.VariantRefused as exc:
        ctx.reply(exc.key, **{"code": code, **exc.values})
        return
    draft = replace(draft, content=content, variants=checked)
    admins.set_state(ctx.user_id, STEP_BUTTON, draft.to_json())
    ctx.reply("var_added", keyboards.no_button(ctx.lang, draft.draft_id), code=code, codes=codes_text(ctx, draft))
