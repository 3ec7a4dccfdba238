"""`flask broadcast unsend | edit`: act on every copy a finished broadcast delivered, as a job of its own."""
from __future__ import annotations

import click

from app.cli.broadcast_cmd import JOB_ID, broadcast_group
from app.cli.common import CommandError
from app.services import audit
from app.services.broadcast.actions import unsend_edit
from app.services.broadcast.content import text_rules
from app.services.broadcast.content.variants import VariantRefused
from app.services.settings import load_settings


@broadcast_group.command("unsend")
@click.argument("job_id", type=JOB_ID, metavar="ID")
def unsend_cmd(job_id: int) -> None:
    """Delete a finished broadcast from every recipient (within Telegram's 48 hours); print the deletion job's id.

    The deletion runs like a send (pump/cron): pause, cancel and status work on its id.
    """
    try:
        job = unsend_edit.unsend_job(job_id, actor=audit.ACTOR_CLI, lang="en", settings=load_settings())
    except unsend_edit.NotActionable as exc:
        raise CommandError(str(exc)) from None
    _note_unreachable(job_id)
    click.echo(job.id)


def _note_unreachable(job_id: int) -> None:
    """Say on stderr how many copies the action cannot reach, and why (stdout keeps the job id alone)."""
    unknown = unsend_edit.unreachable(job_id)
    if unknown:
        click.echo(f"note: {unknown} copies of job {job_id} are unknown: Telegram's answer for them was lost, so "
                   f"there is no message id to act on; if they arrived, they stay as they are", err=True)


@broadcast_group.command("edit")
@click.argument("job_id", type=JOB_ID, metavar="ID")
@click.option("--text", help="The new text (Telegram HTML); a caption for media and albums. With language "
                             "variants: the default's copies only.")
@click.option("--variant", "variants", type=(str, str), multiple=True, metavar="LANG TEXT",
              help="A broadcast with language variants: the new text of that variant's copies (repeatable); "
                   "variants not named keep their text.")
def edit_cmd(job_id: int, text: str | None, variants: tuple) -> None:
    """Replace the text (or caption) of every copy a finished broadcast delivered; print the edit job's id."""
    if text is None and not variants:
        raise click.UsageError("give --text (the default's copies) and/or --variant LANG TEXT")
    # The HTML first (it needs no job); the service then checks the length against the job's kind of text.
    for option, value in ([("--text", text)] if text is not None else []) + [("--variant", v) for _, v in variants]:
        problem = text_rules.html_problem(value)
        if problem:
            raise CommandError(f"{option}: broken HTML (Telegram: can't parse entities): {problem}", exit_code=2)
    codes = [code.strip().lower() for code, _ in variants]
    if len(set(codes)) != len(codes):
        raise CommandError("--variant: each language once", exit_code=2)
    try:
        job = unsend_edit.edit_job(job_id, text, actor=audit.ACTOR_CLI, lang="en", settings=load_settings(),
                                   variants=dict(variants))
    except unsend_edit.NotActionable as exc:
        raise CommandError(str(exc)) from None
    except VariantRefused as exc:
        raise CommandError(f"--variant: {exc}", exit_code=2) from None
    except ValueError as exc:
        raise CommandError(f"--text: {exc}" if not variants else str(exc), exit_code=2) from None
    _note_unreachable(job_id)
    click.echo(job.id)
