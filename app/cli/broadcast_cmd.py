"""`flask broadcast create | list | status | cancel | pause | resume | reschedule | send-now | purge` (pump, retry,
export: own modules)."""
from __future__ import annotations

import click
from flask import current_app
from flask.cli import AppGroup

from app.cli import ab_create, untracked
from app.cli.common import CommandError, echo_json, render_table
from app.cli.create_input import KEY_HELP, content_of, expire_seconds, keyboard_of, sources_option
from app.cli.english import english_status
from app.cli.pump_cmd import pump_command
from app.cli.recurring_cmd import check_every, create_series, every_options
from app.cli.runs_cmd import runs_command
from app.cli.segments_cmd import segment_draft
from app.cli.validate import button_problem
from app.models.audience import AUDIENCES, LANGS, MAX_DAYS, MEMBER_AUDIENCES, Audience
from app.models.broadcast import CONTENT_ALBUM
from app.repository.db_clock import db_utcnow
from app.services import audit
from app.services.audience import segments
from app.services.broadcast.content.variants import VariantRefused, check_cli_pairs
from app.services.broadcast.jobs import control, creation, origin
from app.services.broadcast.jobs import purge as jobs_purge
from app.services.broadcast.jobs.draft import Draft
from app.services.broadcast.jobs.status import job_status
from app.services.broadcast.reporting import key_stats, variant_stats
from app.services.broadcast.schedule import releases
from app.services.broadcast.schedule.send_time import SendTimeError, parse_iso
from app.services.broadcast.sending import stars
from app.services.settings import load_settings
from app.services.telegram_factory import get_client

# Ids are BIGINT (SQLite INTEGER): anything larger cannot exist, and SQLite
# would raise OverflowError instead of answering "no such job".
MAX_ID = 2**63 - 1
JOB_ID = click.IntRange(min=1, max=MAX_ID)
TELEGRAM_ID = click.IntRange(min=-MAX_ID, max=MAX_ID)
DAYS = click.IntRange(min=1, max=MAX_DAYS)
# NOT_SENT: what a cancelled job left unsent (its PENDING is 0: nothing more will go out).
TABLE_COLUMNS = ("id", "status", "audience", "total", "sent", "failed", "skipped", "unknown", "pending",
                 "not_sent", "created_at", "send_at", "segments")

AT_HELP = ("Schedule it: an ISO 8601 time such as 2026-12-24T21:00+03:30; without an offset it is Tehran "
           "time. Cron starts it when due.")

broadcast_group = AppGroup("broadcast", help="Create, watch, drive and clean up broadcast jobs.")
broadcast_group.add_command(pump_command)
broadcast_group.add_command(runs_command)


def _existing_job(job_id: int):
    """Return the job or exit 1 naming the missing id."""
    job = control.get_job(job_id)
    if job is None:
        raise CommandError(f"no broadcast job {job_id}")
    return job


def _send_at(raw: str):
    """Parse --at into naive UTC, ahead of the database's clock, or exit 2 saying why in one line."""
    try:
        return parse_iso(raw, db_utcnow())
    except SendTimeError as exc:
        raise CommandError(f"--at: {exc.text('en').lstrip('❌ ')}", exit_code=2) from None


@broadcast_group.command("create")
@click.option("--audience", type=click.Choice(AUDIENCES), help="Who receives it (or --segment).")
@click.option("--segment", metavar="NAME", help="Send to a saved segment (`segments list`) instead of --audience.")
@click.option("--exclude-segment", "excludes", multiple=True, metavar="NAME",
              help="Leave out this segment's users (repeatable; with --audience or --segment).")
@click.option("--text", help="Message text (Telegram HTML, at most 4096 UTF-16 units of the text Telegram shows); "
                             "{first_name} greets each recipient by name (HTML-escaped; 'کاربر'/'there' when empty).")
@click.option("--copy-from", type=TELEGRAM_ID, metavar="CHAT_ID", help="Copy a stored message from this chat ...")
@click.option("--message-id", type=JOB_ID, metavar="ID", help="... with this message id.")
@click.option("--message-ids", metavar="ID,ID,...",
              help="... or these message ids, sent as one album with copyMessages (no button).")
@click.option("--variant", "variants", type=(str, str), multiple=True, metavar="LANG TEXT",
              help="A language variant (repeatable): users whose Telegram language is LANG (two letters; en-US "
                   "is en) get TEXT instead (HTML; with --copy-from, the caption that replaces a media message's, "
                   "which needs --copied-media: a copied text message keeps its text, so give it with --text).")
@click.option("--copied-media", is_flag=True,
              help="The --copy-from message is a photo, video, document or other media with a caption: "
                   "--variant texts replace that caption (refused without it).")
