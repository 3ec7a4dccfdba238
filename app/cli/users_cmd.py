"""`flask users opt-out | opt-in ID`: take a user out of broadcasts, or put them back, on their behalf."""
from __future__ import annotations

import click
from flask.cli import AppGroup

from app.cli.common import CommandError
from app.services import audit, users

# Telegram user ids are positive BIGINTs: anything else cannot be a user.
USER_ID = click.IntRange(min=1, max=2**63 - 1)

# (opted out now?, changed?) -> what the command says.
MESSAGES = {
    (True, True): "opted out of broadcasts", (True, False): "was already opted out of broadcasts",
    (False, True): "opted back in to broadcasts", (False, False): "was not opted out (receives broadcasts)",
}

users_group = AppGroup("users", help="Act for users: opt-out and opt-in, tags, custom fields, CSV import.")


def _set(user_id: int, opted_out: bool) -> None:
    """Change the user's choice, or exit 1 naming an id the bot has never seen."""
    changed = users.set_opted_out_by_id(user_id, opted_out, audit.ACTOR_CLI)
    if changed is None:
        raise CommandError(f"no user {user_id} (they have never started the bot)")
    click.echo(f"user {user_id} " + MESSAGES[opted_out, changed])


@users_group.command("opt-out")
@click.argument("user_id", type=USER_ID, metavar="ID")
def opt_out(user_id: int) -> None:
    """Leave the user out of every new broadcast, as their /stop would (audited as "cli")."""
    _set(user_id, True)


@users_group.command("opt-in")
@click.argument("user_id", type=USER_ID, metavar="ID")
def opt_in(user_id: int) -> None:
    """Include the user in broadcasts again, as their /subscribe would (audited as "cli")."""
    _set(user_id, False)
