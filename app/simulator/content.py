"""Message content: text/caption checks and the Message objects Telegram returns."""

from __future__ import annotations

from app.simulator.errors import bad_request
from app.simulator.html_check import HtmlError, entity_dicts, parse_html, utf16_len
from app.simulator.markup import inline_only
from app.simulator.params import get_str
from app.simulator.state import Msg, SimState
from app.simulator.updates import photo_sizes

TEXT_LIMIT = 4096
CAPTION_LIMIT = 1024
_PARSE_MODES = {"html": "HTML", "markdown": "Markdown", "markdownv2": "MarkdownV2"}


class Content:
    """Text as sent (raw) and as Telegram shows it (plain + entities)."""

    __slots__ = ("raw", "parse_mode", "plain", "entities")

    def __init__(self, raw: str, parse_mode: str | None, plain: str, entities: tuple):
        self.raw = raw
        self.parse_mode = parse_mode
        self.plain = plain
        self.entities = entities


def get_parse_mode(params: dict) -> str | None:
    """Return the canonical parse mode, None when absent; 400 when unknown."""
    raw = get_str(params, "parse_mode")
    if not raw:
        return None
    mode = _PARSE_MODES.get(raw.lower())
    if mode is None:
        raise bad_request("unsupported parse_mode")
    return mode


def parse_content(raw: str, parse_mode: str | None) -> Content:
    """Apply the parse mode; only HTML is validated (the app's only mode)."""
    if parse_mode != "HTML":
        return Content(raw, parse_mode, raw, ())
    try:
        plain, entities = parse_html(raw)
    except HtmlError as exc:
        raise bad_request(f"can't parse entities: {exc}") from None
    return Content(raw, parse_mode, plain, entities)


def text_content(params: dict) -> Content:
    """Read and check the `text` parameter of sendMessage/editMessageText."""
    raw = get_str(params, "text") or ""
    content = parse_content(raw, get_parse_mode(params))
    if not content.plain.strip():
        raise bad_request("message text is empty")
    if utf16_len(content.plain) > TEXT_LIMIT:
        raise bad_request("message is too long")
    return content


def caption_content(params: dict) -> Content | None:
    """Read and check an optional `caption`; None when not given."""
    raw = get_str(params, "caption")
    if raw is None:
        return None
    content = parse_content(raw, get_parse_mode(params))
    if utf16_len(content.plain) > CAPTION_LIMIT:
        raise bad_request("message caption is too long")
    return content


def message_object(state: SimState, msg: Msg) -> dict:
    """Render a stored message as a Bot API Message object."""
    out = {
        "message_id": msg.message_id,
        "from": state.bot if msg.from_bot else msg.sender,
        "chat": state.chat_object(msg.chat_id),
        "date": msg.date,
    }
    if msg.edit_date:
        out["edit_date"] = msg.edit_date
    if msg.photo:
        out["photo"] = photo_sizes(msg.photo)
    if msg.document:
        out["document"] = dict(msg.document)
    if msg.text is not None:
        out["text"] = msg.text
        if msg.entities:
            out["entities"] = entity_dicts(msg.entities)
    if msg.caption is not None:
        out["caption"] = msg.caption
        if msg.caption_entities:
            out["caption_entities"] = entity_dicts(msg.caption_entities)
    markup = inline_only(msg.reply_markup)
    if markup:
        out["reply_markup"] = markup
    return out
