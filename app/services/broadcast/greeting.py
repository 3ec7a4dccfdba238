"""Personal greeting in text broadcasts (pure): {first_name} becomes each recipient's escaped name.

Only text broadcasts (sendMessage with HTML) can be personalised: a copied
message is reproduced by Telegram exactly as it is, so its text cannot change
per recipient.
"""
from __future__ import annotations

import html

from app.texts import t

PLACEHOLDER = "{first_name}"


def has_greeting(text: str | None) -> bool:
    """Tell whether a text asks for each recipient's first name."""
    return bool(text) and PLACEHOLDER in text


def render(text: str, first_name: str | None, lang: str) -> str:
    """Put the HTML-escaped first name (or a neutral word when it is empty) in place of {first_name}."""
    name = (first_name or "").strip()
    return text.replace(PLACEHOLDER, html.escape(name, quote=False) if name else t("greeting_fallback", lang))