@click.option("--button-text", help="Text of an optional URL button.")
@click.option("--tap-button", "tap_text", help="Text of a button that tags whoever taps it (with --tap-tag).")
@click.option("--tap-tag", help="The tag the tap button adds.")
@click.option("--tap-answer", help="What a tap answers (at most 200 characters; default: a short thanks).")
@click.option("--button-url", help="http(s) URL of that button.")
@click.option("--key", "keys", multiple=True, metavar="SPEC", help=KEY_HELP)
@click.option("--created-by", type=TELEGRAM_ID, metavar="USER_ID", help="Telegram id recorded as the author.")
@click.option("--lang", "langs", type=click.Choice(LANGS), multiple=True,
              help="Only users whose Telegram language is this (repeatable; other = anything else or unknown).")
@click.option("--active-days", type=DAYS, metavar="N", help="Only users seen by the bot in the last N days.")
@click.option("--joined-days", type=DAYS, metavar="N", help="Only users who started the bot in the last N days.")
@click.option("--source", "sources", multiple=True, callback=lambda _c, _p, values: sources_option(values),
              help="Only users whose first /start payload (deep link source) is this (repeatable: any of them).")
@click.option("--silent", is_flag=True, help="Deliver without a notification sound (disable_notification).")
@click.option("--protect", is_flag=True, help="Forbid forwarding and saving (protect_content).")
@click.option("--urgent", is_flag=True, help="Send through quiet hours (quiet_hours_start/_end) instead of waiting.")
@click.option("--unsubscribe-button/--no-unsubscribe-button", "unsubscribe", default=None,
              help="An unsubscribe button under each copy, counted per broadcast (default: broadcast_optout_button; "
                   "never on albums).")
@click.option("--at", "at", metavar="TIME", help=AT_HELP)
@click.option("--expire-after", metavar="T", help="Delete each copy for everyone T after it was sent (6h, 90m; "
                                                  "at most 47h; with --every, each occurrence's). Cron runs it.")
@every_options
@ab_create.ab_options
def create(audience, segment, excludes, text, copy_from, message_id, message_ids, variants, copied_media, button_text,
           button_url, keys, tap_text, tap_tag, tap_answer, created_by, langs, active_days, joined_days, sources,
           silent, protect, urgent, unsubscribe, at, every, until, count, if_missed, expire_after, ab, ab_copy, ab_key,
           test_share, winner_after, winner_by) -> None:
    """Create and queue (or schedule, with --at; repeat, with --every) a broadcast; print the new id alone."""
    check_every(every, until, count, if_missed, at)
    params = click.get_current_context().params
    ab_create.check(params)  # --ab / --ab-copy: an A/B test, each one version
    # A test's draft holds its audience, buttons and options; its versions are the --ab / --ab-copy options.
    content = ({"type": "text", "text": "A/B"} if ab_create.is_test(params)
               else content_of(text, copy_from, message_id, message_ids, copied_media))
    try:
        checked = check_cli_pairs(variants, content)
    except VariantRefused as exc:
        raise CommandError(f"--variant: {exc}", exit_code=2) from None
    problem = button_problem(button_text, button_url)
    if (tap_text is None) != (tap_tag is None) or (tap_answer is not None and tap_text is None):
        problem = "give --tap-button and --tap-tag together (--tap-answer only with them)"
    if problem:
        raise CommandError(problem, exit_code=2)
    if audience in MEMBER_AUDIENCES and current_app.config.get("MAIN_CHANNEL_ID") is None:
        raise click.UsageError(f"--audience {audience} needs MAIN_CHANNEL_ID; without it only 'all' is known")
    target = Audience(audience or "all", tuple(langs), active_days, joined_days, sources)
    tap = {"text": tap_text, "tag": tap_tag, "answer": tap_answer} if tap_text else None
    after = expire_seconds(expire_after)  # set in the job's own insert: no job is ever queued without it
    draft = Draft(content=content, button_text=button_text, button_url=button_url and button_url.strip(),
                  variants=checked or None, silent=silent, protect=protect, urgent=urgent,
                  unsubscribe=unsubscribe, tap=tap, expire_after=after, keyboard=keyboard_of(keys)).with_target(target)
    draft = segment_draft(draft, audience, segment, excludes)
    if ab_create.is_test(params):
        return ab_create.create(draft, params)
    if every is not None:
        return create_series(draft, every, until, count, if_missed, created_by)
    send_at = _send_at(at) if at is not None else None
    if send_at is None:
        _check_stars(draft)  # a scheduled one is checked when it starts
    try:
        # lang: the pause reasons the engine writes for this job are read here, in English.
        job = creation.create_from_draft(draft, send_at, created_by=created_by, settings=load_settings(), lang="en",
                                         actor=audit.ACTOR_CLI)
    except creation.EmptyAudience as exc:
        raise CommandError(f"{exc}; nothing to send", exit_code=2) from None
    except creation.CancelledWhilePreparing as exc:
        raise CommandError(str(exc)) from None
    except SendTimeError as exc:
        raise CommandError(f"--at: {exc.text('en').lstrip('❌ ')}", exit_code=2) from None
    except ValueError as exc:
        raise CommandError(str(exc), exit_code=2) from None
    untracked.warn(job)
    click.echo(job.id)


