"""`flask broadcast pin | unpin | expire`: pin a finished broadcast for everyone, or delete it after a time."""
from __future__ import annotations

import json
from datetime import timedelta

import click

from app.cli.broadcast_cmd import JOB_ID, broadcast_group
from app.cli.common import CommandError
from app.services import audit
from app.services.broadcast.actions import expiry, pin, unsend_edit
from app.services.broadcast.jobs.expiry_time import format_after, parse_after
from app.services.broadcast.reporting.expiry_view import next_pass
from app.services.settings import load_settings

JSON_HELP = "Print a JSON object instead of the id alone."


def _print(payload: dict, as_json: bool, plain) -> None:
    """Print the payload as JSON, or its plain form."""
    click.echo(json.dumps(payload, ensure_ascii=False) if as_json else plain)


@broadcast_group.command("pin")
@click.argument("job_id", type=JOB_ID, metavar="ID")
@click.option("--notify", is_flag=True, help="Notify each user of the pin (default: pin silently).")
@click.option("--json", "as_json", is_flag=True, help=JSON_HELP)
def pin_cmd(job_id: int, notify: bool, as_json: bool) -> None:
    """Pin every copy a finished broadcast delivered (an album: its first part); print the pin job's id."""
    try:
        job = pin.pin_job(job_id, notify=notify, actor=audit.ACTOR_CLI, lang="en", settings=load_settings())
    except unsend_edit.NotActionable as exc:
        raise CommandError(str(exc)) from None
    _print({"job_id": job.id, "kind": job.kind, "source_job_id": job_id, "total": job.total_count,
            "notify": notify}, as_json, job.id)


@broadcast_group.command("unpin")
@click.argument("job_id", type=JOB_ID, metavar="ID")
@click.option("--json", "as_json", is_flag=True, help=JSON_HELP)
def unpin_cmd(job_id: int, as_json: bool) -> None:
    """Unpin every copy the broadcast's last pin pinned; print the unpin job's id."""
    try:
        job = pin.unpin_job(job_id, actor=audit.ACTOR_CLI, lang="en", settings=load_settings())
    except unsend_edit.NotActionable as exc:
        raise CommandError(str(exc)) from None
    _print({"job_id": job.id, "kind": job.kind, "source_job_id": job_id, "total": job.total_count,
            "gone": job.gone_count}, as_json, job.id)


def parse_after_option(_ctx, _param, value: str | None) -> timedelta | None:
    """Click callback: --after / --expire-after as a duration of at most 47h."""
    if value is None:
        return None
    try:
        return parse_after(value)
    except ValueError as exc:
        raise click.BadParameter(str(exc)) from None


@broadcast_group.command("expire")
@click.argument("job_id", type=JOB_ID, metavar="ID")
@click.option("--after", "after", callback=parse_after_option, metavar="T",
              help="Delete each copy for everyone T after it was sent (6h, 90m; at most 47h). Cron runs it.")
@click.option("--cancel", is_flag=True, help="Cancel the auto-delete (an unsend job it already made runs on).")
@click.option("--json", "as_json", is_flag=True, help=JSON_HELP)
def expire_cmd(job_id: int, after: timedelta | None, cancel: bool, as_json: bool) -> None:
    """Set (--after) or cancel (--cancel) a broadcast's auto-delete; print what it is now."""
    if (after is None) == (not cancel):
        raise click.UsageError("give exactly one of --after T or --cancel")
    if cancel:
        if not expiry.cancel_expiry(job_id, audit.ACTOR_CLI):
            raise CommandError(f"job {job_id} has no auto-delete to cancel")
        _print({"job_id": job_id, "expire_after": None}, as_json, f"job {job_id}: auto-delete cancelled")
        return
    try:
        job = expiry.set_expiry(job_id, after, audit.ACTOR_CLI)
    except unsend_edit.NotActionable as exc:
        raise CommandError(str(exc)) from None
    due = next_pass(job)
    _print({"job_id": job_id, "expire_after": job.expire_after, "next_pass_utc": due.isoformat() if due else None},
           as_json, f"job {job_id}: each copy is deleted {format_after(after)} after it was sent")
