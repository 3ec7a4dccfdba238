"""An A/B test on the pre-send screen: its versions side by side, the share in recipients, the wait, the winner rule."""
from __future__ import annotations

from app.bot import ab_extras
from app.bot.ab_step import wait_text
from app.bot.context import BotContext
from app.services.broadcast.ab.versions import LETTERS, sample_size
from app.services.broadcast.content import keyboard
from app.services.broadcast.content.telegram_html import parse_html
from app.services.broadcast.jobs.draft import Draft

FIRST_WORDS = 6  # each version is named by its first words: enough to tell them apart on a phone


def sent_now(draft: Draft, n: int) -> int:
    """Return how many recipients the Confirm sends to now: the test's share of n for a test, else n."""
    return sample_size(n, draft.ab["share"]) if draft.ab else n


def enough(draft: Draft, n: int) -> bool:
    """Tell whether every version would reach at least one recipient (always, for a broadcast that is no test)."""
    return not draft.ab or sent_now(draft, n) >= len(draft.ab["versions"])


def per_version(size: int, k: int) -> list[int]:
    """Return each version's recipients of a test of size (lettered round-robin: the first ones get the remainder)."""
    return [size // k + (1 if i < size % k else 0) for i in range(k)]


def first_words(html: str) -> str:
    """Return a version's first words as plain text, with "…" when there is more."""
    words = parse_html(html)[0].split()
    return " ".join(words[:FIRST_WORDS]) + (" …" if len(words) > FIRST_WORDS else "")


def lines(ctx: BotContext, draft: Draft, n: int) -> str:
    """Render the test's lines: its share in recipients, each version's first words, the wait and the winner rule."""
    ab = draft.ab
    versions, size = ab["versions"], sent_now(draft, n)
    text = ctx.text("ab_presend_title", share=ab["share"], count=n, size=size, k=len(versions))
    keys = ab.get("keys", {})
    for letter, version, got in zip(LETTERS, versions, per_version(size, len(versions)), strict=False):
        words = (ctx.text("ab_presend_media", words=first_words(version["caption"])) if isinstance(version, dict)
                 else first_words(version))
        text += ctx.text("ab_presend_row", v=letter, n=got, words=words)
        if letter in keys:
            text += ctx.text("ab_presend_keys", labels=" · ".join(b["text"] for _, b in keyboard.buttons(keys[letter])))
    text += ab_extras.rule_line(ctx, draft)
    text += ctx.text("ab_presend_winner", wait=wait_text(ab["wait"], ctx.lang), rest=n - size)
    if not enough(draft, n):
        text += ctx.text("ab_presend_few", share=ab["share"], count=n, size=size, k=len(versions))
    return text
