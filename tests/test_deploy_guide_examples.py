"""The deploy guides' examples an operator copies: the health answer at the newest migration, a restart that works
on freshly uploaded code, an env file for Terminal with every variable a broadcast made there needs."""
from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from alembic.script import ScriptDirectory

ROOT = Path(__file__).resolve().parents[1]
GUIDES = [ROOT / "docs" / "DEPLOY_CPANEL.md", ROOT / "docs" / "DEPLOY_CPANEL_FA.md"]


def head() -> str:
    """Return the newest migration's revision."""
    (revision,) = ScriptDirectory(os.path.join(ROOT, "migrations")).get_heads()
    return revision


@pytest.mark.parametrize("guide", GUIDES, ids=lambda p: p.name)
def test_every_health_example_shows_the_newest_migration(guide):
    shown = re.findall(r'"schema":"(\d+)"', guide.read_text(encoding="utf-8"))
    assert shown and set(shown) == {head()}, shown


def test_no_doc_shows_a_stale_schema_number():
    for doc in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        for number in re.findall(r'"schema":\s*"(\d+)"', doc.read_text(encoding="utf-8")):
            assert number == head(), (doc.name, number)


@pytest.mark.parametrize("guide", GUIDES, ids=lambda p: p.name)
def test_restart_txt_is_touched_only_after_its_folder_is_made(guide):
    text = guide.read_text(encoding="utf-8")
    touches = re.findall(r"`([^`]*touch [^`]*tmp/restart\.txt)`", text)
    assert touches and all("mkdir -p" in command for command in touches), touches


@pytest.mark.parametrize("guide", GUIDES, ids=lambda p: p.name)
def test_the_terminal_env_file_carries_public_url(guide):
    text = guide.read_text(encoding="utf-8")
    env_file = text.split("cat > ~/.update_pack.env <<'EOF'", 1)[1].split("\nEOF", 1)[0]
    assert re.search(r"^PUBLIC_URL='https://", env_file, re.M), env_file
