"""Placeholders in a broadcast's text (pure): one rule for every place a text comes from.

`{first_name}` and `{field:name}` / `{field:name|fallback}` are filled per
recipient only in a text the bot writes itself: a text broadcast, its
language versions, an A/B test's text versions, a recurring broadcast's and a
chain step's text, an edit. A copied message's caption — the message's own,
a language version's of a copied media message, an A/B media version's — goes
out as it is, so a placeholder there would reach every user as typed: such a
caption is refused (the wizard's main message only warns: its caption is the
admin's own message, copied). A `{field:` that is no placeholder is refused
everywhere (`{field:Plan}`, a typo the users would read). A text that goes
to everyone as typed — a button's label, a tap or menu button's answer, a
copy button's text, the note under an album — is never filled: any
placeholder there is refused, naming the place (fixed()).
"""
from __future__ import annotations

from app.services.broadcast.content import field_text, greeting
from app.texts import t

# Where a text goes to every user as typed: the ph_fixed_<place> texts (app/texts/keyboard.py) name it.
FIXED_PLACES = ("label", "answer", "copy", "note", "link", "tap", "tap_answer")


class PlaceholderRefused(ValueError):
    """A text's placeholders cannot be used where it goes; key and values name the admin's text."""

    def __init__(self, message: str, key: str, **values):
        super().__init__(message)
        self.key, self.values = key, values


def first(text: str | None) -> str | None:
    """Return the first placeholder a text asks for ("{first_name}", or its "{field:…}" as written), or None."""
    if not text:
        return None
    found = [(text.index(mark), mark) for mark in (greeting.PLACEHOLDER,) if mark in text]
    if field_text.OPENING in text:
        at = text.index(field_text.OPENING)
        end = text.find("}", at)
        found.append((at, text[at:end + 1] if end != -1 else text[at:at + 40]))
    return min(found)[1] if found else None


def asks(text: str | None) -> bool:
    """Tell whether a text asks for anything per recipient (a name or a field, written right or not)."""
    return first(text) is not None


def problem(text: str | None) -> str | None:
    """Return why a "{field:" in the text is no placeholder, or None (text_rules.check refuses it as bad HTML)."""
    return field_text.problem(text or "")


def check(text: str | None, personal: bool, what: str) -> None:
    """Refuse a text whose placeholders would reach users as typed; personal: the bot fills them for each copy.

    Raises PlaceholderRefused: a "{field:" that is no placeholder (anywhere),
    or any placeholder in a text that is not personal (a copied caption).
    """
    typo = problem(text)
    if typo:
        raise PlaceholderRefused(f"{what}: {typo}", "ph_bad_field", problem=typo)
    shown = None if personal else first(text)
    if shown:
        raise PlaceholderRefused(f"{what}: a copied message's caption cannot greet each recipient by name nor fill "
                                 f"in their fields, it is sent as it is: {shown} would reach every user as typed; "
                                 f"only a text broadcast can", "ph_copy", placeholder=shown)


def fixed(text: str | None, place: str) -> None:
    """Refuse any placeholder in a text every user gets as typed; place is one of FIXED_PLACES.

    Raises PlaceholderRefused (key ph_fixed_<place>, value placeholder): one line naming the place.
    """
    shown = first(text)
    if shown:
        key = f"ph_fixed_{place}"
        raise PlaceholderRefused(t(key, "en", placeholder=shown), key, placeholder=shown)
