"""Checks of broadcast input typed on the command line (pure)."""
from __future__ import annotations

from urllib.parse import urlsplit

from app.services.broadcast import text_rules

MAX_BUTTON_TEXT = 64
MAX_BUTTON_URL = 512


def text_problem(text: str) -> str | None:
    """Return why Telegram would refuse text as an HTML message (checked as the engine does), or None."""
    try:
        text_rules.check(text)
    except text_rules.TextRefused as exc:
        return str(exc)
    return None


def button_problem(text: str | None, url: str | None) -> str | None:
    """Return why the optional URL button is unusable, or None."""
    if (text is None) != (url is None):
        return "give both --button-text and --button-url, or neither"
    if text is None:
        return None
    if not text.strip() or len(text) > MAX_BUTTON_TEXT:
        return f"button text must be 1..{MAX_BUTTON_TEXT} characters"
    parts = urlsplit(url.strip())
    if parts.scheme not in ("http", "https") or not parts.hostname or len(url) > MAX_BUTTON_URL:
        return f"button URL must be an http(s) URL with a host, up to {MAX_BUTTON_URL} characters: {url!r}"
    return None
