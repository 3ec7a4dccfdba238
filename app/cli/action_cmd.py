"""`flask broadcast unsend | edit`: act on every copy a finished broadcast delivered, as a job of its own."""
from __future__ import annotations

import click

from app.cli.broadcast_cmd import JOB_ID, broadcast_group
from app.cli.common import CommandError
from app.services import audit
from app.services.broadcast import actions, text_rules
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
    # The HTML first (it needs no job); the service then checks the length against the job's kind of text.
    problem = text_rules.html_problem(text)
    if problem:
        raise CommandError(f"--text: broken HTML (Telegram: can't parse entities): {problem}", exit_code=2)
    try:
        job = actions.edit_job(job_id, text, actor=audit.ACTOR_CLI, lang="en", settings=load_settings())
    except actions.NotActionable as exc:
        raise CommandError(str(exc)) from None
    except ValueError as exc:
        raise CommandError(f"--text: {exc}", exit_code=2) from None
    click.echo(job.id)
