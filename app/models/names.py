"""What a tag, field, segment and source may be called (pure): the one rule every input goes through.

A tag or a segment name is 1-64 characters: letters of any script, combining
marks, digits, `_` and `-`. It is NFC normalised and lower-cased, so `VIP` and
`vip` are one name, and Arabic yeh and kaf become the Persian ones (ي→ی,
ك→ک): the two look the same on screen, and a name an operator cannot tell
apart from another must not be another. For the same reason no name holds an
invisible (default-ignorable) character, except Persian's zero-width
non-joiner between two letters (نیم‌فاصله). A field name is ASCII a-z, 0-9
and `_`, lower-cased; a source is a /start payload exactly as Telegram sends it.
"""
from __future__ import annotations

import functools
import re
import unicodedata

from app.models.segment import SEGMENT_NAME_MAX
from app.models.user_data import FIELD_NAME_MAX, FIELD_VALUE_MAX, TAG_MAX

ZWNJ = "\u200c"
# Arabic letters a Persian keyboard (or a pasted text) may give for the Persian ones.
PERSIAN_LETTERS = str.maketrans({"\u064a": "\u06cc", "\u0643": "\u06a9"})
# Unicode's control characters (category Cc): a newline or tab has no place in a one-line value.
CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")
FIELD_NAME = re.compile(rf"[a-z0-9_]{{1,{FIELD_NAME_MAX}}}", re.ASCII)
# A /start payload as Telegram allows it in a deep link (t.me/<bot>?start=<payload>).
SOURCE = re.compile(r"[A-Za-z0-9_-]{1,64}", re.ASCII)
# Unicode's Default_Ignorable_Code_Point (DerivedCoreProperties.txt): drawn as nothing, so
# "vip" and "vip" followed by one of these read the same.
IGNORABLE = re.compile("[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e"
                       "\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff0-\ufff8\U0001bca0-\U0001bca3"
                       "\U0001d173-\U0001d17a\U000e0000-\U000e0fff]")


ESCAPED = re.compile(f"{CONTROL.pattern}|(?!{ZWNJ}){IGNORABLE.pattern}")


class BadName(ValueError):
    """A name or value that is refused; the message is one line naming what is wrong."""


def quote(text: str) -> str:
    """Return text in quotes as it reads: a ZWNJ stays itself; control and other invisible characters are escaped.

    Escaped, because a right-to-left override or a newline printed as it is
    would scramble the line that names it.
    """
    return "'" + ESCAPED.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), text) + "'"


def _invisible(value: str) -> str | None:
    """Describe the first default-ignorable character of value, unless it is a ZWNJ between two letters; or None."""
    for found in IGNORABLE.finditer(value):
        at = found.start()
        if (found.group() == ZWNJ and 0 < at < len(value) - 1 and unicodedata.category(value[at - 1])[0] in "LM"
                and unicodedata.category(value[at + 1])[0] == "L"):
            continue
        where = "not between two letters" if found.group() == ZWNJ else "an invisible character"
        return f"{_show(found.group())} ({where})"
    return None


def _allowed_in_word(ch: str) -> bool:
    """Tell whether ch may stand in a tag or segment name: a letter, mark, digit, `_`, `-` or ZWNJ."""
    return ch in "_-" + ZWNJ or unicodedata.category(ch)[0] in "LM" or unicodedata.category(ch) == "Nd"


def _word(kind: str, raw: object, most: int) -> str:
    """Return raw as a tag-like name (NFC, lower case, Persian letters), or raise BadName saying why."""
    value = unicodedata.normalize("NFC", raw.strip()).lower().translate(PERSIAN_LETTERS) if isinstance(raw, str) else ""
    rule = f"a {kind} is 1 to {most} letters, digits, _ or - (a zero-width non-joiner only between two letters)"
    if not value:
        raise BadName(f"a {kind} cannot be empty; {rule}")
    if len(value) > most:
        raise BadName(f"{kind} {quote(value[:20])}… is {len(value)} characters, at most {most}; {rule}")
    bad = _invisible(value) or next((_show(ch) for ch in value if not _allowed_in_word(ch)), None)
    if bad is not None:
        raise BadName(f"{kind} {quote(value)} contains {bad}; {rule}")
    if value.strip(ZWNJ + "_-") == "":
        raise BadName(f"{kind} {quote(value)} has no letter or digit; {rule}")
    return value


@functools.lru_cache(maxsize=4096)  # a CSV repeats a few tags on every row
def tag(raw: object) -> str:
    """Return the tag raw names (normalised), or raise BadName saying why in one line."""
    return _word("tag", raw, TAG_MAX)


def stored_tag(raw: str) -> str:
    """Return a tag read back from a stored rule in normal form; one the rule now refuses, as stored.

    Reading stored data must not fail: migration 0035 gave every user's tag
    the rule, so no user carries a refused one, and a rule naming it matches
    no one (tag-any, tag-all) or everyone (tag-none), as it did.
    """
    try:
        return tag(raw)
    except BadName:
        return raw


def segment_name(raw: object) -> str:
    """Return the segment raw names (normalised as a tag is), or raise BadName saying why in one line."""
    return _word("segment name", raw, SEGMENT_NAME_MAX)


def field_name(raw: object) -> str:
    """Return the field name raw names (ASCII, lower-cased), or raise BadName."""
    value = raw.strip() if isinstance(raw, str) else ""
    # A Kelvin sign lower-cases to an ASCII k: a non-ASCII name is refused before lower().
    odd = _invisible(value) or next((_show(ch) for ch in value if not ch.isascii()), None)
    if odd is not None or not FIELD_NAME.fullmatch(value.lower()):
        raise BadName(f"field name {quote(str(raw)[:70])} is not 1-{FIELD_NAME_MAX} of a-z, 0-9 and '_'"
                      + (f": it contains {odd}" if odd else ""))
    return value.lower()


def field_value(raw: object) -> str:
    """Return a field value trimmed and NFC normalised, or raise BadName (empty, too long, control characters)."""
    value = unicodedata.normalize("NFC", raw.strip()) if isinstance(raw, str) else ""
    if not value:
        raise BadName("a field value cannot be empty (use `users field unset` to remove one)")
    if len(value) > FIELD_VALUE_MAX:
        raise BadName(f"field value {quote(value[:20])}… is {len(value)} characters; at most {FIELD_VALUE_MAX}")
    if bad := CONTROL.search(value):
        raise BadName(f"field value {quote(value[:20])} contains {_show(bad.group())}")
    return value


def source(raw: object) -> str:
    """Return the source raw names (trimmed, case kept: Telegram sends a payload as typed), or raise BadName."""
    value = raw.strip() if isinstance(raw, str) else ""
    odd = _invisible(value)
    if odd is not None or not SOURCE.fullmatch(value):
        raise BadName(f"source {quote(value[:70])} is not a /start payload: a source is 1-64 of A-Z, a-z, 0-9, "
                      "'_' and '-'" + (f"; it contains {odd}" if odd else ""))
    return value


def _show(ch: str) -> str:
    """Name a refused character so a reader can see which one it is (an invisible one by its code alone)."""
    if ch == " ":
        return "a space"
    if ch == ",":
        return "a comma"
    code = f"U+{ord(ch):04X} {unicodedata.name(ch, '(unassigned)')}"
    return code if unicodedata.category(ch)[0] in "CZ" or IGNORABLE.match(ch) else f"'{ch}' ({code})"
