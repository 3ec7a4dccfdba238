"""`flask doctor`: read the host's limits and say whether the bot's configuration fits them, and what to change.

Exit code 0 when every check fits (or could not be read), 1 when one does not.
"""
from __future__ import annotations

import click
from flask.cli import with_appcontext

from app.cli.common import echo_json
from app.services.doctor.facts import FAIL, INFO, OK, UNKNOWN
from app.services.doctor.gather import gather
from app.services.doctor.judge import fits, judge
from app.texts import LANGS, t

# Passenger's default pool: the processes a cPanel app may run when the host sets nothing else.
DEFAULT_PROCESSES = 6
# The deploy guide's crontab calls the pump every minute.
DEFAULT_CRON_INTERVAL = 60
# A busy sign-up hour (issue 39): updates the webhook handles in one hour besides a broadcast.
DEFAULT_UPDATES_PER_HOUR = 2000
STATE_TEXTS = {OK: "doc_state_ok", FAIL: "doc_state_fail", UNKNOWN: "doc_state_unknown", INFO: "doc_state_info"}


def render(verdicts, read: dict, processes: int, lang: str) -> str:
    """Return the plain-words report: one line per check, what to change under each that does not fit."""
    lines = [t("doc_title", lang, processes=processes), ""]
    for verdict in verdicts:
        lines.append(f"{t(STATE_TEXTS[verdict.state], lang)}  {t(verdict.key, lang, **verdict.values)}")
        if verdict.fix:
            lines.append(t("doc_fix_line", lang, fix=t(verdict.fix, lang, **verdict.fix_values)))
    usage = read["this_command"]
    if usage["rss_mb"] is not None:
        lines += ["", t("doc_this_command", lang, rss=usage["rss_mb"], threads=usage["threads"])]
    failed = sum(v.state == FAIL for v in verdicts)
    lines += ["", t("doc_summary_fail", lang, count=failed) if failed else t("doc_summary_ok", lang)]
    return "\n".join(lines)


@click.command("doctor")
@click.option("--processes", type=click.IntRange(1, 100), default=DEFAULT_PROCESSES, show_default=True,
              help="Passenger's processes for this app (its pool size; the host's default is 6).")
@click.option("--cron-interval", type=click.IntRange(1, 3600), default=DEFAULT_CRON_INTERVAL, show_default=True,
              help="Seconds between cron's pump runs (the guide's crontab: every minute).")
@click.option("--updates-per-hour", type=click.IntRange(0, 10_000_000), default=DEFAULT_UPDATES_PER_HOUR,
              show_default=True, help="Updates the webhook handles in a busy hour, besides a broadcast.")
@click.option("--lang", type=click.Choice(LANGS), default="fa", show_default=True, help="The report's language.")
@click.option("--json", "as_json", is_flag=True, help="Print the checks and what was read as JSON.")
@with_appcontext
def doctor_command(processes: int, cron_interval: int, updates_per_hour: int, lang: str, as_json: bool) -> None:
    """Check memory, processes, connections, query caps, cron, webhook and disk against this host's limits."""
    facts, read = gather(processes, cron_interval, updates_per_hour)
    verdicts = judge(facts)
    ok = fits(verdicts)
    if as_json:
        echo_json({"fits": ok, "processes": processes, "cron_interval": cron_interval,
                   "checks": [v.as_dict() for v in verdicts], "read": read})
    else:
        click.echo(render(verdicts, read, processes, lang))
    if not ok:
        raise SystemExit(1)
