"""A broadcast's keyboard: rows of url, copy, tap and menu buttons, parsed and checked as Telegram checks them (pure).

The one place a keyboard is read and validated: the CLI's --key specs and the
wizard's text both come here, and job creation checks the stored form again.
Stored as JSON on the job: {"rows": [[button, ...], ...], "note": text}; a
button is {"kind": "url"|"copy"|"tap"|"menu", "text": label, ...}. A button's
position is its 1-based place in reading order: tracked links and presses
name it. Telegram's limits: at most 8 buttons a row and 100 in all, a copy
text of 1-256 characters, callback data of at most 64 bytes, an answer of at
most 200 characters; a label is kept to 64 characters (the house's limit).
"""
from __future__ import annotations

import json
from collections.abc import Callable

from app.models import names
from app.services.broadcast.content import placeholders
from app.services.broadcast.content.button_url import url_problem
from app.texts import t

LABEL_MAX, COPY_MAX, ANSWER_MAX, NOTE_MAX = 64, 256, 200, 4096
ROW_MAX, TOTAL_MAX, DATA_MAX = 8, 100, 64
KINDS = ("url", "copy", "tap", "menu")
NOTE_DEFAULT = "👇"  # the message under an album when the admin wrote none
ROW_BREAK = "---"
# The wizard's targets: "TEXT - <target>", the target telling the kind.
TARGETS = (("https://", "url"), ("http://", "url"), ("copy:", "copy"), ("tag:", "tap"), ("menu:", "menu"))


class KeyboardError(ValueError):
    """A button Telegram would refuse: key and values name the admin's text; str() is one English line."""

    def __init__(self, key: str, row: int = 0, button: int = 0, **values):
        self.key, self.row, self.button, self.values = key, row, button, values
        super().__init__(self.text("en"))

    def text(self, lang: str) -> str:
        """Return the refusal in lang, naming the row and the button."""
        values = dict(self.values)
        if "problem" in values:  # a URL's refusal: button_url's own text, in this language
            values = {"reason": t(values.pop("problem"), lang, length=values.pop("length"))}
        reason = t(self.key, lang, **values)
        return t("key_err_at", lang, row=self.row, button=self.button, reason=reason) if self.row else reason


def check(kb: dict) -> dict:
    """Return the keyboard with each button checked and trimmed; raise KeyboardError naming the first bad one."""
    rows = kb.get("rows") if isinstance(kb, dict) else None
    if not isinstance(rows, list) or not rows:
        raise KeyboardError("key_err_none")
    total = sum(len(row) if isinstance(row, list) else 0 for row in rows)
    if total > TOTAL_MAX:
        raise KeyboardError("key_err_too_many", count=total)
    out = []
    for r, row in enumerate(rows, 1):
        if not isinstance(row, list) or not row:
            raise KeyboardError("key_err_empty_row", number=r)
        if len(row) > ROW_MAX:
            raise KeyboardError("key_err_row_full", r, len(row), count=len(row))
        out.append([check_button(b, r, c) for c, b in enumerate(row, 1)])
    checked = {"rows": out}
    note = (kb.get("note") or "").strip()
    if len(note) > NOTE_MAX:
        raise KeyboardError("key_err_note", length=len(note))
    if note:
        _as_typed(note, "note", 0, 0)
        checked["note"] = note
    return checked


def check_button(b: object, r: int, c: int) -> dict:
    """Return one button checked (its label, then what its kind needs), or raise KeyboardError at (r, c)."""
    kind = b.get("kind") if isinstance(b, dict) else None
    if kind not in KINDS:
        raise KeyboardError("key_err_format", r, c)
    label = str(b.get("text") or "").strip()
    if not label or len(label) > LABEL_MAX:
        raise KeyboardError("key_err_label", r, c, length=len(label))
    _as_typed(label, "label", r, c)
    if kind == "url":
        url = str(b.get("url") or "").strip()
        if problem := url_problem(url):
            raise KeyboardError("key_err_url", r, c, problem=problem, length=len(url))
        return {"kind": kind, "text": label, "url": url}
    if kind == "copy":
        copy = str(b.get("copy") or "")
        if not 1 <= len(copy) <= COPY_MAX:
            raise KeyboardError("key_err_copy", r, c, length=len(copy))
        _as_typed(copy, "copy", r, c)
        return {"kind": kind, "text": label, "copy": copy}
    answer = str(b.get("answer") or "").strip()
    if len(answer) > ANSWER_MAX or (kind == "menu" and not answer):
        raise KeyboardError("key_err_answer", r, c, length=len(answer))
    _as_typed(answer, "answer", r, c)
    if kind == "menu":
        return {"kind": kind, "text": label, "answer": answer}
    try:
        tag = names.tag(b.get("tag"))
    except names.BadName as exc:
        raise KeyboardError("key_err_tag", r, c, error=str(exc)) from None
    return {"kind": kind, "text": label, "tag": tag, **({"answer": answer} if answer else {})}


def _as_typed(text: str, place: str, r: int, c: int) -> None:
    """Refuse a placeholder in a button's text: every user gets it as typed (content/placeholders.py's one rule)."""
    try:
        placeholders.fixed(text, place)
    except placeholders.PlaceholderRefused as exc:
        raise KeyboardError(exc.key, r, c, **exc.values) from None


