"""`flask broadcast runs`: every pump source's last run and totals, and what the cron watch sees now."""
from __future__ import annotations

import click
from flask.cli import with_appcontext

from app.cli.common import echo_json, render_table
from app.services.broadcast.schedule import cron_watch
from app.services.settings import load_settings

COLUMNS = ("source", "runs", "processed_total", "last_started_at", "last_ms", "last_processed")


@click.command("runs")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON object instead of a table.")
@with_appcontext
def runs_command(as_json: bool) -> None:
    """Show pump runs by source (cron, cli, admin, fallback) and whether cron is late."""
    rows = cron_watch.runs()
    state = cron_watch.cron_state(load_settings())
    watch = {**state.to_dict(), "alerted": state.alerted}
    if as_json:
        echo_json({"runs": rows, "cron": watch})
        return
    if rows:
        click.echo(render_table([c.upper() for c in COLUMNS], [[r[c] for c in COLUMNS] for r in rows]))
    else:
        click.echo("no pump has run yet")
    last = "never" if state.last_cron_at is None else f"{watch['last_run']} ({state.minutes_ago} min ago)"
    click.echo(f"\ncron (HTTP or CLI pump) last started: {last}")
    waiting = ", ".join(f"#{job_id} {status}" for job_id, status, *_ in state.waiting) or "none"
    click.echo(f"work waiting for cron: {waiting}")
    click.echo("cron is LATE" + (" (admins alerted)" if state.alerted else "") if state.late else "cron is on time")
