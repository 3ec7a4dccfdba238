"""`flask broadcast ab ID [--json]` (an A/B test's versions side by side) and `broadcast ab-pick ID LETTER`."""
from __future__ import annotations

import click

from app.cli.broadcast_cmd import JOB_ID, broadcast_group
from app.cli.common import CommandError, echo_json, render_table
from app.services import audit
from app.services.broadcast.ab import report, winner
from app.services.broadcast.jobs import control
from app.services.settings import load_settings

COLUMNS = ("version", "recipients", "delivered", "clicks", "ctr")
GOAL_COLUMNS = ("button clicks", "button rate")  # with --winner-by: who clicked that button, over delivered
GOES = {report.GOES_SENT: "sent to the rest as job {winner_job}", report.GOES_EMPTY: "chosen; nobody was left",
        report.GOES_ADMIN: "no clear leader when the wait ended: waiting for `broadcast ab-pick`",
        report.GOES_NEVER: "never: the test was cancelled", report.GOES_AT: "by cron at {winner_goes_at}",
        report.GOES_AFTER: "by cron {winner_after_seconds} s after the test finishes sending"}


@broadcast_group.command("ab")
@click.argument("job_id", type=JOB_ID, metavar="ID")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON object.")
def ab_cmd(job_id: int, as_json: bool) -> None:
    """Show an A/B test: per version recipients, delivered, clicks, CTR; the leader, the z-test, the winner."""
    job = control.get_job(job_id)
    info = report.summary(job) if job is not None else {}
    if not info:
        raise CommandError(f"job {job_id} is not an A/B test" if job else f"no broadcast job {job_id}")
    if as_json:
        echo_json(info)
        return
    by_button = info["rule"]["by"] == report.BY_BUTTON
    rows = [[v["version"], v["recipients"], v["delivered"], v["clicks"], f"{v['ctr'] * 100:.2f}%",
             *([v["goal_clicks"], f"{v['goal_rate'] * 100:.2f}%"] if by_button else [])] for v in info["versions"]]
    click.echo(render_table([c.upper() for c in COLUMNS + (GOAL_COLUMNS if by_button else ())], rows))
    click.echo(f"winner by: {report.rule_text(info['rule'])}")
    click.echo(f"leader: {info['leader'] or 'none (no click, or a tie at the top)'}")
    click.echo(f"test: {report.TEST_NAME}: {report.p_text(info)}")
    winner_line = GOES[info["winner_goes"]].format(**info)
    click.echo(f"winner: {info['winner'] + ', ' if info['winner'] else ''}{winner_line}")


@broadcast_group.command("ab-pick")
@click.argument("job_id", type=JOB_ID, metavar="ID")
@click.argument("letter", metavar="VERSION")
def ab_pick_cmd(job_id: int, letter: str) -> None:
    """Send this version of an A/B test to the rest now (once); print the winner job's id."""
    try:
        made = winner.pick(job_id, letter, actor=audit.ACTOR_CLI, settings=load_settings())
    except winner.NotPickable as exc:
        raise CommandError(str(exc)) from None
    if made is None:
        click.echo(f"version {letter.upper()} chosen; nobody is left to send it to", err=True)
        return
    click.echo(made)
