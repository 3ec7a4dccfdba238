"""Telegram HTML (parse_mode=HTML) for the simulated Bot API: the app's parser, and entities as JSON."""

from __future__ import annotations

from app.services.broadcast.content.telegram_html import Entity, HtmlError, parse_html, utf16_len

__all__ = ["Entity", "HtmlError", "entity_dicts", "parse_html", "utf16_len"]


def entity_dicts(entities: tuple[Entity, ...]) -> list[dict]:
    """Render entities as Bot API MessageEntity objects."""
    return [{"type": kind, "offset": offset, "length": length, **dict(extra)}
            for kind, offset, length, extra in entities]
