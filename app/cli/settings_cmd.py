"""`flask settings list | get KEY | set KEY VALUE`."""
from __future__ import annotations

import click
from flask.cli import AppGroup

from app.cli.common import CommandError, echo_json, render_table
from app.extensions import db
from app.services import audit
from app.services.settings import load_settings, set_setting
from app.settings_schema import DEFS, SettingError, format_range, format_value, get_def

settings_group = AppGroup("settings", help="Show and change the bot's tunable settings.")


@settings_group.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON array instead of a table.")
def list_settings(as_json: bool) -> None:
    """List every setting with its value, default and allowed range."""
    values = load_settings()
    if as_json:
        echo_json([
            {"key": d.key, "value": values[d.key], "default": d.default, "type": d.type.__name__,
             "min": d.min, "max": d.max, "range": format_range(d), "help": d.help}
            for d in DEFS.values()
        ])
        return
    rows = [(d.key, format_value(values[d.key]), format_value(d.default), format_range(d), d.help)
            for d in DEFS.values()]
    click.echo(render_table(("KEY", "VALUE", "DEFAULT", "RANGE", "DESCRIPTION"), rows))


@settings_group.command("get")
@click.argument("key")
def get_setting_cmd(key: str) -> None:
    """Print one setting's current value."""
    try:
        get_def(key)
    except SettingError as exc:
        raise CommandError(str(exc), exit_code=2) from None
    click.echo(format_value(load_settings()[key]))


# ignore_unknown_options lets "-5" reach the range check instead of being read as an option.
@settings_group.command("set", context_settings={"ignore_unknown_options": True})
@click.argument("key")
@click.argument("value")
def set_setting_cmd(key: str, value: str) -> None:
    """Validate and store one setting (nothing is stored when it is refused)."""
    try:
        stored = set_setting(key, value, actor=audit.ACTOR_CLI)
    except SettingError as exc:
        db.session.rollback()
        raise CommandError(str(exc), exit_code=2) from None
    click.echo(f"{key} = {format_value(stored)}")
