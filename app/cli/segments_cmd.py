"""`flask segments save | list | show | count | delete`: saved, named audience rules broadcasts can name."""
from __future__ import annotations

import json
from dataclasses import replace

import click
from flask import current_app
from flask.cli import AppGroup

from app.cli.common import CommandError, echo_json, render_table
from app.models import names
from app.models.audience import AUDIENCES, LANGS, MAX_DAYS, MEMBER_AUDIENCES, Audience
from app.models.segment_rule import Rule, Target
from app.services import audit
from app.services.audience import segments
from app.services.audience.rules import RuleRefused, parse_field

DAYS = click.IntRange(min=1, max=MAX_DAYS)
JOB = click.IntRange(min=1, max=2**63 - 1)

segments_group = AppGroup("segments", help="Save named audience rules (tags, fields, history) and count them.")


def _rule(base, langs, active_days, joined_days, sources, tag_any, tag_all, tag_none, fields, received, clicked,
          not_clicked) -> Rule:
    """Build the rule the options describe, or exit 2 with one line saying what is wrong."""
    if base in MEMBER_AUDIENCES and current_app.config.get("MAIN_CHANNEL_ID") is None:
        raise CommandError(f"--base {base} needs MAIN_CHANNEL_ID; without it only 'all' is known", exit_code=2)
    try:
        tests = tuple(parse_field(spec) for spec in fields)
        return Rule(Audience(base, tuple(langs), active_days, joined_days, tuple(sources)), tag_any, tag_all,
                    tag_none, tests, received, clicked, not_clicked)
    except ValueError as exc:
        raise CommandError(str(exc), exit_code=2) from None


@segments_group.command("save")
@click.argument("name")
@click.option("--base", type=click.Choice(AUDIENCES), default="all", show_default=True, help="The base audience.")
@click.option("--lang", "langs", type=click.Choice(LANGS), multiple=True, help="Telegram language (repeatable).")
@click.option("--active-days", type=DAYS, metavar="N", help="Seen by the bot in the last N days.")
@click.option("--joined-days", type=DAYS, metavar="N", help="Started the bot in the last N days.")
@click.option("--source", "sources", multiple=True, help="First /start payload is this (repeatable: any).")
@click.option("--tag-any", multiple=True, metavar="TAG", help="Has at least one of these tags (repeatable).")
@click.option("--tag-all", multiple=True, metavar="TAG", help="Has every one of these tags (repeatable).")
@click.option("--tag-none", multiple=True, metavar="TAG", help="Has none of these tags (repeatable).")
@click.option("--field", "fields", multiple=True, metavar="SPEC",
              help="'plan=gold', 'plan!=free' (users without the field pass) or 'city in تهران,شیراز' (repeatable).")
@click.option("--received", multiple=True, type=JOB, metavar="JOB", help="Received broadcast JOB (or a retry of it).")
@click.option("--clicked", multiple=True, type=JOB, metavar="JOB", help="Clicked broadcast JOB's button.")
@click.option("--not-clicked", multiple=True, type=JOB, metavar="JOB",
              help="Received broadcast JOB and did not click its button.")
@click.option("--replace", is_flag=True, help="Overwrite the segment of this name (jobs already made keep theirs).")
def save(name, base, langs, active_days, joined_days, sources, tag_any, tag_all, tag_none, fields, received,
         clicked, not_clicked, replace) -> None:
    """Save a segment: every condition given must hold (AND); blocked and opted-out users are never in it."""
    rule = _rule(base, langs, active_days, joined_days, sources, tag_any, tag_all, tag_none, fields, received,
                 clicked, not_clicked)
    try:
        saved = segments.save(name, rule, replace=replace, actor=audit.ACTOR_CLI)
    except RuleRefused as exc:
        raise CommandError(str(exc), exit_code=2) from None
    for line in saved.warnings:
        click.echo(line, err=True)
    if saved.count == 0:
        click.echo(f"warning: segment {names.quote(saved.segment.name)} matches nobody now; a broadcast to it is "
                   "refused until it does", err=True)
    click.echo(f"segment {names.quote(saved.segment.name)} {'replaced' if saved.replaced else 'saved'}: {rule} "
               f"({saved.count} users now)")


def _view(segment, with_count: bool = True) -> dict:
    """Return a segment's JSON form: name, rule (summary and object), users now, times."""
    rule = segments.rule_of(segment)
    view = {"name": segment.name, "id": segment.id, "summary": str(rule), "rule": rule.to_json(),
            "created_at": segment.created_at.isoformat(timespec="seconds") + "Z",
            "updated_at": segment.updated_at.isoformat(timespec="seconds") + "Z"}
    return {**view, "count": segments.count_rule(rule)} if with_count else view


@segments_group.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON array.")
def list_cmd(as_json: bool) -> None:
    """List the segments by name with their rule and how many users each holds now."""
    rows = [_view(s) for s in segments.all_segments()]
    if as_json:
        echo_json(rows)
    elif not rows:
        click.echo("no segments (save one with `flask --app wsgi segments save NAME ...`)")
    else:
        click.echo(render_table(["NAME", "USERS", "RULE"], [[r["name"], r["count"], r["summary"]] for r in rows]))


@segments_group.command("show")
@click.argument("name")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON object.")
def show(name: str, as_json: bool) -> None:
    """Show one segment's rule and how many users it holds now."""
    view = _view(_get(name))
    if as_json:
        echo_json(view)
        return
    click.echo(f"{view['name']}: {view['summary']}\nusers now: {view['count']}\n"
               f"rule: {json.dumps(view['rule'], ensure_ascii=False)}\nupdated: {view['updated_at']}")


@segments_group.command("count")
@click.argument("name")
@click.option("--exclude", "excludes", multiple=True, metavar="NAME",
              help="Leave out this segment's users (repeatable).")
def count(name: str, excludes: tuple[str, ...]) -> None:
    """Print how many users the segment reaches now (less the excluded segments' users): the number alone."""
    try:
        target: Target = segments.target(name, excludes)
    except RuleRefused as exc:
        raise CommandError(str(exc), exit_code=2) from None
    click.echo(segments.count_rule(target))


@segments_group.command("delete")
@click.argument("name")
def delete(name: str) -> None:
    """Delete a segment; broadcasts already made from it keep their copy of its rule."""
    try:
        segments.delete(name, actor=audit.ACTOR_CLI)
    except RuleRefused as exc:
        raise CommandError(str(exc), exit_code=2) from None
    click.echo(f"segment {names.quote(names.segment_name(name))} deleted (jobs made from it are unchanged)")


def segment_draft(draft, audience: str | None, segment: str | None, excludes: tuple[str, ...]):
    """Return `broadcast create`'s draft with its segment and exclusions as ids, or exit 2 in one line."""
    if (audience is None) == (segment is None):
        raise click.UsageError("give exactly one of --audience or --segment")
    if segment is not None and draft.target.filtered:
        raise click.UsageError("--segment carries its own filters: drop --lang, --active-days, --joined-days, "
                               "--source (or save them in a segment)")
    try:
        include = segments.get(segment).id if segment is not None else None
        return replace(draft, segment_id=include, exclude_ids=list(dict.fromkeys(segments.get(n).id for n in excludes))
                       or None)
    except RuleRefused as exc:
        raise CommandError(str(exc), exit_code=2) from None


def _get(name: str):
    """Return the named segment or exit 2 naming it."""
    try:
        return segments.get(name)
    except RuleRefused as exc:
        raise CommandError(str(exc), exit_code=2) from None
