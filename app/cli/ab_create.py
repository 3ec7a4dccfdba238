"""`broadcast create --ab TEXT --ab TEXT [--ab ...] --test-share P --winner-after T`: an A/B test's options."""
from __future__ import annotations

import click

from app.cli.common import CommandError
from app.services import audit
from app.services.audience import segments
from app.services.broadcast.ab import split
from app.services.broadcast.ab.versions import parse_wait
from app.services.broadcast.jobs import creation
from app.services.broadcast.jobs.draft import Draft
from app.services.settings import load_settings


def ab_options(command):
    """Add --ab, --test-share and --winner-after to `broadcast create`."""
    options = [
        click.option("--ab", "ab", multiple=True, metavar="TEXT",
                     help="An A/B test: one version's text (repeat 2 to 5 times; instead of --text). Needs a "
                          "tracked link button (--button-text, --button-url, PUBLIC_URL): the winner is the "
                          "version with the best CTR."),
        click.option("--test-share", type=int, default=None, metavar="PERCENT",
                     help="With --ab: the share of the audience (1-99 %%) split evenly at random among the "
                          "versions [default: 10]; the rest gets the winner."),
        click.option("--winner-after", default=None, metavar="T",
                     help="With --ab: how long after the test finishes sending cron sends the winner to the rest "
                          "(10m to 7d, e.g. 2h) [default: 2h]. `broadcast ab-pick` sends one earlier."),
    ]
    for option in reversed(options):
        command = option(command)
    return command


def check(params: dict) -> None:
    """Refuse what cannot go with --ab (or --test-share / --winner-after without it), in one line."""
    if not params["ab"]:
        if params["test_share"] is not None or params["winner_after"] is not None:
            raise click.UsageError("--test-share and --winner-after go with --ab")
        return
    clashes = [name for name, key in (("--text", "text"), ("--copy-from", "copy_from"), ("--variant", "variants"),
                                      ("--every", "every"), ("--at", "at"), ("--expire-after", "expire_after"),
                                      ("--tap-button", "tap_text")) if params.get(key)]
    if clashes:
        raise click.UsageError(f"{clashes[0]} cannot be given with --ab: each --ab is one version's text")


def create(draft: Draft, params: dict) -> None:
    """Create and queue the A/B test the draft and options describe; print its id, or exit 2 saying why."""
    try:
        wait = parse_wait(params["winner_after"] or "2h")
        job = split.create_test(audience=segments.of_draft(draft), texts=list(params["ab"]),
                                share=10 if params["test_share"] is None else params["test_share"], wait=wait,
                                button_text=draft.button_text, button_url=draft.button_url,
                                created_by=params["created_by"], settings=load_settings(), lang="en",
                                actor=audit.ACTOR_CLI, silent=draft.silent, protect=draft.protect,
                                urgent=draft.urgent, optout_button=draft.unsubscribe, kb=draft.keyboard)
    except creation.EmptyAudience as exc:
        raise CommandError(f"{exc}; nothing to send", exit_code=2) from None
    except creation.CancelledWhilePreparing as exc:
        raise CommandError(str(exc)) from None
    except ValueError as exc:
        raise CommandError(str(exc), exit_code=2) from None
    click.echo(job.id)
