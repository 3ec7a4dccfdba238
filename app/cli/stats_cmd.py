"""`flask stats` and `flask audit list`: the population counts and the audit log."""
from __future__ import annotations

import click
from flask.cli import AppGroup, with_appcontext

from app.cli.common import echo_json, render_table
from app.cli.english import english_reason
from app.services import audit, stats
from app.services.stats import KEYS

# Labels of `flask stats` in KEYS order (JSON uses the keys themselves).
LABELS = {"users": "users", "active_7d": "active in the last 7 days", "active_30d": "active in the last 30 days",
          "blocked": "blocked the bot", "opted_out": "opted out of broadcasts (/stop)",
          "channel_members": "channel members", "new_today": "new today (UTC)", "new_week": "new in the last 7 days"}
SOURCE_COLUMNS = ("source", "users", "joined_7d", "joined_30d", "subscribed")
AUDIT_COLUMNS = ("id", "at", "actor", "action", "job_id", "detail")

audit_group = AppGroup("audit", help="Read the audit log: who did what to which job or setting, and when.")


@click.command("stats")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON object instead of a table.")
@click.option("--fresh", is_flag=True, help="Count now (and store the snapshot) even for a large bot.")
@with_appcontext
def stats_command(as_json: bool, fresh: bool) -> None:
    """Show users, active in 7 / 30 days, blocked, opted out, channel members, newcomers and the top sources.

    A bot of 50,000 users or more shows cron's snapshot and its age unless --fresh.
    """
    figures = stats.refresh() if fresh else stats.figures()
    counts, sources = figures.counts, figures.sources
    # The snapshot's time only when it is one: a live count is as of now.
    as_of = {} if figures.live else {"as_of": figures.taken_at.isoformat(timespec="seconds") + "Z",
                                     "age_minutes": figures.age_minutes()}
    if as_json:
        echo_json({**counts, "sources": sources, **as_of})
        return
    click.echo(render_table(("WHAT", "COUNT"), [(LABELS[key], counts[key]) for key in KEYS]))
    if as_of:
        click.echo(f"counted {as_of['age_minutes']} min ago ({as_of['as_of']}); --fresh counts now")
    if sources:
        click.echo()
        click.echo(render_table([c.upper() for c in SOURCE_COLUMNS], [[r[c] for c in SOURCE_COLUMNS] for r in sources]))


@audit_group.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON array instead of a table.")
@click.option("--job", "job_id", type=click.IntRange(min=1, max=2**63 - 1), metavar="ID",
              help="Only this job's entries (oldest first).")
@click.option("--limit", type=click.IntRange(1, 10_000), default=50, show_default=True)
def list_entries(as_json: bool, job_id: int | None, limit: int) -> None:
    """List the newest entries (or one job's, oldest first)."""
    # Pause reasons the engine wrote in Persian are shown in English, as everywhere on the CLI.
    rows = [{**e, "detail": english_reason(e["detail"])} for e in audit.entries(job_id, limit=limit)]
    if as_json:
        echo_json(rows)
    elif not rows:
        click.echo("no audit entries")
    else:
        click.echo(render_table([c.upper() for c in AUDIT_COLUMNS], [[r[c] for c in AUDIT_COLUMNS] for r in rows]))
