"""Helpers shared by the command groups: errors, JSON and plain-text tables."""
from __future__ import annotations

import json
from collections.abc import Sequence

import click

from app.logging_setup import redact


class CommandError(click.ClickException):
    """Print one line on stderr and exit with exit_code (1 = failed, 2 = refused input)."""

    def __init__(self, message: str, exit_code: int = 1):
        super().__init__(redact(message))
        self.exit_code = exit_code


def echo_json(value, *, indent: int | None = 2) -> None:
    """Print value as JSON (UTF-8 kept readable, so Persian text stays Persian)."""
    click.echo(json.dumps(value, ensure_ascii=False, indent=indent, default=str))


def render_table(headers: Sequence[str], rows: Sequence[Sequence]) -> str:
    """Render rows as left-aligned columns under a header line."""
    cells = [[str(h) for h in headers]] + [["" if c is None else str(c) for c in row] for row in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(headers))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip() for row in cells]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)
