"""`users import FILE`: users' tags and fields from a CSV, streamed, all applied or none.

Two phases. The first reads the file once, a row at a time (constant
memory, any size): it checks every row, looks its ids up a chunk at a time
and stages each known user's changes in `import_rows`, a short committed
INSERT per chunk. Any invalid row refuses the whole import; the staged rows
are dropped and users' tags and fields were never touched. The second
applies the staged changes in one transaction of three set-based statements
(tags removed, tags added, fields set: `INSERT … SELECT`), so MySQL holds
row locks for the seconds those take, not for the minutes of reading a
file. A kill before that commit leaves users as they were; a killed
import's staged rows are swept by the next import.
"""
from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from datetime import timedelta
from itertools import islice
from pathlib import Path

from app.clock import utcnow
from app.extensions import db
from app.models import names
from app.repository import import_rows as repo
from app.services.audience import csv_plan, csv_source
from app.services.audience.bulk import CHUNK, UNKNOWN_SHOWN
from app.services.audience.csv_source import BadFile

STALE_AFTER = timedelta(hours=6)  # no import stages for this long: rows this old are a killed one's
INVALID_SHOWN = 5
DROP_CHUNK = 5000


@dataclass
class ImportReport:
    """What an import found and did."""

    rows: int = 0
    matched: int = 0
    unknown: int = 0
    unknown_first: list[int] = field(default_factory=list)
    invalid: int = 0
    invalid_first: list[tuple[int, str]] = field(default_factory=list)
    changes: int = 0
    tags_added: int = 0
    tags_removed: int = 0
    applied: bool = False

    def lines(self) -> list[str]:
        """Return the report as lines for the operator."""
        out = [f"rows: {self.rows}, matched users: {self.matched}, changes: {self.changes}"]
        if self.unknown:
            out.append(f"unknown ids (no such user, skipped): {self.unknown} (first: "
                       f"{', '.join(map(str, self.unknown_first))})")
        if self.invalid:
            out.append(f"invalid rows: {self.invalid}: " + "; ".join(f"line {n}: {why}" for n, why in
                                                                      self.invalid_first))
        if self.applied:
            out.append(f"applied: {self.tags_added} tags added, {self.tags_removed} removed, field values set")
        return out


class ImportRefused(ValueError):
    """The import changed nothing: invalid rows (the report says which)."""

    def __init__(self, report: ImportReport):
        super().__init__(f"{report.invalid} invalid rows; nothing was imported")
        self.report = report


def run_import(path: Path, dry_run: bool = False) -> ImportReport:
    """Check the whole file, then apply it all (or, dry, only report); raise BadFile or ImportRefused."""
    import_id = secrets.token_hex(8)
    if not dry_run:
        sweep_stale()
    try:
        report = _scan(path, import_id, stage=not dry_run)
        if report.invalid:
            raise ImportRefused(report)
        if not dry_run:
            _apply(import_id, report)
    finally:
        if not dry_run:
            _drop(import_id)
    return report


def _scan(path: Path, import_id: str, stage: bool) -> ImportReport:
    """Read and check every row, a chunk at a time; stage known users' changes while the file is valid."""
    report, seq, now = ImportReport(), 0, utcnow()
    with open(path, "rb") as raw:
        rows = csv_source.rows(raw)
        first = next(rows, None)
        if first is None:
            raise BadFile("the file is empty")
        columns = csv_plan.plan(first[1])
        while chunk := list(islice(rows, CHUNK)):
            parsed = _parse(columns, chunk, report)
            known = repo.known_ids([uid for _, uid, _ in parsed]) if parsed else set()
            staged = []
            for _line, uid, changes in parsed:
                if uid not in known:
                    _note_unknown(report, uid)
                    continue
                report.matched += 1
                report.changes += len(changes)
                for change in changes:
                    seq += 1
                    staged.append({"import_id": import_id, "seq": seq, "user_id": uid, "op": change.op,
                                   "name": change.name, "value": change.value, "created_at": now})
            if stage and not report.invalid:
                repo.stage(staged)
            db.session.commit()  # each chunk's staging (or lookup) is its own short transaction
    return report


def _parse(columns, chunk, report: ImportReport) -> list[tuple[int, int, list]]:
    """Return the chunk's valid rows as (line, user id, changes), counting the invalid ones."""
    out = []
    for line, cells in chunk:
        report.rows += 1
        try:
            uid, changes = csv_plan.changes(columns, cells)
        except names.BadName as exc:
            report.invalid += 1
            if len(report.invalid_first) < INVALID_SHOWN:
                report.invalid_first.append((line, str(exc)))
            continue
        out.append((line, uid, changes))
    return out


def _note_unknown(report: ImportReport, uid: int) -> None:
    """Count an id that is no user, keeping the first few."""
    report.unknown += 1
    if len(report.unknown_first) < UNKNOWN_SHOWN:
        report.unknown_first.append(uid)


def _apply(import_id: str, report: ImportReport) -> None:
    """Apply the staged changes in one transaction: removals, then additions, then fields."""
    now = utcnow()
    try:
        report.tags_removed = repo.remove_tags(import_id)
        report.tags_added = repo.add_tags(import_id, now)
        repo.set_fields(import_id, now)
    except BaseException:
        db.session.rollback()
        raise
    db.session.commit()
    report.applied = True


def _drop(import_id: str) -> None:
    """Delete an import's staged rows in bounded chunks, each committed."""
    db.session.rollback()
    while repo.drop(import_id, DROP_CHUNK):
        db.session.commit()
    db.session.commit()


def sweep_stale() -> None:
    """Drop the staged rows a killed import left behind."""
    for import_id in repo.stale_imports(utcnow() - STALE_AFTER):
        _drop(import_id)
