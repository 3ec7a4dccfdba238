"""`flask chains create | list | show | pause | resume | stop`: drip chains (steps after a trigger, each once)."""
from __future__ import annotations

import click
from flask.cli import AppGroup

from app.cli.common import CommandError, echo_json, render_table
from app.services import audit
from app.services.chains import manage
from app.services.chains.rules import parse_steps, parse_trigger

CHAIN_ID = click.IntRange(min=1, max=2**63 - 1)
TRIGGER_HELP = ("What starts it for a user: joined (first /start), source:X (first /start payload X), tag:T "
                "(tag T added), clicked:JOB (clicked broadcast JOB's button) - each only when it happens after "
                "the chain is created - or inactive:N (not seen for N days: a state, whoever is so now).")
STEP_HELP = ('"DELAY|TEXT": DELAY after the trigger (step 1) or after the previous step reached the user '
             "(0, 90, 30m, 2h, 3d; Persian digits too); TEXT is Telegram HTML, {first_name} allowed. Repeat it.")
STAT_COLUMNS = ("claimed", "jobs", "delivered", "failed", "skipped", "pending", "not_sent", "waiting")

chains_group = AppGroup("chains", help="Drip chains: create, list, show, pause, resume, stop.")


@chains_group.command("create")
@click.argument("name")
@click.option("--trigger", required=True, metavar="KIND", help=TRIGGER_HELP)
@click.option("--step", "steps", multiple=True, metavar="DELAY|TEXT", help=STEP_HELP)
@click.option("--button-text", default=None, help="A link button under every step (with --button-url).")
@click.option("--button-url", default=None, help="The link button's https:// or tg:// URL.")
@click.option("--json", "as_json", is_flag=True, help="Print the chain as JSON.")
def create(name: str, trigger: str, steps: tuple[str, ...], button_text, button_url, as_json: bool) -> None:
    """Create a drip chain; print its id (each step goes out through the engine, once per user)."""
    try:
        chain_id = manage.create(name, parse_trigger(trigger), parse_steps(list(steps)), button_text=button_text,
                                 button_url=button_url, actor=audit.ACTOR_CLI)
    except ValueError as exc:  # RuleError too: one line, nothing stored
        raise CommandError(str(exc), exit_code=2) from None
    if as_json:
        echo_json(manage.view(chain_id).as_dict())
        return
    click.echo(chain_id)


@chains_group.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON array.")
@click.option("--limit", type=click.IntRange(1, 1000), default=20, show_default=True)
def list_cmd(as_json: bool, limit: int) -> None:
    """List chains, newest first, with their delivered totals."""
    views = manage.newest(limit)
    if as_json:
        echo_json([v.as_dict() for v in views])
        return
    if not views:
        click.echo("no chains")
        return
    rows = [[v.id, v.status, v.name, v.trigger, len(v.steps), sum(s.stats["delivered"] for s in v.steps),
             sum(s.stats["pending"] for s in v.steps)] for v in views]
    click.echo(render_table(["ID", "STATUS", "NAME", "TRIGGER", "STEPS", "DELIVERED", "PENDING"], rows))


@chains_group.command("show")
@click.argument("chain_id", type=CHAIN_ID, metavar="ID")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def show(chain_id: int, as_json: bool) -> None:
    """Show a chain and each step's numbers (from its step jobs' counters)."""
    found = manage.view(chain_id)
    if found is None:
        raise CommandError(f"no chain {chain_id}")
    if as_json:
        echo_json(found.as_dict())
        return
    click.echo(f"chain {found.id} {found.name!r}: {found.status}, trigger {found.trigger}, "
               f"created {found.created_at}")
    if found.button_url:
        click.echo(f"button: {found.button_text} -> {found.button_url}")
    rows = [[s.position, s.delay, *(s.stats[c] for c in STAT_COLUMNS), s.text[:40]] for s in found.steps]
    click.echo(render_table(["STEP", "DELAY", *(c.upper() for c in STAT_COLUMNS), "TEXT"], rows))


def _change(chain_id: int, verb: str, change, as_json: bool) -> None:
    """Run one guarded change; exit 1 naming the state that refused it."""
    status = manage.status_of(chain_id)
    if status is None:
        raise CommandError(f"no chain {chain_id}")
    if not change(chain_id, audit.ACTOR_CLI):
        raise CommandError(f"chain {chain_id} is {manage.status_of(chain_id)}; it cannot be {verb}")
    if as_json:
        echo_json({"id": chain_id, "status": manage.status_of(chain_id)})
    else:
        click.echo(f"chain {chain_id} {verb}")


@chains_group.command("pause")
@click.argument("chain_id", type=CHAIN_ID, metavar="ID")
@click.option("--json", "as_json", is_flag=True, help="Print the chain's id and status as JSON.")
def pause(chain_id: int, as_json: bool) -> None:
    """Pause it: nobody new is claimed; step jobs already made still send."""
    _change(chain_id, "paused", manage.pause, as_json)


@chains_group.command("resume")
@click.argument("chain_id", type=CHAIN_ID, metavar="ID")
@click.option("--json", "as_json", is_flag=True, help="Print the chain's id and status as JSON.")
def resume(chain_id: int, as_json: bool) -> None:
    """Resume it: steps that came due while paused go out now."""
    _change(chain_id, "resumed", manage.resume, as_json)


@chains_group.command("stop")
@click.argument("chain_id", type=CHAIN_ID, metavar="ID")
@click.option("--json", "as_json", is_flag=True, help="Print the chain's id and status as JSON.")
def stop(chain_id: int, as_json: bool) -> None:
    """Stop it for good (its step jobs already made run; cancel them with `broadcast cancel`)."""
    _change(chain_id, "stopped", manage.stop, as_json)