def _check_stars(draft: Draft) -> None:
    """Refuse a paid broadcast sent now that the bot's Stars balance cannot cover, saying what to do (exit 1)."""
    settings = load_settings()
    if not settings["broadcast_paid_enabled"] or draft.content.get("type") == CONTENT_ALBUM:
        return
    recipients = creation.count_recipients(segments.of_draft(draft))
    refusal = stars.refusal_for(recipients, settings, get_client(settings), "en")
    if refusal:
        raise CommandError(f"paid broadcast not started: {refusal}")


@broadcast_group.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON array of status objects.")
@click.option("--limit", type=click.IntRange(1, 1000), default=20, show_default=True)
@click.option("--automated", is_flag=True,
              help="List the automated jobs (drip-chain steps, recurring occurrences) instead of the admins' own.")
def list_jobs(as_json: bool, limit: int, automated: bool) -> None:
    """List the newest jobs the admins made (as /jobs does); --automated: the chains' and recurring ones."""
    rows = [english_status(job_status(job).as_dict()) for job in origin.newest(limit, automated=automated)]
    for row in rows:  # "vip -staff": the segment sent to, less those left out
        row["segments"] = " ".join([row["segment"] or ""] + ["-" + n for n in row["exclude_segments"]]).strip()
    if as_json:
        echo_json(rows)
        return
    if not rows:
        click.echo("no automated jobs" if automated else "no broadcast jobs")
    else:
        click.echo(render_table([c.upper() for c in TABLE_COLUMNS], [[r.get(c) for c in TABLE_COLUMNS] for r in rows]))
    if not automated and origin.newest(1, automated=True):
        click.echo("automated jobs (drip-chain steps, recurring occurrences): broadcast list --automated")


@broadcast_group.command("status")
@click.argument("job_id", type=JOB_ID, metavar="ID")
def status_cmd(job_id: int) -> None:
    """Print one job's counters, rate and ETA as JSON (with language variants: per variant; a keyboard: per button)."""
    job = _existing_job(job_id)
    view = job_status(job, variants=variant_stats.counts(job), buttons=key_stats.of_job(job))
    echo_json(english_status(view.as_dict()))


def _transition(job_id: int, verb: str, action) -> None:
    """Run one guarded state change; exit 1 with the job's state when it is refused."""
    job = _existing_job(job_id)
    outcome = action(job_id)
    if not outcome:
        raise CommandError(f"job {job_id} is {job.status}; it cannot be {verb}")
    suffix = f" ({outcome})" if isinstance(outcome, str) else ""
    click.echo(f"job {job.id} {verb}{suffix}")


@broadcast_group.command("cancel")
@click.argument("job_id", type=JOB_ID, metavar="ID")
def cancel(job_id: int) -> None:
    """Cancel a job: in-flight sends finish, no new batch is claimed."""
    _transition(job_id, "cancelled", lambda i: control.cancel_job(i, actor=audit.ACTOR_CLI))


@broadcast_group.command("pause")
@click.argument("job_id", type=JOB_ID, metavar="ID")
@click.option("--reason", default="paused from the command line", show_default=True)
def pause(job_id: int, reason: str) -> None:
    """Pause a queued or running job."""
    _transition(job_id, "paused", lambda i: control.pause_job(i, reason=reason, actor=audit.ACTOR_CLI))


@broadcast_group.command("resume")
@click.argument("job_id", type=JOB_ID, metavar="ID")
def resume(job_id: int) -> None:
    """Resume a paused job (it runs now, or queues behind the running one)."""
    _transition(job_id, "resumed", lambda i: control.resume_job(i, actor=audit.ACTOR_CLI))


@broadcast_group.command("reschedule")
@click.argument("job_id", type=JOB_ID, metavar="ID")
@click.option("--at", "at", metavar="TIME", required=True, help=AT_HELP)
def reschedule(job_id: int, at: str) -> None:
    """Give a scheduled job a new send time (until it starts)."""
    send_at = _send_at(at)
    _transition(job_id, "rescheduled", lambda i: releases.reschedule(i, send_at, actor=audit.ACTOR_CLI))


@broadcast_group.command("send-now")
@click.argument("job_id", type=JOB_ID, metavar="ID")
def send_now(job_id: int) -> None:
    """Queue a scheduled job at once (the answer to a missed schedule); cron or a pump sends it."""
    _transition(job_id, "queued", lambda i: releases.send_now(i, actor=audit.ACTOR_CLI))


@broadcast_group.command("purge")
@click.option("--older-than", "days", type=click.IntRange(min=0, max=100_000), required=True, metavar="DAYS",
              help="Finished at least this many days ago (items younger than 48 hours always stay).")
def purge(days: int) -> None:
    """Delete the items of finished jobs; job rows and counters stay."""
    result = jobs_purge.purge_items(days)
    cutoff = result["before"].isoformat(sep=" ", timespec="seconds")
    click.echo(f"removed {result['items']} items of {len(result['jobs'])} jobs finished before {cutoff} UTC "
               f"(items younger than 48 hours are always kept; job rows and counters stay)")
    for job_id, n in result["jobs"].items():
        click.echo(f"  job {job_id}: {n} items")
