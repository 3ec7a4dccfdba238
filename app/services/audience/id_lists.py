"""Which users a bulk command acts on: `--ids 1,2,3` or a CSV of ids (streamed), checked before any write."""
from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

from app.services.audience import csv_source
from app.services.audience.csv_source import BadFile

_ID = re.compile(r"[1-9][0-9]{0,18}", re.ASCII)
MAX_ID = 2**63 - 1


def user_id(raw: str) -> int | None:
    """Return raw as a Telegram user id (a positive BIGINT in plain decimal), or None."""
    raw = raw.strip()
    if not _ID.fullmatch(raw) or int(raw) > MAX_ID:
        return None
    return int(raw)


def parse_ids(text: str) -> list[int]:
    """Return the ids of "1,2,3" (spaces allowed), or raise BadFile naming the first that is not an id."""
    out = []
    for part in text.split(","):
        value = user_id(part)
        if value is None:
            raise BadFile(f"--ids: {part.strip()[:40]!r} is not a user id (positive whole numbers, comma-separated)")
        out.append(value)
    return out


def csv_ids(path: Path) -> Iterator[int]:
    """Yield the user ids of a CSV: one per row, or the column named user_id / id / شناسه; raise BadFile.

    A first row whose first cell is an id is data; otherwise it is the header.
    """
    with open(path, "rb") as raw:
        column = None
        for line_no, cells in csv_source.rows(raw):
            if column is None:
                column = _header_column(cells, line_no)
                if column is not None:
                    continue
                column = 0
            cell = cells[column] if column < len(cells) else ""
            value = user_id(cell)
            if value is None:
                raise BadFile(f"line {line_no}: {cell.strip()[:40]!r} is not a user id")
            yield value


def _header_column(cells: list[str], line_no: int) -> int | None:
    """Return the id column a header row names; None when the row is data; raise when a header lacks it."""
    if user_id(cells[0]) is not None:
        return None
    for index, cell in enumerate(cells):
        if csv_source.is_id_header(cell):
            return index
    raise BadFile(f"line {line_no}: no user id column (name it user_id, id or شناسه)")
