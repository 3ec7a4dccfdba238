"""`flask broadcast retry | export`: act on a job's ledger (one item row per recipient)."""
from __future__ import annotations

import sys

import click

from app.cli.broadcast_cmd import JOB_ID, broadcast_group
from app.cli.common import CommandError
from app.services import audit
from app.services.broadcast.actions import retry
from app.services.broadcast.reporting import export
from app.services.settings import load_settings


@broadcast_group.command("retry")
@click.argument("job_id", type=JOB_ID, metavar="ID")
@click.option("--include-unknown", is_flag=True,
              help="Also send to items whose outcome is unknown: some of them got it and get a second copy.")
def retry_cmd(job_id: int, include_unknown: bool) -> None:
    """Send a finished, cancelled or paused job again to whom it did not reach; print the new job's id alone.

    A paused job is cancelled first, so its pending items go out once, from the new job.
    """
    try:
        job = retry.retry_job(job_id, include_unknown=include_unknown, actor=audit.ACTOR_CLI, lang="en",
                              settings=load_settings())
    except retry.NotRetryable as exc:
        raise CommandError(str(exc)) from None
    except retry.NothingToRetry as exc:
        raise CommandError(f"{exc}; nothing to send", exit_code=2) from None
    if include_unknown:
        click.echo("warning: unknown items are included: some of these users may already have it and get a "
                   "second copy", err=True)
    click.echo(job.id)


@broadcast_group.command("export")
@click.argument("job_id", type=JOB_ID, metavar="ID")
@click.option("--csv", "path", required=True, metavar="PATH|-",
              help="Write the CSV (UTF-8 with BOM) to PATH, or to standard output with -.")
def export_cmd(job_id: int, path: str) -> None:
    """Write a job's ledger as CSV: user id, username, status, error, time, message id.

    Text cells starting with = + - @ tab or CR get a leading ' so a spreadsheet shows them as text.
    """
    try:
        export.check_exportable(job_id)  # before the file is created
    except export.NoSuchJob as exc:
        raise CommandError(str(exc)) from None
    except export.LedgerPurged as exc:
        raise CommandError(str(exc), exit_code=2) from None
    try:
        if path == "-":
            sys.stdout.flush()
            rows = export.export_csv(job_id, sys.stdout.buffer)
            sys.stdout.buffer.flush()
        else:
            with open(path, "wb") as out:
                rows = export.export_csv(job_id, out)
    except (export.NoSuchJob, export.LedgerPurged) as exc:  # purged or deleted meanwhile
        raise CommandError(str(exc)) from None
    except OSError as exc:
        raise CommandError(f"cannot write {path}: {exc.strerror}") from None
    export.record_export(job_id, audit.ACTOR_CLI, rows, "standard output" if path == "-" else path)
    if path != "-":
        click.echo(f"wrote {rows} rows of job {job_id} to {path}")
