"""The wizard's A/B test: "🆎 A/B test" at the button step, then 1-4 more versions, the test share, the wait.

Steps (admin_states; the draft's `ab` holds {"versions": [HTML, ...], "share": %, "wait": s}):
  wiz:button      "🆎 A/B test" beside "no button"; the admin's message is version A
  wiz:ab_version  waiting for the next version's text (✅ ends the list, the fifth ends it too)
  wiz:ab_share    the test share's buttons
  wiz:ab_wait     the wait's buttons; then back to wiz:button for the link button the test needs
Each version is a text or a single media message, checked by the rules `broadcast create --ab` applies
(ab/specs.check); a message in the keyboard builder's form gives the version saved last buttons of its
own (app.bot.ab_extras). What cannot go with a test is refused as the CLI refuses it: language versions,
an album, a tag button or none, a schedule, auto-expiry. The Confirm calls the CLI's service
(ab/split.create_from_draft).
"""
from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

from flask import current_app

from app.bot import ab_extras, drafts
from app.bot.buttons import button
from app.bot.callback_data import AB_SHARES, AB_WAITS, build
from app.bot.context import BotContext
from app.bot.text_refusal import refuse_text
from app.bot.wizard_state import DRAFT_ID, STEP_BUTTON, current_wizard_draft
from app.models.broadcast import CONTENT_COPY, CONTENT_TEXT
from app.services import admins, audit
from app.services.broadcast.ab import specs, split
from app.services.broadcast.ab.versions import LETTERS, MAX_VERSIONS, MIN_VERSIONS, parse_wait
from app.services.broadcast.content import keyboard, text_rules
from app.services.broadcast.jobs.draft import Draft
from app.texts import t

STEP_AB_VERSION, STEP_AB_SHARE, STEP_AB_WAIT = "wiz:ab_version", "wiz:ab_share", "wiz:ab_wait"


def first_version(draft: Draft) -> str | dict | None:
    """Return the admin's message as version A: its HTML, a media message's copy, or None (an album)."""
    content = draft.content or {}
    if content.get("type") == CONTENT_TEXT:
        return content["text"]
    if content.get("type") == CONTENT_COPY:
        html = draft.extra.get(drafts.MAIN_HTML)
        return html if html is not None else {"copy": content["message_id"], "caption": ""}
    return None


def start_refusal(draft: Draft) -> str | None:
    """Return the text key saying why this draft cannot become an A/B test, or None."""
    if draft.variants:
        return "ab_no_variants"
    if first_version(draft) is None:
        return "ab_media"
    if not current_app.config.get("PUBLIC_URL"):
        return "ab_no_public_url"  # the winner is chosen by tracked clicks: none would be counted
    return None


@button("w.ab")
def on_start(ctx: BotContext, token: str, _arg: object) -> None:
    """Turn the draft into an A/B test (its message is version A) and ask for version B."""
    draft = current_wizard_draft(ctx, (STEP_BUTTON,), DRAFT_ID, token)
    if draft is None:
        return
    refusal = start_refusal(draft)
    if refusal:
        ctx.answer(refusal, alert=True)
        return
    ctx.answer()
    first = first_version(draft)
    # A text version A makes a text broadcast (the message's HTML); a media one stays the admin's message, copied.
    content = {"type": CONTENT_TEXT, "text": first, "parse_mode": "HTML"} if isinstance(first, str) else draft.content
    draft = replace(draft, content=content, ab={"versions": [first]}, button_text=None, button_url=None, tap=None)
    admins.set_state(ctx.user_id, STEP_AB_VERSION, draft.to_json())
    ctx.reply("ab_ask_version", v=LETTERS[1], most=MAX_VERSIONS)


def on_text(ctx: BotContext, draft: Draft) -> None:
    """Take the next version (a text or a media message, checked as `--ab` checks it), or the last one's buttons."""
    versions = list(draft.ab["versions"])
    letter = LETTERS[len(versions)]
    message = ctx.update.message
    if message.text is not None and keyboard.looks_like_builder(message.text):
        changed = ab_extras.own_buttons(ctx, draft, message.text)  # the version saved last gets its own buttons
        if changed is not None:
            admins.set_state(ctx.user_id, STEP_AB_VERSION, changed.to_json())
        return
    version = _version_of(ctx, message, versions, letter)
    if version is None:
        return
    draft = replace(draft, ab={**draft.ab, "versions": [*versions, version]})
    try:
        specs.check(ab_extras.versions(draft))
    except ValueError as exc:
        ctx.reply("ab_refused", v=letter, reason=str(exc))
        return
    if len(versions) + 1 == MAX_VERSIONS:
        ask_share(ctx, draft)
        return
    admins.set_state(ctx.user_id, STEP_AB_VERSION, draft.to_json())
    done = {"inline_keyboard": [[{"text": t("btn_ab_done", ctx.lang), "callback_data": build(
        "ab_done", token=draft.draft_id)}]]}
    ctx.reply("ab_added", done, v=letter, letters=LETTERS[:len(versions) + 1], next=LETTERS[len(versions) + 1])


