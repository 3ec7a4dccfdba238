"""Every user-facing text, Persian first and English second; no copy lives in handlers.

The texts live in one module per use case; this package merges them into one
TEXTS table and refuses a key that two modules define.
"""
from __future__ import annotations

from types import ModuleType

from app.texts import (
    ab,
    ab_wizard,
    actions,
    after_send,
    audience,
    automated,
    chains,
    doctor,
    jobs,
    keyboard,
    presend,
    recurring,
    results,
    rules,
    schedule,
    segments,
    settings,
    start,
    variants,
    wizard,
)

MODULES: tuple[ModuleType, ...] = (start, wizard, presend, schedule, recurring, jobs, actions, settings, variants,
                                   results, rules, segments, after_send,
                                   audience, ab, ab_wizard, chains, keyboard, automated, doctor)


def _merge(modules: tuple[ModuleType, ...]) -> dict[str, dict[str, str]]:
    """Return every module's texts in one table; a key defined twice is an error."""
    merged: dict[str, dict[str, str]] = {}
    for module in modules:
        twice = merged.keys() & module.TEXTS.keys()
        if twice:
            raise ValueError(f"text keys defined twice ({module.__name__}): {', '.join(sorted(twice))}")
        merged.update(module.TEXTS)
    return merged


TEXTS: dict[str, dict[str, str]] = _merge(MODULES)

DEFAULT_LANG = "fa"
# Every language a text has, Persian first.
LANGS = ("fa", "en")


def lang_of(language_code: str | None) -> str:
    """Pick Persian unless the user's Telegram language is clearly English-first."""
    if language_code and language_code.lower().startswith("en"):
        return "en"
    return DEFAULT_LANG


def t(key: str, lang: str = DEFAULT_LANG, /, **values) -> str:
    """Return the text for key in lang (falling back to Persian), formatted with values."""
    entry = TEXTS[key]
    template = entry.get(lang) or entry[DEFAULT_LANG]
    return template.format(**values) if values else template


def all_variants(key: str) -> set[str]:
    """Return every language's text for key (to recognise reply-keyboard buttons)."""
    return set(TEXTS[key].values())
