"""`flask recurring list | show | pause | resume | stop`, and `broadcast create --every` (a recurring broadcast)."""
from __future__ import annotations

import click
from flask.cli import AppGroup

from app.cli.common import CommandError, echo_json, render_table
from app.services import audit
from app.services.broadcast.jobs import creation
from app.services.broadcast.jobs.draft import Draft
from app.services.broadcast.schedule import recurring
from app.services.broadcast.schedule import recurring_series as series
from app.services.broadcast.schedule.occurrences import IF_MISSED
from app.services.broadcast.schedule.recurrence import RuleError
from app.services.broadcast.schedule.send_time import SendTimeError, describe, tehran_iso
from app.texts import t

SERIES_ID = click.IntRange(min=1, max=2**63 - 1)
COLUMNS = ("id", "status", "rule", "next_at", "until", "count", "occurrences", "made", "if_missed")
EVERY_HELP = ('Repeat it (Tehran time): "daily 09:00", "weekly sat,tue 10:00" (or Persian day names), '
              '"monthly 1 09:00" (Solar Hijri month day; a shorter month: its last day), "monthly-g 15 09:00" '
              '(Gregorian), "monthly last 20:00". Each occurrence is its own job; prints the recurring id.')

recurring_group = AppGroup("recurring", help="Recurring broadcasts: list, show, pause, resume, stop.")


def every_options(command):
    """Add --every, --until, --count and --if-missed to `broadcast create`."""
    options = [
        click.option("--every", metavar="RULE", help=EVERY_HELP),
        click.option("--until", metavar="DATE", help="With --every: the last day (Tehran) an occurrence may come, "
                                                      "Solar Hijri 1405-12-29 or Gregorian 2027-03-19."),
        click.option("--count", type=click.IntRange(1, series.MAX_COUNT), metavar="N",
                     help="With --every: end after N occurrences (sent or skipped)."),
        click.option("--if-missed", type=click.Choice(IF_MISSED), default=None,
                     help="With --every: an occurrence cron missed (it was down over its time) is sent once "
                          "when cron returns (send: the latest of several) or skipped [default: send]."),
    ]
    for option in reversed(options):
        command = option(command)
    return command


def check_every(every, until, count, if_missed, at) -> None:
    """Refuse --until/--count/--if-missed without --every, and --every with --at, in one line."""
    if every is None and (until or count or if_missed):
        raise click.UsageError("--until, --count and --if-missed go with --every")
    if every is not None and at is not None:
        raise click.UsageError("give --at (one send) or --every (a recurring broadcast), not both")
    if until and count:
        raise click.UsageError("give --until or --count, not both")


def create_series(draft: Draft, every: str, until, count, if_missed, created_by) -> None:
    """Store the recurring broadcast; print its id (stdout) and its first occurrence (stderr), or refuse."""
    try:
        row = series.create(draft, every, until=until, count=count, if_missed=if_missed or "send",
                            created_by=created_by, lang="en", actor=audit.ACTOR_CLI)
    except (RuleError, SendTimeError) as exc:
        raise CommandError(_refusal(exc), exit_code=2) from None
    except ValueError as exc:
        raise CommandError(str(exc), exit_code=2) from None
    click.echo(row.id)
    audience = creation.count_recipients(recurring.series_audience(row, draft))  # its segment, as each occurrence
    click.echo(f"recurring broadcast {row.id}: {row.rule}, first at {tehran_iso(row.next_at)} "
               f"(its audience has {audience} users now)", err=True)


def _refusal(exc: RuleError | SendTimeError) -> str:
    """Return a rule error as the CLI's one line (English, without the chat's ❌)."""
    option = {"rec_err_until_format": "--until", "rec_err_until_past": "--until", "rec_err_never": "--until",
              "sched_err_date": "--until", "rec_err_count": "--count"}.get(exc.key, "--every")
    return f"{option}: {t(exc.key, 'en', **exc.values).lstrip('❌ ')}"


def _row(r) -> dict:
    """Return one series as the list shows it."""
    return {"id": r.id, "status": r.status, "rule": r.rule, "next_at": tehran_iso(r.next_at),
            "until": series.SeriesView(r, [], []).as_dict()["until"], "count": r.count_limit,
            "occurrences": r.occurrences, "made": r.made_count, "if_missed": r.if_missed}


@recurring_group.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON array.")
@click.option("--limit", type=click.IntRange(1, 1000), default=20, show_default=True)
def list_cmd(as_json: bool, limit: int) -> None:
    """List recurring broadcasts, newest first (times in Tehran)."""
    rows = [_row(r) for r in series.newest(limit)]
    if as_json:
        echo_json(rows)
    elif not rows:
        click.echo("no recurring broadcasts")
    else:
        click.echo(render_table([c.upper() for c in COLUMNS], [[r[c] for c in COLUMNS] for r in rows]))


@recurring_group.command("show")
@click.argument("series_id", type=SERIES_ID, metavar="ID")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def show(series_id: int, as_json: bool) -> None:
    """Show a recurring broadcast: its rule, next occurrences (Tehran, both calendars) and the jobs it made."""
    found = series.view(series_id)
    if found is None:
        raise CommandError(f"no recurring broadcast {series_id}")
    if as_json:
        echo_json(found.as_dict())
        return
    click.echo(series.summary(found.row, "en"))
    click.echo(f"  audience: {series.audience_text(found.row)}")
    for at in found.upcoming:
        click.echo(f"  next: {describe(at, 'en')}")
    for o in found.occurrences:
        job = f"job {o.job_id}" if o.job_id else "no job"
        click.echo(f"  {describe(o.occurs_at, 'en')}: {o.outcome} ({job})")


def _change(series_id: int, verb: str, change) -> None:
    """Run one guarded change; exit 1 naming the state that refused it."""
    row = series.get(series_id)
    if row is None:
        raise CommandError(f"no recurring broadcast {series_id}")
    if not change(series_id, audit.ACTOR_CLI):
        raise CommandError(f"recurring broadcast {series_id} is {row.status}; it cannot be {verb}")
    click.echo(f"recurring broadcast {series_id} {verb}")


@recurring_group.command("pause")
@click.argument("series_id", type=SERIES_ID, metavar="ID")
def pause(series_id: int) -> None:
    """Pause it: no occurrence until resumed (those that pass meanwhile are not made later)."""
    _change(series_id, "paused", series.pause)


@recurring_group.command("resume")
@click.argument("series_id", type=SERIES_ID, metavar="ID")
def resume(series_id: int) -> None:
    """Resume it from its first occurrence after now."""
    _change(series_id, "resumed", series.resume)


@recurring_group.command("stop")
@click.argument("series_id", type=SERIES_ID, metavar="ID")
def stop(series_id: int) -> None:
    """Stop it for good (the jobs it made are untouched: cancel them with `broadcast cancel`)."""
    _change(series_id, "stopped", series.stop)
