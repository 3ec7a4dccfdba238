"""README's commands table lists every command the app registers, with every option: it cannot drift."""
from __future__ import annotations

import re
from pathlib import Path
from types import SimpleNamespace

import click
import pytest
from flask.cli import AppGroup

from app.cli import register

README = Path(__file__).resolve().parents[2] / "README.md"


def registered() -> dict[str, click.Command]:
    """Return {"broadcast create": command, ...} for every command app.cli.register attaches to an app.

    Without building an app (this runs at collection): Flask-Migrate's `db` is not ours, and the
    README names the one `db` command an operator runs.
    """
    holder = SimpleNamespace(cli=AppGroup())
    register(holder)
    found = {}

    def walk(command: click.Command, path: str) -> None:
        if isinstance(command, click.Group):
            for name, sub in command.commands.items():
                walk(sub, f"{path} {name}".strip())
        else:
            found[path] = command

    for name, command in holder.cli.commands.items():
        walk(command, name)
    return found


def table_rows() -> dict[str, str]:
    """Return {command path: its first cell} for each row of the README's commands table."""
    section = README.read_text(encoding="utf-8").split("| command | does |", 1)[1].split("\n\n", 1)[0]
    rows = {}
    for cell in re.findall(r"^\| `([^`]+)` \|", section, re.M):
        path = " ".join(re.match(r"[a-z][a-z -]*?(?= [A-Z(\[-]|$)", cell).group(0).split())
        assert path not in rows, f"{path} has two rows"
        rows[path] = cell
    return rows


COMMANDS = registered()


def test_every_command_has_a_row_and_every_row_a_command():
    rows = table_rows()
    assert sorted(set(COMMANDS) - set(rows)) == [], "commands missing from README.md's table"
    assert sorted(set(rows) - set(COMMANDS) - {"db upgrade"}) == [], "README.md rows for commands that do not exist"


@pytest.mark.parametrize("path", sorted(COMMANDS))
def test_every_option_of_a_command_is_in_its_row(path):
    cell = table_rows()[path]
    options = [opt for param in COMMANDS[path].params if isinstance(param, click.Option)
               for opt in param.opts if opt.startswith("--")]
    missing = [opt for opt in options if not re.search(re.escape(opt) + r"(?![\w-])", cell)]
    assert missing == [], f"README.md's row for `{path}` lacks {missing}"
