"""An A/B test's versions beyond their text (pure): a version's own buttons, its copied media, its goal button.

Stored in the job's `ab_content` JSON, {letter: {"keyboard": kb, "copy":
message id, "goal": position}}, each key present only when that version has
it (NULL when no version has any). A version without its own keyboard shows
the job's buttons (its link button and keyboard); one with its own shows only
those (plus the opt-out row). A copy version is copyMessage of its message
from the job's from_chat_id, caption and media its own. Each version's
buttons are numbered from 1 in reading order on their own: a tracked link
names its position and the item's letter picks the keyboard, so a click
resolves to its own version's URL and counts on that version's button row
(broadcast_buttons.variant, "" for the job's shared keyboard). "goal" is the
position of the button the winner is ranked by (the same button in each
version; none: by CTR, any button).
"""
from __future__ import annotations

import json

from app.services.broadcast.content import keyboard

KEYBOARD, COPY, GOAL = "keyboard", "copy", "goal"
SHARED = ""  # the counter rows' variant of the job's own keyboard


def load(raw: str | None) -> dict[str, dict]:
    """Return a job's ab_content column as {letter: spec} (empty when none)."""
    return json.loads(raw) if raw else {}


def dump(specs: dict[str, dict] | None) -> str | None:
    """Return the column's JSON, or None when no version carries anything beyond its text."""
    kept = {letter: spec for letter, spec in (specs or {}).items() if spec}
    return json.dumps(kept, ensure_ascii=False, separators=(",", ":")) if kept else None


def of(job) -> dict[str, dict]:
    """Return a job's per-version content."""
    return load(getattr(job, "ab_content", None))


def own_keyboards(job) -> list[tuple[str, dict]]:
    """Return (letter, keyboard) of each version with buttons of its own, in letter order."""
    return [(letter, spec[KEYBOARD]) for letter, spec in sorted(of(job).items()) if spec.get(KEYBOARD)]


def keyboard_for(job, letter: str | None) -> dict | None:
    """Return the keyboard a recipient of this version sees: its own, else the job's."""
    own = of(job).get(letter or "", {}).get(KEYBOARD)
    return own or keyboard.load(job.keyboard)


def counter_variant(job, letter: str | None) -> str:
    """Return the broadcast_buttons variant a click on this version's button counts under ("" for shared)."""
    return letter if letter and of(job).get(letter, {}).get(KEYBOARD) else SHARED


def copy_of(job, letter: str | None) -> int | None:
    """Return the message id a copy version sends, or None for a text version."""
    return of(job).get(letter or "", {}).get(COPY)


def goal(job) -> int | None:
    """Return the position of the button the winner is ranked by, or None (by CTR)."""
    found = {spec.get(GOAL) for spec in of(job).values()} - {None}
    return found.pop() if found else None


def goal_label(job) -> str | None:
    """Return the goal button's text in version A's buttons (what the screens call it), or None."""
    position = goal(job)
    if position is None:
        return None
    found = dict(keyboard.buttons(keyboard_for(job, "A"))).get(position)
    return found["text"] if found else None


def with_goal(specs: dict[str, dict], letters, position: int | None) -> dict[str, dict]:
    """Return the specs with every version's goal set to position (unchanged for None)."""
    if position is None:
        return specs
    return {letter: {**specs.get(letter, {}), GOAL: position} for letter in letters}
