"""`flask updates purge`: forget old webhook update ids."""
from __future__ import annotations

import click
from flask.cli import AppGroup

from app.services.settings import load_settings
from app.services.updates import purge_processed_updates

updates_group = AppGroup("updates", help="Maintain the record of handled Telegram updates.")


@updates_group.command("purge")
@click.option("--older-than", "days", type=click.IntRange(min=1, max=100_000), metavar="DAYS",
              help="Age in days [default: the processed_updates_keep_days setting].")
def purge(days: int | None) -> None:
    """Delete processed update ids older than DAYS (Telegram never redelivers that late)."""
    days = days or load_settings()["processed_updates_keep_days"]
    removed = purge_processed_updates(days)
    click.echo(f"removed {removed} processed updates older than {days} days")
