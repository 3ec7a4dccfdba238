"""`flask users import FILE [--dry-run]`: users' tags and fields from a CSV, all or nothing."""
from __future__ import annotations

from pathlib import Path

import click

from app.cli.common import CommandError
from app.cli.users_cmd import users_group
from app.services.audience import csv_import
from app.services.audience.csv_source import BadFile


@users_group.command("import")
@click.argument("path", type=click.Path(dir_okay=False, path_type=Path), metavar="FILE")
@click.option("--dry-run", is_flag=True, help="Check the file and report; change nothing.")
def import_users(path: Path, dry_run: bool) -> None:
    """Import tags and fields from a UTF-8 CSV (columns: user_id|id|شناسه, tags, tag:NAME, field names).

    The whole file is checked first; an invalid row, a wrong encoding or a
    bad header imports nothing. Ids that are no user are reported and skipped.
    """
    if not path.is_file():
        raise CommandError(f"{path}: no such file", 2)
    try:
        report = csv_import.run_import(path, dry_run=dry_run)
    except BadFile as exc:
        raise CommandError(f"{path}: {exc}; nothing was imported", 2) from None
    except csv_import.ImportRefused as exc:
        for line in exc.report.lines():
            click.echo(line)
        raise CommandError(f"{path}: {exc}", 2) from None
    if dry_run:
        click.echo("dry run: nothing changed")
    for line in report.lines():
        click.echo(line)
