"""The wizard's preview: the message as users will get it, with its buttons, and each version under a label."""
from __future__ import annotations

from concurrent.futures import Future
from dataclasses import replace

from app.bot.callback_data import build
from app.bot.context import BotContext
from app.models.broadcast import CONTENT_ALBUM
from app.services.broadcast.ab.versions import LETTERS
from app.services.broadcast.content import greeting, keyboard
from app.services.broadcast.content.methods import url_button
from app.services.broadcast.jobs.draft import Draft


def send_preview(ctx: BotContext, draft: Draft) -> Future | tuple[Future, ...]:
    """Show the admin the message as users will get it (a copy, an album, or the greeting with their own name).

    With language versions, each follows under a label naming it; an A/B
    test's versions each come under "version A", "version B"... Returns the
    queued sends: each resolves to None when it was not delivered.
    """
    content = draft.content
    markup = preview_markup(draft)
    if content.get("type") == CONTENT_ALBUM:
        album = ctx.outbox.copy_album(ctx.chat_id, content["from_chat_id"], content["message_ids"])
        if not markup:
            return album
        # Users get the keyboard in a message after the album (its parts carry none): so does the preview.
        return album, ctx.outbox.send(ctx.chat_id, keyboard.note_of(draft.keyboard), reply_markup=markup)
    if draft.ab:
        sent = []
        keys = draft.ab.get("keys", {})
        for letter, version in zip(LETTERS, draft.ab["versions"], strict=False):
            ctx.reply("ab_preview_label", v=letter)
            own = preview_markup(replace(draft, button_text=None, keyboard=keys[letter])) if letter in keys else markup
            if isinstance(version, dict):  # a media version: the admin's message, copied as it will go
                sent.append(ctx.outbox.copy(ctx.chat_id, ctx.chat_id, version["copy"], reply_markup=own))
            else:
                sent.append(preview_of(ctx, {"type": "text", "text": version}, own, version))
        return tuple(sent)
    main = preview_of(ctx, content, markup, None)
    if not draft.variants:
        return main
    sent = [main]
    for code, text in draft.variants.items():
        ctx.reply("var_preview_label", code=code)
        sent.append(preview_of(ctx, content, markup, text))
    return tuple(sent)


def preview_markup(draft: Draft) -> dict | None:
    """Return the preview's buttons: the link, then the keyboard, whose tap and menu buttons say what they will do."""
    rows = (url_button(draft.button_text, draft.button_url) or {}).get("inline_keyboard", [])
    rows = rows + keyboard.markup_rows(draft.keyboard, lambda _pos: build("key_preview"))
    return {"inline_keyboard": rows} if rows else None


def preview_of(ctx: BotContext, content: dict, markup: dict | None, variant: str | None) -> Future:
    """Send one version's preview: the text with the admin's own name, or the copy (with a version's caption)."""
    if content["type"] == "text":  # a personal greeting: rendered with the admin's own name
        first_name = ctx.update.effective_user.first_name if ctx.update.effective_user else None
        text = variant if variant is not None else content["text"]
        return ctx.outbox.send(ctx.chat_id, greeting.render(text, first_name, ctx.lang),
                               parse_mode="HTML", reply_markup=markup)
    return ctx.outbox.copy(ctx.chat_id, content["from_chat_id"], content["message_id"], reply_markup=markup,
                           caption=variant)
