"""`flask users source-tag SOURCE TAG`, `source-untag SOURCE`, `source-tags`: deep links that tag users."""
from __future__ import annotations

import click

from app.cli.common import CommandError, echo_json, render_table
from app.cli.users_cmd import users_group
from app.models import names
from app.services.audience import source_tags as service


@users_group.command("source-tag")
@click.argument("source")
@click.argument("tag")
def source_tag(source: str, tag: str) -> None:
    """Tag every user who starts the bot with t.me/<bot>?start=SOURCE (from now on, each time)."""
    try:
        old = service.set_source_tag(source, tag)
    except (service.BadSource, names.BadName) as exc:
        raise CommandError(str(exc), 2) from None
    new = names.tag(tag)
    was = f" (was {names.quote(old)})" if old and old != new else ""
    click.echo(f"/start {names.source(source)} tags users {names.quote(new)}{was}")


@users_group.command("source-untag")
@click.argument("source")
def source_untag(source: str) -> None:
    """Stop tagging users who start with SOURCE (tags already given stay)."""
    try:
        removed = service.remove_source_tag(source)
    except service.BadSource as exc:
        raise CommandError(str(exc), 2) from None
    click.echo(f"/start {source} " + ("no longer tags users" if removed else "tagged nobody (nothing changed)"))


@users_group.command("source-tags")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def source_tags(as_json: bool) -> None:
    """List the deep links that tag users: source and tag."""
    rows = service.source_tags()
    if as_json:
        echo_json(rows)
    elif rows:
        click.echo(render_table(["source", "tag"], [(r["source"], r["tag"]) for r in rows]))
    else:
        click.echo("no source tags")
