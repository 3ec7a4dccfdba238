"""The texts: both languages for every key, the same placeholders, one module per key, no missing or dead key."""
from __future__ import annotations

import re
import string
from pathlib import Path

import pytest

from app import texts
from app.texts import TEXTS

LANGS = {"fa", "en"}
APP = Path(texts.__file__).resolve().parent.parent
# A key the code names with a literal: t("key"), ctx.text("key"), ctx.reply("key"), ctx.answer("key") …
CALLED = re.compile(r"""(?:\bt|\bctx\.(?:text|reply|answer))\(\s*["']([a-z][a-z0-9_]*)["']""")
LITERAL = re.compile(r"""["']([a-z][a-z0-9_]*)["']""")
# Families the code builds from a prefix and a value (f"status_{job.status}" …), each used as a whole.
DYNAMIC_FAMILIES = (
    "act_",  # audit actions (app/bot/history.py), act_busy_/act_started_ by kind (app/bot/unsend_edit.py)
    "action_counts_", "action_title_",  # by action kind (app/services/broadcast/reporting/progress.py)
    "aud_",  # audience buttons and names (app/bot/keyboards.py, presend_text.py)
    "btn_opt_", "opt_", "lang_",  # pre-send toggles (app/bot/presend_keyboard.py, presend_text.py)
    "btn_preset_",  # schedule presets (app/bot/keyboards.py)
    "ph_fixed_",  # a text sent as typed, by place (app/services/broadcast/content/placeholders.py FIXED_PLACES)
    "job_row_",  # job list rows by kind (app/bot/history.py)
    "status_",  # job statuses
    "rec_status_", "rec_missed_", "rec_done_",  # recurring broadcasts (app/bot/recurring.py)
)


def _placeholders(template: str) -> set[str]:
    """Return the names of a template's {placeholders}."""
    return {name for _, name, _, _ in string.Formatter().parse(template) if name is not None}


def _code() -> str:
    """Return the source of every app module except the texts themselves."""
    return "\n".join(path.read_text(encoding="utf-8") for path in sorted(APP.rglob("*.py"))
                     if "texts" not in path.relative_to(APP).parts)


@pytest.mark.parametrize("key", sorted(TEXTS))
def test_every_key_has_persian_and_english_with_the_same_placeholders(key):
    entry = TEXTS[key]
    assert set(entry) == LANGS, f"{key}: languages {sorted(entry)}"
    assert all(isinstance(text, str) and text for text in entry.values()), f"{key}: an empty text"
    assert _placeholders(entry["fa"]) == _placeholders(entry["en"]), (
        f"{key}: fa {sorted(_placeholders(entry['fa']))} vs en {sorted(_placeholders(entry['en']))}")


def test_no_key_is_defined_in_two_modules():
    seen: dict[str, str] = {}
    for module in texts.MODULES:
        for key in module.TEXTS:
            assert key not in seen, f"{key} is defined in {seen[key]} and {module.__name__}"
            seen[key] = module.__name__
    assert seen.keys() == TEXTS.keys()


def test_merging_refuses_a_key_defined_twice():
    with pytest.raises(ValueError, match="welcome"):
        texts._merge((texts.start, texts.start))


def test_every_key_the_code_names_exists():
    missing = sorted(set(CALLED.findall(_code())) - TEXTS.keys())
    assert not missing, f"keys used in app/ but not in app/texts/: {missing}"


def test_every_key_is_used():
    literals = set(LITERAL.findall(_code()))
    unused = sorted(key for key in TEXTS if key not in literals and not key.startswith(DYNAMIC_FAMILIES))
    assert not unused, f"keys no code uses: {unused}"
