"""Show the engine's stored pause reasons in English on the command line.

The engine writes a pause reason in the language of the admin who created the
job (Persian first, for the Telegram UI); the CLI speaks English, so a reason
written from one of these templates is re-rendered from its English one.
"""
from __future__ import annotations

import functools
import re
import string

from app.texts import TEXTS

# Every pause reason the engine or the admin menu writes from a template.
REASON_KEYS = tuple(key for key in TEXTS if key.startswith("reason_"))


def _pattern(template: str) -> re.Pattern:
    """Turn "{n} errors: {error}" into a regex capturing n and error."""
    parts = []
    for literal, field, _spec, _conv in string.Formatter().parse(template):
        parts.append(re.escape(literal))
        if field:
            parts.append(f"(?P<{field}>.*?)")
    return re.compile("".join(parts) + r"\Z", re.S)


@functools.cache
def _patterns() -> list[tuple[re.Pattern, str]]:
    """Return (Persian pattern, English template) for each reason the engine writes."""
    return [(_pattern(TEXTS[key]["fa"]), TEXTS[key]["en"]) for key in REASON_KEYS]


def english_reason(reason: str | None) -> str | None:
    """Return reason in English when it is one of the engine's Persian texts; anything else unchanged."""
    if not reason:
        return reason
    for pattern, english in _patterns():
        match = pattern.match(reason)
        if match:
            return english.format(**match.groupdict())
    return reason


def english_status(status: dict) -> dict:
    """Return a job status's JSON form (JobView.as_dict) with its pause reason in English."""
    if status.get("pause_reason"):
        status = {**status, "pause_reason": english_reason(status["pause_reason"])}
    return status
