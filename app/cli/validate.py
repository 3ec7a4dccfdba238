"""Checks of broadcast input typed on the command line (pure)."""
from __future__ import annotations

from app.services.broadcast.content import placeholders, text_rules
from app.services.broadcast.content.button_url import url_problem
from app.texts import t

# The button_text column's length (app/models/broadcast.py).
MAX_BUTTON_TEXT = 64


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
    try:
        placeholders.fixed(text, "link")
    except placeholders.PlaceholderRefused as exc:
        return f"--button-text: {exc}"
    problem = url_problem(url.strip())
    return f"--button-url {url.strip()!r}: {t(problem, 'en', length=len(url.strip()))}" if problem else None
