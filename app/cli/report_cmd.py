"""`flask broadcast report`: a broadcast's results as the bot's picture (PNG) or as its numbers (JSON)."""
from __future__ import annotations

import click

from app.cli.broadcast_cmd import JOB_ID, broadcast_group
from app.cli.common import CommandError, echo_json
from app.services.broadcast.reporting import drawing
from app.services.broadcast.reporting.numbers_line import numbers_line
from app.services.broadcast.reporting.results import NoResults, compute


@broadcast_group.command("report")
@click.argument("job_id", type=JOB_ID, metavar="ID")
@click.option("--png", "path", metavar="FILE", help="Write the results picture (the bot's, as a PNG) to FILE.")
@click.option("--json", "as_json", is_flag=True, help="Print the numbers the picture shows, as JSON.")
@click.option("--lang", type=click.Choice(("fa", "en")), default="fa", show_default=True,
              help="The picture's language.")
def report_cmd(job_id: int, path: str | None, as_json: bool, lang: str) -> None:
    """Show a broadcast's results: delivery and clicks over time, pauses and 429 holds, who left after, its neighbours.

    Exits 2 for an unknown job, one that delivered nothing, a purged ledger or a file that cannot be written;
    1 when matplotlib (requirements-pictures.txt) is not installed: the numbers are printed as text instead.
    """
    if not path and not as_json:
        raise CommandError("say what to write: --png FILE and/or --json", exit_code=2)
    try:
        results = compute(job_id)
    except NoResults as exc:
        raise CommandError(str(exc), exit_code=2) from None
    if path and not drawing.available():
        click.echo(numbers_line(results, lang, hint=True))
        if as_json:
            echo_json(results.as_dict())
        raise click.exceptions.Exit(1)
    if path:
        from app.services.broadcast.reporting.chart import render_png  # a command's own process: drawn here

        _write(path, render_png(results, lang))
    if as_json:
        echo_json(results.as_dict())
    elif path:
        click.echo(f"wrote the results picture of broadcast {job_id} to {path}")


def _write(path: str, png: bytes) -> None:
    """Write the picture, or exit 2 with the reason the path cannot be written."""
    try:
        with open(path, "wb") as out:
            out.write(png)
    except OSError as exc:
        raise CommandError(f"cannot write {path}: {exc.strerror or exc}", exit_code=2) from None