def parse_cli(specs: tuple[str, ...] | list[str]) -> dict | None:
    """Return the keyboard the CLI's --key specs write (in order), checked; None for none; KeyboardError if bad."""
    if not specs:
        return None
    rows: list[list[dict]] = [[]]
    note = None
    for spec in specs:
        kind, _, rest = spec.strip().partition(":")
        if spec.strip() == ROW_BREAK:
            rows.append([])
        elif kind == "note":
            note = rest
        else:
            rows[-1].append(_cli_button(kind.strip(), rest, len(rows), len(rows[-1]) + 1))
    return check({"rows": rows, "note": note})


def _cli_button(kind: str, rest: str, r: int, c: int) -> dict:
    """Return one --key spec's button: url:TEXT|URL, copy:TEXT|COPY, tap:TEXT|TAG[|ANSWER] or menu:TEXT|ANSWER."""
    parts = rest.split("|", 2 if kind == "tap" else 1)
    if kind not in KINDS or len(parts) < 2:
        raise KeyboardError("key_err_format", r, c)
    fields = {"url": ("url",), "copy": ("copy",), "tap": ("tag", "answer"), "menu": ("answer",)}[kind]
    return {"kind": kind, "text": parts[0], **dict(zip(fields, parts[1:], strict=False))}


def looks_like_builder(text: str | None) -> bool:
    """Tell whether the wizard's text is the builder's form (every button "TEXT - target", or a note line)."""
    lines = [line.strip() for line in (text or "").splitlines() if line.strip()]
    cells = [cell for line in lines if not _is_note(line) for cell in line.split(" | ")]
    return bool(lines) and all(_split_target(cell) is not None for cell in cells)


def parse_text(text: str | None) -> dict:
    """Return the keyboard the wizard's text writes: a row per line, " | " between buttons; KeyboardError if bad."""
    rows, note = [], None
    for line in (line.strip() for line in (text or "").splitlines()):
        if _is_note(line):
            note = line.split(":", 1)[1]
        elif line:
            rows.append([_text_button(cell, len(rows) + 1, c) for c, cell in enumerate(line.split(" | "), 1)])
    return check({"rows": rows, "note": note})


def _is_note(line: str) -> bool:
    """Tell whether a wizard line is the album message's text ("note: ...")."""
    return line.lower().startswith("note:")


def _split_target(cell: str) -> tuple[str, str, str] | None:
    """Split "TEXT - target" at the first " - " a known target follows: (label, kind, target), or None."""
    at = cell.find(" - ")
    while at >= 0:
        target = cell[at + 3:].strip()
        for prefix, kind in TARGETS:
            if target.lower().startswith(prefix):
                return cell[:at], kind, target
        at = cell.find(" - ", at + 1)
    return None


def _text_button(cell: str, r: int, c: int) -> dict:
    """Return one wizard button: TEXT - https://..., TEXT - copy:TEXT, TEXT - tag:TAG[:ANSWER], TEXT - menu:ANSWER."""
    split = _split_target(cell)
    if split is None:
        raise KeyboardError("key_err_format", r, c)
    label, kind, target = split
    if kind == "url":
        return {"kind": kind, "text": label, "url": target}
    value = target.split(":", 1)[1]
    if kind == "tap":
        tag, _, answer = value.partition(":")
        return {"kind": kind, "text": label, "tag": tag, "answer": answer}
    return {"kind": kind, "text": label, ("copy" if kind == "copy" else "answer"): value}


def fold(kb: dict | None, button_text: str | None, button_url: str | None, tap: dict | None) -> dict | None:
    """Return kb with the single link and tap buttons (the old options) as its first rows; None without a kb."""
    if not kb:
        return None
    head = [[{"kind": "url", "text": button_text, "url": button_url}]] if button_url else []
    if tap:
        head.append([{"kind": "tap", "text": tap.get("text"), "tag": tap.get("tag"), "answer": tap.get("answer")}])
    return check({**kb, "rows": head + kb["rows"]})


def buttons(kb: dict | None) -> list[tuple[int, dict]]:
    """Return (position, button) in reading order, positions from 1."""
    flat = [b for row in (kb or {}).get("rows", []) for b in row]
    return list(enumerate(flat, 1))


def markup_rows(kb: dict | None, callback: Callable[[int], str]) -> list[list[dict]]:
    """Return the keyboard's inline rows; callback(position) gives a tap or menu button's data."""
    out, pos = [], 0
    for row in (kb or {}).get("rows", []):
        line = []
        for b in row:
            pos += 1
            line.append(_inline(b, pos, callback))
        out.append(line)
    return out


def _inline(b: dict, pos: int, callback: Callable[[int], str]) -> dict:
    """Return one button as the Bot API's InlineKeyboardButton."""
    if b["kind"] == "url":
        return {"text": b["text"], "url": b["url"]}
    if b["kind"] == "copy":
        return {"text": b["text"], "copy_text": {"text": b["copy"]}}
    data = callback(pos)
    if len(data.encode()) > DATA_MAX:  # never with a job id: b.key:<19 digits>.<3>.<8> is 38 bytes
        raise KeyboardError("key_err_format")
    return {"text": b["text"], "callback_data": data}


def url_positions(kb: dict | None) -> list[int]:
    """Return the positions of the url buttons, in reading order."""
    return [pos for pos, b in buttons(kb) if b["kind"] == "url"]


def load(raw: str | None) -> dict | None:
    """Return a job's stored keyboard, or None."""
    return json.loads(raw) if raw else None


def dump(kb: dict | None) -> str | None:
    """Return the keyboard as the job column stores it (None for none)."""
    return json.dumps(kb, ensure_ascii=False, separators=(",", ":")) if kb else None


def note_of(kb: dict | None) -> str:
    """Return the text of the message that carries the keyboard under an album."""
    return (kb or {}).get("note") or NOTE_DEFAULT
