"""Custom fields in a text broadcast (pure): {field:plan} and {field:plan|مشتری} become each recipient's value.

The value is HTML-escaped like {first_name}; the fallback (after `|`) is the
admin's own text, part of the template, used when the recipient has no such
field (no fallback: nothing). Only text broadcasts and edits are personal
(greeting.is_personal says why).
"""
from __future__ import annotations

import html
import json
import re

from app.models.broadcast import CONTENT_TEXT, KIND_EDIT
from app.models.user_data import FIELD_VALUE_MAX

# A fallback holds no braces (no nesting) and no angle brackets (it cannot open or close a tag).
PLACEHOLDER = re.compile(r"\{field:([a-z0-9_]{1,64})(?:\|([^{}<>]{0,255}))?\}")
OPENING = "{field:"


def names_in(text: str | None) -> set[str]:
    """Return the field names a text asks for."""
    return {m.group(1) for m in PLACEHOLDER.finditer(text)} if text and OPENING in text else set()


def job_fields(job) -> list[str]:
    """Return the field names a job's copies fill in (sorted), or [] when its copies cannot be personal."""
    # An A/B test's text versions are texts even when its version A is a copied media message.
    if not (job.content_type == CONTENT_TEXT or job.kind == KIND_EDIT or getattr(job, "ab_content", None)):
        return []
    texts = [text for text in [job.text, *json.loads(getattr(job, "variants", None) or "{}").values()] if text]
    return sorted(set().union(*(names_in(text) for text in texts)))


def problem(text: str) -> str | None:
    """Return why a "{field:" in the text is no placeholder (a typo would reach every user as typed), or None."""
    if OPENING not in text:
        return None
    stripped = PLACEHOLDER.sub("", text)
    if OPENING in stripped:
        at = stripped.index(OPENING)
        return (f"{stripped[at:at + 40]!r} is not a field placeholder: write {{field:name}} or "
                f"{{field:name|fallback}} (name: a-z, 0-9, _)")
    return None


def render(text: str, values: dict[str, str]) -> str:
    """Put each recipient's escaped value (or the fallback) in place of the placeholders."""
    def value(match: re.Match) -> str:
        found = values.get(match.group(1))
        return html.escape(found, quote=True) if found is not None else (match.group(2) or "")
    return PLACEHOLDER.sub(value, text)


def longest(text: str) -> str:
    """Return the text with every placeholder as its longest value: FIELD_VALUE_MAX characters, or its fallback."""
    return PLACEHOLDER.sub(lambda m: "x" * max(FIELD_VALUE_MAX, len(m.group(2) or "")), text)
