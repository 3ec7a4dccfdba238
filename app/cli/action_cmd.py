"""`flask broadcast unsend | edit`: act on every copy a finished broadcast delivered, as a job of its own."""
from __future__ import annotations

import click

from app.cli.broadcast_cmd import JOB_ID, broadcast_group
from app.cli.common import CommandError
from app.cli.validate import html_problem
from app.services import audit
from app.services.broadcast import actions
from app.services.settings import load_settings


@broadcast_group.command("unsend")
@click.argument("job_id", type=JOB_ID, metavar="ID")
def unsend_cmd(job_id: int) -> None:
    """Delete a finished broadcast from every recipient (within Telegram's 48 hours); print the deletion job's id.

    The deletion runs like a send (pump/cron): pause, cancel and status work on its id.
    """
    try:
        job = actions.unsend_job(job_id, actor=audit.ACTOR_CLI, lang="en", settings=load_settings())
    except actions.NotActionable as exc:
        raise CommandError(str(exc)) from None
    click.echo(job.id)


@broadcast_group.command("edit")
@click.argument("job_id", type=JOB_ID, metavar="ID")
@click.option("--text", required=True, help="The new text (Telegram HTML); a caption for media and albums.")
def edit_cmd(job_id: int, text: str) -> None:
    """Replace the text (or caption) of every copy a finished broadcast delivered; print the edit job's id."""
    problem = html_problem(text)
    if problem:
        raise click.BadParameter(f"broken HTML: {problem}", param_hint="--text")
    try:
        job = actions.edit_job(job_id, text, actor=audit.ACTOR_CLI, lang="en", settings=load_settings())
    except actions.NotActionable as exc:
        raise CommandError(str(exc)) from None
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--text") from None
    click.echo(job.id)