def _version_of(ctx: BotContext, message, versions: list, letter: str) -> str | dict | None:
    """Return the message as a version (its HTML, or a media message's copy); None once the refusal was said."""
    if message.text is None:
        if ab_extras.is_media(message) or message.media_group_id is not None:
            return ab_extras.media_version(ctx, message)
        ctx.reply("ab_need_text", v=letter)
        return None
    try:
        text = text_rules.check(message.text_html)
    except text_rules.TextRefused as exc:
        refuse_text(ctx, exc, "ab_need_text")
        return None
    same = [LETTERS[n] for n, known in enumerate(versions) if isinstance(known, str)
            and text_rules.check(known) == text]
    if same:
        ctx.reply("ab_same", v=same[0])
        return None
    return text


@button("w.abv")
def on_done(ctx: BotContext, token: str, _arg: object) -> None:
    """End the list of versions (at least two) and ask for the test share."""
    draft = current_wizard_draft(ctx, (STEP_AB_VERSION,), DRAFT_ID, token)
    if draft is None:
        return
    if len(draft.ab["versions"]) < MIN_VERSIONS:
        ctx.answer("ab_need_two", alert=True)
        return
    ctx.answer()
    ask_share(ctx, draft)


def ask_share(ctx: BotContext, draft: Draft) -> None:
    """Put the admin on the share step and offer the shares."""
    admins.set_state(ctx.user_id, STEP_AB_SHARE, draft.to_json())
    row = [{"text": t("btn_ab_share", ctx.lang, p=share), "callback_data": build("ab_share", share, draft.draft_id)}
           for share in AB_SHARES]
    n = len(draft.ab["versions"])
    ctx.reply("ab_ask_share", {"inline_keyboard": [row]}, n=n, letters=LETTERS[:n])


@button("w.abs")
def on_share(ctx: BotContext, token: str, share: str) -> None:
    """Keep the test share and ask for the wait."""
    draft = current_wizard_draft(ctx, (STEP_AB_SHARE,), DRAFT_ID, token)
    if draft is None:
        return
    ctx.answer()
    draft = replace(draft, ab={**draft.ab, "share": int(share)})
    admins.set_state(ctx.user_id, STEP_AB_WAIT, draft.to_json())
    row = [{"text": wait_text(int(parse_wait(wait).total_seconds()), ctx.lang),
            "callback_data": build("ab_wait", wait, draft.draft_id)} for wait in AB_WAITS]
    ctx.reply("ab_ask_wait", {"inline_keyboard": [row]}, p=share)


@button("w.abw")
def on_wait(ctx: BotContext, token: str, wait: str) -> None:
    """Keep the wait, then ask for the link button the test's clicks are counted on."""
    draft = current_wizard_draft(ctx, (STEP_AB_WAIT,), DRAFT_ID, token)
    if draft is None:
        return
    ctx.answer()
    seconds = int(parse_wait(wait).total_seconds())
    draft = replace(draft, ab={**draft.ab, "wait": seconds})
    admins.set_state(ctx.user_id, STEP_BUTTON, draft.to_json())
    ctx.reply("ab_ask_button", p=draft.ab["share"], wait=wait_text(seconds, ctx.lang))


def wait_text(seconds: int, lang: str) -> str:
    """Say a wait in hours (or minutes when not whole hours)."""
    if seconds % 3600 == 0:
        return t("ab_hours", lang, n=seconds // 3600)
    return t("ab_minutes", lang, n=seconds // 60)


def needs_shared_link(draft: Draft) -> bool:
    """Tell whether a test's shared buttons need a link: some version has no buttons of its own."""
    return bool(draft.ab) and len(draft.ab.get("keys", {})) < len(draft.ab["versions"])


def button_refusal(draft: Draft, tap: dict | None, kb: dict | None = None) -> str | None:
    """Return why this draft cannot take these buttons: an A/B test counts clicks on a link, not a tag button."""
    if not needs_shared_link(draft):
        return None
    if kb is not None:
        return None if any(b["kind"] == "url" for _, b in keyboard.buttons(kb)) else "ab_need_link"
    return "ab_need_link" if tap is not None else None


def create(ctx: BotContext, draft: Draft):
    """Create the test as `broadcast create --ab` does, as this admin; its progress comes to this chat."""
    ab = draft.ab
    # Media versions are the admin's own messages in this chat: their copies come from here.
    return split.create_from_draft(draft, ab_extras.versions(draft), ab["share"], timedelta(seconds=ab["wait"]),
                                   created_by=ctx.user_id, settings=ctx.settings, lang=ctx.lang,
                                   actor=audit.admin_actor(ctx.user_id), progress_chat_id=ctx.chat_id,
                                   action=audit.CONFIRMED, copy_from=ctx.chat_id, goal=ab.get("goal"))
