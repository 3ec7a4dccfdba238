"""`broadcast create`'s input read from its options: the content, an album's ids, sources, --key, --expire-after."""
from __future__ import annotations

import click

from app.cli.common import CommandError
from app.cli.validate import text_problem
from app.models import names
from app.services.broadcast.content import keyboard
from app.services.broadcast.content.variants import MEDIA
from app.services.broadcast.jobs.content_columns import ALBUM_MAX_PARTS
from app.services.broadcast.jobs.expiry_time import parse_after

# Ids are BIGINT (SQLite INTEGER): anything larger cannot exist.
MAX_ID = 2**63 - 1
# A Telegram album (media group) has 2 to 10 parts; one message is a plain copy.
ALBUM_MIN_PARTS = 2
KEY_HELP = ("A keyboard button, in order (repeatable): url:TEXT|URL (tracked with PUBLIC_URL), copy:TEXT|TEXT TO COPY, "
            "tap:TEXT|TAG[|ANSWER] (tags whoever taps it), menu:TEXT|ANSWER (answers inside the bot); --- starts a "
            "new row (at most 8 buttons a row, 100 in all); note:TEXT is the message that carries the keyboard "
            "under an album (default 👇). --button-text/--button-url and --tap-* become its first rows.")


def content_of(text, copy_from, message_id, message_ids, copied_media: bool = False) -> dict:
    """Build the engine's content dict from the options, or raise a usage error."""
    if (text is None) == (copy_from is None):
        raise click.UsageError("give exactly one of --text or --copy-from")
    if copied_media and (text is not None or message_ids is not None):
        raise click.UsageError("--copied-media goes with --copy-from and --message-id (one media message)")
    if text is not None:
        if message_id is not None or message_ids is not None:
            option = "--message-id" if message_id is not None else "--message-ids"
            raise click.UsageError(f"{option} goes with --copy-from, not --text")
        problem = text_problem(text)
        if problem:
            raise CommandError(f"--text: {problem}", exit_code=2)
        return {"type": "text", "text": text, "parse_mode": "HTML"}
    if (message_id is None) == (message_ids is None):
        raise click.UsageError("--copy-from needs --message-id (one message) or --message-ids (an album)")
    if message_ids is not None:
        return {"type": "album", "from_chat_id": copy_from, "message_ids": album_ids(message_ids)}
    content = {"type": "copy", "from_chat_id": copy_from, "message_id": message_id}
    return {**content, MEDIA: True} if copied_media else content


def album_ids(value: str) -> list[int]:
    """Parse "10,11,12" into 2-10 distinct positive ids (an album's parts), ascending, or raise a usage error."""
    try:
        ids = sorted({int(part) for part in value.split(",")})
    except ValueError:
        raise click.BadParameter("a comma-separated list of message ids, e.g. 10,11,12",
                                 param_hint="--message-ids") from None
    if not ALBUM_MIN_PARTS <= len(ids) <= ALBUM_MAX_PARTS:
        raise CommandError(f"--message-ids: a Telegram album has {ALBUM_MIN_PARTS} to {ALBUM_MAX_PARTS} "
                           f"parts, got {len(ids)} distinct ids (one message goes with --message-id)", exit_code=2)
    if not 1 <= ids[0] or ids[-1] > MAX_ID:
        raise click.BadParameter("positive message ids", param_hint="--message-ids")
    return ids


def sources_option(values: tuple[str, ...]) -> tuple[str, ...]:
    """Check each --source as Telegram checks a /start payload, or raise a usage error."""
    try:
        return tuple(names.source(value) for value in values)
    except names.BadName as exc:
        raise click.BadParameter(str(exc), param_hint="--source") from None


def keyboard_of(keys: tuple[str, ...]) -> dict | None:
    """Return the keyboard the --key options write, or exit 2 naming the row and button that is refused."""
    try:
        return keyboard.parse_cli(keys)
    except keyboard.KeyboardError as exc:
        raise CommandError(f"--key: {exc}", exit_code=2) from None


def expire_seconds(raw: str | None) -> int | None:
    """Parse --expire-after (at most 47h) into seconds before the job exists, or exit 2 saying why."""
    try:
        return int(parse_after(raw).total_seconds()) if raw is not None else None
    except ValueError as exc:
        raise CommandError(f"--expire-after: {exc}", exit_code=2) from None
