"""`broadcast create --ab TEXT --ab TEXT [--ab ...] --test-share P --winner-after T`: an A/B test's options.

A version is a text (--ab) or a media message copied from --copy-from's chat
(--ab-copy); versions are lettered in order, every --ab first, then every
--ab-copy. --ab-key LETTER SPEC gives a version buttons of its own (SPEC as
--key's); the others show the shared --button-*/--key buttons. --winner-by
ranks the versions by who clicked one button instead of by CTR.
"""
from __future__ import annotations

import click

from app.cli import untracked
from app.cli.common import CommandError
from app.services import audit
from app.services.broadcast.ab import split
from app.services.broadcast.ab.specs import ALBUM
from app.services.broadcast.ab.versions import LETTERS, parse_wait
from app.services.broadcast.content import keyboard
from app.services.broadcast.jobs import creation
from app.services.broadcast.jobs.draft import Draft
from app.services.settings import load_settings

# The options that make a test, and those that only go with one.
TEST_OPTIONS = ("ab", "ab_copy")
WITH_TEST = (("--test-share", "test_share"), ("--winner-after", "winner_after"), ("--ab-key", "ab_key"),
             ("--winner-by", "winner_by"))


def ab_options(command):
    """Add --ab, --ab-copy, --ab-key, --test-share, --winner-after and --winner-by to `broadcast create`."""
    options = [
        click.option("--ab", "ab", multiple=True, metavar="TEXT",
                     help="An A/B test: one version's text (2 to 5 versions with --ab-copy; instead of --text). "
                          "Needs a tracked link button (--button-text, --button-url or a url --key; PUBLIC_URL): "
                          "the winner is the version with the best CTR (or see --winner-by)."),
        click.option("--ab-copy", "ab_copy", type=click.IntRange(1), multiple=True, metavar="MESSAGE_ID",
                     help="A version that is a photo, video or other media message (with its caption) copied from "
                          "--copy-from's chat; lettered after every --ab. Never an album (no button goes under one)."),
        click.option("--ab-key", "ab_key", type=(str, str), multiple=True, metavar="LETTER SPEC",
                     help="A button of version LETTER's own keyboard (SPEC as --key's, repeatable); that version "
                          "shows only its own buttons, the others the shared --button-*/--key ones."),
        click.option("--test-share", type=int, default=None, metavar="PERCENT",
                     help="With --ab: the share of the audience (1-99 %%) split evenly at random among the "
                          "versions [default: 10]; the rest gets the winner."),
        click.option("--winner-after", default=None, metavar="T",
                     help="With --ab: how long after the test finishes sending cron sends the winner to the rest "
                          "(10m to 7d, e.g. 2h) [default: 2h]. `broadcast ab-pick` sends one earlier."),
        click.option("--winner-by", default=None, metavar="BUTTON",
                     help="With --ab: pick the winner by the share of recipients who clicked this link button "
                          "(its position in reading order, from 1, or its text; the same place in every version) "
                          "instead of by CTR."),
    ]
    for option in reversed(options):
        command = option(command)
    return command


def is_test(params: dict) -> bool:
    """Tell whether the options make an A/B test (--ab or --ab-copy)."""
    return any(params.get(name) for name in TEST_OPTIONS)


def check(params: dict) -> None:
    """Refuse what cannot go with a test (or a test's options without one), in one line."""
    if not is_test(params):
        given = [name for name, key in WITH_TEST if params.get(key) not in (None, ())]
        if given:
            raise click.UsageError(f"{given[0]} goes with --ab")
        return
    if params.get("message_ids"):
        raise click.UsageError(f"--message-ids cannot be given with --ab: {ALBUM}")
    clashes = [name for name, key in (("--text", "text"), ("--message-id", "message_id"), ("--variant", "variants"),
                                      ("--every", "every"), ("--at", "at"), ("--expire-after", "expire_after"),
                                      ("--tap-button", "tap_text"), ("--copied-media", "copied_media"))
               if params.get(key)]
    if clashes:
        raise click.UsageError(f"{clashes[0]} cannot be given with --ab: each --ab is one version's text, "
                               f"each --ab-copy one version's message")
    if params.get("copy_from") is not None and not params.get("ab_copy"):
        raise click.UsageError("--copy-from goes with --ab-copy in an A/B test: each --ab is one version's text")
    if params.get("ab_copy") and params.get("copy_from") is None:
        raise click.UsageError("--ab-copy needs --copy-from CHAT_ID: the chat that holds its message")


def versions(params: dict) -> list:
    """Return the versions the options give, lettered in order (texts, then copies), each with its own buttons."""
    given: list[dict] = [{"text": text} for text in params["ab"]] + [{"copy": m} for m in params["ab_copy"]]
    own: dict[str, list[str]] = {}
    for letter, spec in params["ab_key"]:
        letter = letter.strip().upper()
        if letter not in LETTERS[:len(given)]:
            raise CommandError(f"--ab-key {letter}: the test's versions are {', '.join(LETTERS[:len(given)])}",
                               exit_code=2)
        own.setdefault(letter, []).append(spec)
    for letter, specs in own.items():
        try:
            given[LETTERS.index(letter)]["keyboard"] = keyboard.parse_cli(specs)
        except keyboard.KeyboardError as exc:
            raise CommandError(f"--ab-key {letter}: {exc}", exit_code=2) from None
    return given


def create(draft: Draft, params: dict) -> None:
    """Create and queue the A/B test the draft and options describe; print its id, or exit 2 saying why."""
    try:
        wait = parse_wait(params["winner_after"] or "2h")
        job = split.create_from_draft(draft, versions(params),
                                      10 if params["test_share"] is None else params["test_share"], wait,
                                      created_by=params["created_by"], settings=load_settings(), lang="en",
                                      actor=audit.ACTOR_CLI, copy_from=params.get("copy_from"),
                                      goal=params.get("winner_by"))
    except creation.EmptyAudience as exc:
        raise CommandError(f"{exc}; nothing to send", exit_code=2) from None
    except creation.CancelledWhilePreparing as exc:
        raise CommandError(str(exc)) from None
    except ValueError as exc:
        raise CommandError(str(exc), exit_code=2) from None
    untracked.warn(job)
    click.echo(job.id)
