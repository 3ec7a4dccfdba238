"""What each column of an import CSV means, and what each row asks (pure): checked before anything is written.

Columns: the user id (`user_id`, `id` or `شناسه`, required); `tags` (or
`برچسب‌ها`): tags separated by `;` or `،`, each added; `tag:NAME` (or
`برچسب:NAME`): 1 adds the tag, 0 removes it, empty leaves it; any other
header is a field name (a-z, 0-9, `_`) whose non-empty cells set that field
(an empty cell leaves it).
"""
from __future__ import annotations

import re
from typing import NamedTuple

from app.models import names
from app.services.audience import csv_source, id_lists
from app.services.audience.csv_source import BadFile

TAGS_HEADERS = frozenset({"tags", "برچسب‌ها", "برچسب ها", "برچسبها"})
TAG_PREFIXES = ("tag:", "برچسب:")
TAG_SPLIT = re.compile(r"[;،]")
ADD, REMOVE, SET = "+", "-", "="


class Column(NamedTuple):
    """One column: "id", "tags", "tag" (with its tag) or "field" (with its name)."""

    kind: str
    name: str | None = None


class Change(NamedTuple):
    """One change a row asks: ADD or REMOVE a tag, or SET a field to value."""

    op: str
    name: str
    value: str | None = None


def plan(header: list[str]) -> list[Column]:
    """Return the columns a header row declares, or raise BadFile (no id column, a duplicate, a bad name)."""
    columns, seen = [], {}
    for number, cell in enumerate(header, start=1):
        column = _column(cell, number)
        if column in seen:
            raise BadFile(f"header: column {number} {names.quote(cell.strip())} repeats column {seen[column]}")
        seen[column] = number
        columns.append(column)
    if Column("id") not in seen:
        raise BadFile("header: no user id column (name it user_id, id or شناسه)")
    return columns


def _column(cell: str, number: int) -> Column:
    """Return what one header cell declares."""
    key = csv_source.header_key(cell)
    if csv_source.is_id_header(cell):
        return Column("id")
    if key in TAGS_HEADERS:
        return Column("tags")
    try:
        for prefix in TAG_PREFIXES:
            if key.startswith(prefix):
                return Column("tag", names.tag(key[len(prefix):]))
        return Column("field", names.field_name(key))
    except names.BadName as exc:
        raise BadFile(f"header: column {number} {names.quote(cell.strip()[:40])}: {exc}") from None


def changes(columns: list[Column], cells: list[str]) -> tuple[int, list[Change]]:
    """Return (user id, the row's changes), or raise names.BadName saying what is wrong with the row."""
    if len(cells) > len(columns):
        raise names.BadName(f"{len(cells)} cells, the header has {len(columns)}")
    cells = cells + [""] * (len(columns) - len(cells))
    user_id, out = None, []
    for column, cell in zip(columns, cells, strict=True):
        if column.kind == "id":
            user_id = id_lists.user_id(cell)
            if user_id is None:
                raise names.BadName(f"{cell.strip()[:40]!r} is not a user id")
        elif column.kind == "tags":
            out += [Change(ADD, names.tag(part)) for part in TAG_SPLIT.split(cell) if part.strip()]
        elif column.kind == "tag":
            out += _tag_flag(column.name, cell)
        elif cell.strip():
            out.append(Change(SET, column.name, names.field_value(cell)))
    return user_id, out


def _tag_flag(tag: str, cell: str) -> list[Change]:
    """Return a tag:NAME cell's change: 1 adds, 0 removes, empty nothing."""
    flag = cell.strip()
    if flag == "1":
        return [Change(ADD, tag)]
    if flag == "0":
        return [Change(REMOVE, tag)]
    if not flag:
        return []
    raise names.BadName(f"tag:{tag} is {flag[:20]!r}; use 1 (add), 0 (remove) or leave it empty")
