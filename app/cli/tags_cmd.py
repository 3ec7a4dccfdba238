"""`flask users tag add|remove`, `users tags`, `users field set|unset`, `users fields`, `users show ID`."""
from __future__ import annotations

import click

from app.cli.audience_common import checked, report, user_ids, which_users
from app.cli.common import CommandError, echo_json, render_table
from app.cli.users_cmd import USER_ID, users_group
from app.extensions import db
from app.models import names
from app.models.user import User
from app.services.audience import fields, tags


@users_group.group("tag")
def tag_group() -> None:
    """Add a tag to users or take it off (--ids 1,2, --csv FILE or --where SEGMENT)."""


@tag_group.command("add")
@click.argument("tag")
@which_users
def tag_add(tag: str, ids: str | None, csv_path, segment: str | None) -> None:
    """Tag the users (ids that are no user are reported, never created); idempotent."""
    tag = checked(names.tag, tag)
    read = user_ids(ids, csv_path, segment)
    report(f"tag {names.quote(tag)}", tags.add_tag(tag, read(), tags.ORIGIN_CLI), "added", "already had it")


@tag_group.command("remove")
@click.argument("tag")
@which_users
def tag_remove(tag: str, ids: str | None, csv_path, segment: str | None) -> None:
    """Take the tag off the users; idempotent."""
    tag = checked(names.tag, tag)
    read = user_ids(ids, csv_path, segment)
    report(f"tag {names.quote(tag)}", tags.remove_tag(tag, read()), "removed", "did not have it")


@users_group.command("tags")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def tags_list(as_json: bool) -> None:
    """List every tag with its number of users, the largest first."""
    rows = tags.tag_counts()
    if as_json:
        echo_json(rows)
    else:
        click.echo(render_table(["tag", "users"], [(r["tag"], r["users"]) for r in rows]) if rows else "no tags")


@users_group.group("field")
def field_group() -> None:
    """Set a custom field of users (plan=gold) or remove it (--ids 1,2, --csv FILE or --where SEGMENT)."""


@field_group.command("set")
@click.argument("name")
@click.argument("value")
@which_users
def field_set(name: str, value: str, ids: str | None, csv_path, segment: str | None) -> None:
    """Give the users this value of the field (1-255 characters); idempotent."""
    name, value = checked(names.field_name, name), checked(names.field_value, value)
    read = user_ids(ids, csv_path, segment)
    report(f"field {name}={names.quote(value)}", fields.set_field(name, value, read()), "set", "already had it")


@field_group.command("unset")
@click.argument("name")
@which_users
def field_unset(name: str, ids: str | None, csv_path, segment: str | None) -> None:
    """Remove the field from the users; idempotent."""
    name = checked(names.field_name, name)
    read = user_ids(ids, csv_path, segment)
    report(f"field {name}", fields.unset_field(name, read()), "removed", "did not have it")


@users_group.command("fields")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def fields_list(as_json: bool) -> None:
    """List every field name with its number of users."""
    rows = fields.name_counts()
    if as_json:
        echo_json(rows)
    else:
        click.echo(render_table(["field", "users"], [(r["name"], r["users"]) for r in rows]) if rows else "no fields")


@users_group.command("show")
@click.argument("user_id", type=USER_ID, metavar="ID")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def show(user_id: int, as_json: bool) -> None:
    """Show one user: name, tags and fields."""
    user = db.session.get(User, user_id)
    if user is None:
        raise CommandError(f"no user {user_id} (they have never started the bot)")
    info = {"id": user.id, "first_name": user.first_name, "username": user.username,
            "tags": tags.tags_of(user_id), "fields": fields.fields_of(user_id)}
    if as_json:
        echo_json(info)
        return
    click.echo(f"user {user.id} {user.first_name or ''}" + (f" @{user.username}" if user.username else ""))
    click.echo("tags: " + (", ".join(row["tag"] for row in info["tags"]) or "none"))
    click.echo("fields: " + (", ".join(f"{row['name']}={row['value']}" for row in info["fields"]) or "none"))
