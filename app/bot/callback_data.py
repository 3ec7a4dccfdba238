"""Inline-button callback data: one pure parser and its matching builder.

Telegram returns whatever string we put on a button, but a client can send
any string at all, so anything that does not parse exactly is rejected.
"""
from __future__ import annotations

import re
from typing import NamedTuple

from app.models.broadcast import AUDIENCES
from app.settings_schema import DEFS

MAX_BYTES = 64  # Telegram's own limit on callback_data
MAX_ID = 2**62
_ID = re.compile(r"[1-9][0-9]{0,18}", re.ASCII)

# prefix -> (action, argument kind); None means the data carries no argument.
SPEC: dict[str, tuple[str, str | None]] = {
    "w.continue": ("continue", "id"),
    "w.cancel_job": ("cancel_job", "id"),
    "w.pause": ("pause", "id"),
    "w.resume": ("resume", "id"),
    "w.aud": ("aud", "audience"),
    "w.no_button": ("no_button", None),
    "w.confirm": ("confirm", None),
    "w.abort": ("abort", None),
    "s.edit": ("edit_setting", "setting"),
}
PREFIX_OF = {action: prefix for prefix, (action, _) in SPEC.items()}


class Callback(NamedTuple):
    """A parsed button press: what to do, and to which job / audience / setting."""

    action: str
    arg: int | str | None = None


def _parse_id(raw: str) -> int | None:
    """Accept a positive ASCII decimal id up to MAX_ID (no sign, spaces or leading zeros)."""
    if not _ID.fullmatch(raw):
        return None
    value = int(raw)
    return value if value <= MAX_ID else None


_ARGS = {
    "id": _parse_id,
    "audience": lambda raw: raw if raw in AUDIENCES else None,
    "setting": lambda raw: raw if raw in DEFS else None,
}


def parse(data: object) -> Callback | None:
    """Parse callback data such as "w.continue:12" -> ("continue", 12); None if malformed."""
    if not isinstance(data, str) or not data or len(data.encode("utf-8")) > MAX_BYTES:
        return None
    prefix, sep, raw = data.partition(":")
    spec = SPEC.get(prefix)
    if spec is None:
        return None
    action, kind = spec
    if kind is None:
        return Callback(action) if not sep else None
    arg = _ARGS[kind](raw) if sep else None
    return None if arg is None else Callback(action, arg)


def build(action: str, arg: int | str | None = None) -> str:
    """Return the callback data for an action; the inverse of parse()."""
    prefix = PREFIX_OF[action]
    data = prefix if arg is None else f"{prefix}:{arg}"
    if parse(data) != Callback(action, arg):
        raise ValueError(f"cannot encode {action!r} with {arg!r}")
    return data
