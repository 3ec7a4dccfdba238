"""The admin's /tag TAG id id … and /untag TAG id …: tag a few users from the chat."""
from __future__ import annotations

from app.bot.context import BotContext
from app.models import names
from app.services.audience import id_lists, tags

# More ids belong in a CSV and `flask users tag add --csv`: a message is for a handful.
MAX_IDS = 200


def on_tag(ctx: BotContext) -> None:
    """Add the tag to the listed users (admins only; the router checked)."""
    _run(ctx, add=True)


def on_untag(ctx: BotContext) -> None:
    """Take the tag off the listed users."""
    _run(ctx, add=False)


def _run(ctx: BotContext, add: bool) -> None:
    """Parse "/tag TAG id id …", refuse bad input in one line changing nothing, else apply and report."""
    words = (ctx.update.message.text or "").split()[1:]
    if len(words) < 2:
        ctx.reply("tag_usage")
        return
    try:
        tag = names.tag(words[0])
    except names.BadName as exc:
        ctx.reply("tag_bad", error=str(exc))
        return
    ids = []
    for word in words[1:]:
        value = id_lists.user_id(word.strip(","))
        if value is None:
            ctx.reply("tag_bad_id", value=word[:40])
            return
        ids.append(value)
    if len(ids) > MAX_IDS:
        ctx.reply("tag_too_many", limit=MAX_IDS)
        return
    if add:
        result = tags.add_tag(tag, ids, tags.ORIGIN_ADMIN, commit=False)
    else:
        result = tags.remove_tag(tag, ids, commit=False)
    text = ctx.text("tag_added" if add else "tag_removed", tag=tag, changed=result.changed,
                    unchanged=result.unchanged)
    if result.unknown:
        text += "\n" + ctx.text("tag_unknown_ids", count=result.unknown,
                                 first=", ".join(map(str, result.unknown_first)))
    ctx.send(text)
