"""What a tag, a field name and a field value may be (pure): one rule for the CLI, the bot, CSV and buttons.

A tag is 1-64 characters: letters of any script (Persian included, with its
zero-width non-joiner), combining marks, digits, `_` and `-`. It is NFC
normalised and lower-cased, so `VIP` and `vip` are one tag, and Arabic yeh
and kaf become the Persian ones (ي→ی, ك→ک): the two look the same on screen,
and a tag an operator cannot tell apart from another must not be another.
"""
from __future__ import annotations

import functools
import re
import unicodedata

from app.models.user_data import (
    FIELD_NAME_MAX,
    FIELD_VALUE_MAX,
    TAG_MAX,
    ZWNJ,
    allowed_in_tag,
    fold_tag,
    fold_value,
)

# Unicode's control characters (category Cc): a newline or tab has no place in a one-line value.
CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")
FIELD_NAME = re.compile(rf"[a-z0-9_]{{1,{FIELD_NAME_MAX}}}", re.ASCII)


class BadName(ValueError):
    """A tag, field name or value that is refused; the message is one line naming what is wrong."""


@functools.lru_cache(maxsize=4096)  # a CSV repeats a few tags on every row
def tag(raw: object) -> str:
    """Return the tag raw names (normalised), or raise BadName saying why in one line."""
    if not isinstance(raw, str):
        raise BadName("a tag must be text")
    value = fold_tag(raw)
    if not value:
        raise BadName("a tag cannot be empty")
    if len(value) > TAG_MAX:
        raise BadName(f"tag {value[:20]!r}… is {len(value)} characters; at most {TAG_MAX}")
    bad = next((ch for ch in value if not allowed_in_tag(ch)), None)
    if bad is not None:
        raise BadName(f"tag {value!r} contains {_show(bad)}; a tag is letters, digits, '_' and '-' "
                      f"(no spaces or commas)")
    if value.strip(ZWNJ + "_-") == "":
        raise BadName(f"tag {value!r} has no letter or digit")
    return value


def field_name(raw: object) -> str:
    """Return the field name raw names (lower-cased), or raise BadName."""
    value = raw.strip().lower() if isinstance(raw, str) else ""
    if not FIELD_NAME.fullmatch(value):
        raise BadName(f"field name {str(raw)[:70]!r} is not 1-{FIELD_NAME_MAX} of a-z, 0-9 and '_'")
    return value


def field_value(raw: object) -> str:
    """Return a field value trimmed and NFC normalised, or raise BadName (empty, too long, control characters)."""
    value = fold_value(raw) if isinstance(raw, str) else ""
    if not value:
        raise BadName("a field value cannot be empty (use `users field unset` to remove one)")
    if len(value) > FIELD_VALUE_MAX:
        raise BadName(f"field value {value[:20]!r}… is {len(value)} characters; at most {FIELD_VALUE_MAX}")
    if bad := CONTROL.search(value):
        raise BadName(f"field value {value[:20]!r} contains {_show(bad.group())}")
    return value


def _show(ch: str) -> str:
    """Name a refused character so a reader can see which one it is."""
    if ch == " ":
        return "a space"
    if ch == ",":
        return "a comma"
    name = unicodedata.name(ch, "")
    return f"{ch!r} (U+{ord(ch):04X}{' ' + name if name else ''})"
