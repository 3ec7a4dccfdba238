"""Personal greeting in text broadcasts (pure): {first_name} becomes each recipient's escaped name.

Only text broadcasts (sendMessage with HTML) can be personalised: a copied
message is reproduced by Telegram exactly as it is, so its text cannot change
per recipient.
"""
from __future__ import annotations

import html
import json
import unicodedata

from app.models.broadcast import CONTENT_TEXT, KIND_EDIT
from app.texts import t

PLACEHOLDER = "{first_name}"
# Characters that show nothing: direction marks and other format characters, marks with no base,
# separators, and the blank letters people use for an "empty" name (Hangul fillers, braille blank).
INVISIBLE_CATEGORIES = frozenset({"Cc", "Cf", "Co", "Cs", "Cn", "Mn", "Me", "Zs", "Zl", "Zp"})
BLANK_LETTERS = frozenset("\u115f\u1160\u3164\uffa0\u2800")


def has_greeting(text: str | None) -> bool:
    """Tell whether a text asks for each recipient's first name."""
    return bool(text) and PLACEHOLDER in text


def is_personal(job) -> bool:
    """Tell whether a job's copies greet each recipient by name: a text broadcast's, or any edit's.

    An edit's new text or caption is the bot's own, whatever the source was.
    Any language variant asking for the name makes the job personal (the others render unchanged).
    """
    # An A/B test's text versions are texts even when its version A is a copied media message.
    if not (job.content_type == CONTENT_TEXT or job.kind == KIND_EDIT or getattr(job, "ab_content", None)):
        return False
    texts = [text for text in [job.text, *json.loads(getattr(job, "variants", None) or "{}").values()] if text]
    return any(has_greeting(text) for text in texts)


def shows_something(name: str) -> bool:
    """Tell whether a name has at least one character a reader can see (not only direction marks or blanks)."""
    return any(unicodedata.category(ch) not in INVISIBLE_CATEGORIES and ch not in BLANK_LETTERS for ch in name)


def render(text: str, first_name: str | None, lang: str) -> str:
    """Put the HTML-escaped first name (or a neutral word when it shows nothing) in place of {first_name}.

    Quotes are escaped too (`&quot;`, `&#x27;`, which Telegram's HTML takes),
    so a name is safe inside an attribute such as a link's href as well.
    """
    name = (first_name or "").strip()
    if not shows_something(name):
        return text.replace(PLACEHOLDER, t("greeting_fallback", lang))
    return text.replace(PLACEHOLDER, html.escape(name, quote=True))
