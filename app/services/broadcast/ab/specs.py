"""An A/B test's versions as given (pure): each a text or a copied media message, optionally with its own buttons.

A version is a str (a text, HTML) or a dict: {"text": HTML} or {"copy":
message id, "caption": HTML shown for it}, either with "keyboard" (its own
buttons, content/keyboard.py's form). check() returns the job's two columns:
`variants` {letter: text, or a copy's caption} and `ab_content`'s specs
(content/ab_content.py). Refusals are one English line naming the version.
Albums are never versions: copyMessages carries no button, so no click on
an album could be counted, and the winner is chosen by clicks.
"""
from __future__ import annotations

import json

from app.services.broadcast.ab.versions import LETTERS, MAX_VERSIONS, MIN_VERSIONS
from app.services.broadcast.content import ab_content, keyboard, placeholders, text_rules

ALBUM = ("an album cannot be a version: Telegram puts no button under an album, so its clicks could not be "
         "counted; send one photo or video with a caption")


def check(versions) -> tuple[dict[str, str], dict[str, dict]]:
    """Return ({letter: text or caption}, {letter: own keyboard and copy}) for 2-5 versions, or raise ValueError."""
    versions = [v if isinstance(v, dict) else {"text": v} for v in versions]
    if not MIN_VERSIONS <= len(versions) <= MAX_VERSIONS:
        raise ValueError(f"an A/B test has {MIN_VERSIONS} to {MAX_VERSIONS} versions (--ab), got {len(versions)}")
    texts, specs, seen = {}, {}, {}
    for letter, version in zip(LETTERS, versions, strict=False):
        texts[letter], specs[letter] = _one(letter, version)
        same = seen.setdefault(_identity(texts[letter], specs[letter]), letter)
        if same != letter:
            raise ValueError(f"versions {same} and {letter} have the same text, media and buttons: each version "
                             f"must differ")
    return texts, specs


def _one(letter: str, version: dict) -> tuple[str, dict]:
    """Return one version's text (a copy's caption) and its spec, or raise ValueError naming it."""
    if version.get("album"):
        raise ValueError(f"version {letter}: {ALBUM}")
    spec: dict = {}
    if version.get("keyboard") is not None:
        try:
            spec[ab_content.KEYBOARD] = keyboard.check(version["keyboard"])
        except keyboard.KeyboardError as exc:
            raise ValueError(f"version {letter}'s buttons: {exc}") from None
    if "copy" in version:
        message_id = version["copy"]
        if not isinstance(message_id, int) or message_id < 1:
            raise ValueError(f"version {letter}: a copied message needs its message id (a positive number)")
        spec[ab_content.COPY] = message_id
        try:  # copied as it is: a placeholder in its caption would reach users as typed
            placeholders.check(version.get("caption"), False, f"version {letter}'s caption")
        except placeholders.PlaceholderRefused as exc:
            raise ValueError(str(exc)) from None
        return version.get("caption") or "", spec
    try:
        return text_rules.check(version.get("text")), spec
    except ValueError as exc:
        raise ValueError(f"version {letter}: {exc}") from None


def _identity(text: str, spec: dict) -> str:
    """Return what makes a version itself: its text or message, and its buttons."""
    return json.dumps([spec.get(ab_content.COPY) or text, spec.get(ab_content.KEYBOARD)], sort_keys=True)


def effective(specs: dict[str, dict], shared: dict | None) -> dict[str, dict | None]:
    """Return each version's keyboard as its recipients see it: its own, else the shared one (None: none)."""
    return {letter: spec.get(ab_content.KEYBOARD) or shared for letter, spec in specs.items()}


def unlinked(specs: dict[str, dict], shared: dict | None, shared_link: bool) -> list[str]:
    """Return the versions whose copies would carry no link button (no click of theirs could be counted)."""
    return [letter for letter, kb in effective(specs, shared).items()
            if not (keyboard.url_positions(kb) if kb else shared_link)]


def resolve_goal(goal, specs: dict[str, dict], shared: dict | None) -> int | None:
    """Return the position of the goal button (given as a position or a button's text) in every version, or raise.

    The goal must be a link button at the same position in every version's
    keyboard, so one (item, position) pair names a click on it everywhere.
    """
    if goal is None or str(goal).strip() == "":
        return None
    links = {letter: {pos: b["text"] for pos, b in keyboard.buttons(kb) if b["kind"] == "url"}
             for letter, kb in effective(specs, shared).items()}
    raw = str(goal).strip()
    if raw.isdigit():
        position = int(raw)
        for letter, found in links.items():
            if position not in found:
                listed = ", ".join(map(str, found)) or "none"
                raise ValueError(f"winner by button {position}: version {letter} has no link button there "
                                 f"(its link buttons by position: {listed})")
        return position
    places = {letter: [pos for pos, text in found.items() if text == raw] for letter, found in links.items()}
    for letter, found in places.items():
        if not found:
            raise ValueError(f"winner by «{raw}»: version {letter} has no link button with that text")
    if len({found[0] for found in places.values()}) > 1:
        where = ", ".join(f"{found[0]} in {letter}" for letter, found in places.items())
        raise ValueError(f"winner by «{raw}»: it stands at different positions ({where}); put it at one position "
                         f"in every version")
    return next(iter(places.values()))[0]
