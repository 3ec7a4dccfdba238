"""How long a broadcast's text is and whether Telegram takes it (pure): one measure for the bot, the CLI, the engine.

Telegram parses the HTML first and measures what it shows: UTF-16 code units of
the visible text (tags removed, `&amp;` one `&`). A text with {first_name} is
measured with the placeholder as the longest fallback name; a recipient with a
longer name can still get a copy Telegram finds too long (that copy alone fails).
A custom field ({field:plan}) is measured as its longest value, 255 characters
(or its fallback, when longer): a text that passes fits whatever value a user
has, but for values of emoji beyond the BMP (two UTF-16 units each), whose
copy alone fails the same way.
"""
from __future__ import annotations

from app.services.broadcast.content import field_text, greeting, placeholders
from app.services.broadcast.content.telegram_html import HtmlError, parse_html, utf16_len
from app.texts import TEXTS

TEXT_LIMIT = 4096
CAPTION_LIMIT = 1024
EMPTY, BAD_HTML, TOO_LONG = "empty", "bad_html", "too_long"

__all__ = ["BAD_HTML", "CAPTION_LIMIT", "EMPTY", "TEXT_LIMIT", "TOO_LONG", "TextRefused", "check", "html_problem",
           "measured", "utf16_len", "visible_length"]


class TextRefused(ValueError):
    """Telegram would refuse this text; reason is EMPTY, BAD_HTML or TOO_LONG, with the numbers or the problem."""

    def __init__(self, message: str, reason: str, *, length: int = 0, limit: int = 0, problem: str = ""):
        super().__init__(message)
        self.reason, self.length, self.limit, self.problem = reason, length, limit, problem


def fallback_name() -> str:
    """Return the longest word a greeting uses for a recipient without a first name."""
    return max(TEXTS["greeting_fallback"].values(), key=utf16_len)


def measured(plain: str) -> int:
    """Return the UTF-16 length of a visible text, {first_name} counted as the longest fallback name."""
    return utf16_len(field_text.longest(plain.replace(greeting.PLACEHOLDER, fallback_name())))


def visible_length(html: str) -> int:
    """Return the UTF-16 length of what Telegram shows for this (valid) HTML."""
    return utf16_len(parse_html(html)[0])


def html_problem(html: str) -> str | None:
    """Return Telegram's reason for refusing this HTML ("can't parse entities: ..."), or None."""
    try:
        parse_html(html)
    except HtmlError as exc:
        return str(exc)
    return None


def check(html: str | None, limit: int = TEXT_LIMIT, what: str = "text") -> str:
    """Return the HTML text stripped, or raise TextRefused: empty, HTML Telegram cannot parse, or over limit."""
    html = (html or "").strip()
    problem = html_problem(html) or placeholders.problem(html)
    if problem:
        raise TextRefused(f"broken HTML (Telegram: can't parse entities): {problem}", BAD_HTML, problem=problem)
    # The name goes into the HTML before Telegram parses it, so measure the text rendered the same way.
    plain = parse_html(field_text.longest(html.replace(greeting.PLACEHOLDER, fallback_name())))[0]
    if not plain.strip():
        raise TextRefused(f"the {what} is empty", EMPTY, limit=limit)
    length = utf16_len(plain)
    if length > limit:
        note = f" ({greeting.PLACEHOLDER} counted as {fallback_name()!r})" if greeting.has_greeting(html) else ""
        if field_text.names_in(html):
            note += " (each {field:…} counted as its longest value, 255 characters)"
        raise TextRefused(f"the {what} is {length} characters as Telegram counts them (UTF-16 units of the "
                          f"visible text){note}; at most {limit}", TOO_LONG, length=length, limit=limit)
    return html
