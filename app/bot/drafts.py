"""Pure checks of what an admin sends the wizard: the message, the link button or the tap button."""
from __future__ import annotations

from telegram import Message

from app.services.audience.tap import check_tap
from app.services.broadcast.content import placeholders
from app.services.broadcast.content.button_url import url_problem
from app.services.broadcast.content.greeting import has_greeting
from app.services.broadcast.content.text_rules import CAPTION_LIMIT, TEXT_LIMIT, measured, utf16_len

BUTTON_TEXT_LIMIT = 64
# The draft's JSON key holding a plain text message's HTML: with language versions it is sent as text.
MAIN_HTML = "main_html"
# Kinds copyMessage reproduces faithfully for every recipient.
MEDIA_KINDS = ("photo", "video", "animation", "document", "audio", "voice", "video_note", "sticker")


class DraftError(ValueError):
    """Something the admin sent cannot be used; key and values name the text to show."""

    def __init__(self, key: str, **values):
        super().__init__(key)
        self.key = key
        self.values = values


def copy_draft(message: Message) -> dict:
    """Return the broadcast content for an admin's message, or raise DraftError."""
    if message.text is not None:
        if not message.text.strip():
            raise DraftError("wiz_empty")
        # A text with {first_name} is sent personalised: measured with a name in place (text_rules.measured).
        if measured(message.text) > TEXT_LIMIT:
            raise DraftError("wiz_text_too_long", length=measured(message.text))
    elif any(getattr(message, kind, None) for kind in MEDIA_KINDS):
        caption = message.caption or ""
        if utf16_len(caption) > CAPTION_LIMIT:
            raise DraftError("wiz_caption_too_long", length=utf16_len(caption))
    else:
        raise DraftError("wiz_unsupported")
    return {"type": "copy", "from_chat_id": message.chat.id, "message_id": message.message_id}


def personalise(message: Message, content: dict) -> tuple[dict, str | None]:
    """Turn a text with placeholders into a text broadcast (its HTML); return it and a note key for the admin.

    Placeholders ({first_name}, {field:…}) are checked by placeholders.check,
    the rule every other entry uses; a "{field:" that is no placeholder
    raises DraftError. A copy cannot differ per recipient, so a caption with
    placeholders only gets a warning; any other message stays a copy.
    """
    if placeholders.asks(message.text):
        try:
            placeholders.check(message.text_html, True, "the text")
        except placeholders.PlaceholderRefused as exc:
            raise DraftError("wiz_bad_placeholder", **exc.values) from None
        note = "wiz_personal" if has_greeting(message.text) else "wiz_personal_fields"
        return {"type": "text", "text": message.text_html, "parse_mode": "HTML"}, note
    if placeholders.asks(message.caption):
        return content, "wiz_cannot_personalise"
    return content, None


def parse_tap_button(text: str | None) -> dict | None:
    """Return "text | tag:TAG | answer" as a tap button ({"text", "tag", "answer"}), None when it is no such form.

    Raises DraftError when the form is right but a part is not (the tag, a length).
    """
    parts = [part.strip() for part in (text or "").split("|")]
    if len(parts) not in (2, 3) or not parts[1].lower().startswith("tag:"):
        return None
    tap_button = {"text": parts[0], "tag": parts[1][4:], "answer": parts[2] if len(parts) == 3 else None}
    try:
        check_tap(tap_button, "text")
    except placeholders.PlaceholderRefused as exc:
        raise DraftError(exc.key, **exc.values) from None
    except ValueError as exc:
        raise DraftError("btn_err_tap", error=str(exc).removeprefix("tap button: ")) from None
    return tap_button


def parse_url_button(text: str | None) -> tuple[str, str]:
    """Split "text | URL" into a checked (text, url), or raise DraftError with the reason."""
    label, sep, url = (text or "").rpartition("|")
    label, url = label.strip(), url.strip()
    if not sep or not label or not url:
        raise DraftError("btn_err_format")
    if len(label) > BUTTON_TEXT_LIMIT:
        raise DraftError("btn_err_text_long", length=len(label))
    try:
        placeholders.fixed(label, "link")
    except placeholders.PlaceholderRefused as exc:
        raise DraftError(exc.key, **exc.values) from None
    problem = url_problem(url)
    if problem:
        raise DraftError(problem, length=len(url))
    return label, url
