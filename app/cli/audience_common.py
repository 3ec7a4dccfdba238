"""Options shared by the audience commands: which users (`--ids`, `--csv` or `--where`), names checked first."""
from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path

import click

from app.cli.common import CommandError
from app.extensions import db
from app.models import names
from app.services.audience import id_lists, segments
from app.services.audience.bulk import BulkResult
from app.services.audience.csv_source import BadFile


def which_users(fn: Callable) -> Callable:
    """Add the --ids / --csv / --where options (exactly one) to a bulk command."""
    fn = click.option("--where", "segment", metavar="SEGMENT",
                      help="The users a saved segment matches now (`segments list`).")(fn)
    fn = click.option("--csv", "csv_path", type=click.Path(dir_okay=False, path_type=Path),
                      help="A CSV of user ids: one per row, or a column named user_id, id or شناسه.")(fn)
    return click.option("--ids", help="Comma-separated user ids: 1001,1002.")(fn)


def user_ids(ids: str | None, csv_path: Path | None, segment: str | None = None) -> Callable[[], Iterable[int]]:
    """Check the whole id list now (a CSV read once, streamed) and return a function that reads it again.

    So a bad line anywhere refuses the command before anything is written. A
    segment's users are read once, now: the command acts on who matched when it started.
    """
    if sum(given is not None for given in (ids, csv_path, segment)) != 1:
        raise CommandError("give exactly one of --ids, --csv or --where", 2)
    if segment is not None:
        return _segment_ids(segment)
    try:
        if ids is not None:
            parsed = id_lists.parse_ids(ids)
            return lambda: parsed
        if not csv_path.is_file():
            raise CommandError(f"--csv {csv_path}: no such file", 2)
        for _ in id_lists.csv_ids(csv_path):
            pass
    except BadFile as exc:
        raise CommandError(f"{csv_path or '--ids'}: {exc}" if csv_path else str(exc), 2) from None
    return lambda: id_lists.csv_ids(csv_path)


def checked(rule: Callable[[str], str], raw: str) -> str:
    """Return raw through a names rule, or refuse the command in one line."""
    try:
        return rule(raw)
    except names.BadName as exc:
        raise CommandError(str(exc), 2) from None


def report(what: str, result: BulkResult, changed: str, unchanged: str) -> None:
    """Print one line: what changed, what already was so, and the unknown ids."""
    click.echo(f"{what}: {result.changed} {changed}, {result.unchanged} {unchanged}{result.unknown_line()}")


def _segment_ids(name: str) -> Callable[[], Iterable[int]]:
    """Return the ids a saved segment matches now, or refuse an unknown name in one line."""
    try:
        found = list(db.session.execute(segments.matching_user_ids(name)).scalars())
    except segments.SegmentMissing as exc:
        raise CommandError(f"--where: {exc}", 2) from None
    return lambda: found
