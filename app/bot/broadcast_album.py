"""Albums in the broadcast wizard: gather the parts, answer once per album, skip the button step.

Telegram sends an album as one update per part, sharing a media_group_id,
within about a second, in any order and possibly to different processes.
Every part is stored (app.services.albums) whatever the step. The first part
handled answers for the whole album: on the message step it moves the wizard
straight to the audience step (albums carry no button) and says so; on any
other step it says once that the album was not used. The other parts stay
silent, unless they come after the preview: then the preview and its screen
are sent again with every part, under a new preview id. The draft's ids are
fixed by the last preview, so the broadcast sends exactly what it showed.
"""
from __future__ import annotations

from dataclasses import replace

from app.bot import broadcast_wizard as wizard
from app.bot import keyboards, presend
from app.bot.ab_step import STEP_AB_VERSION
from app.bot.callback_data import new_token
from app.bot.context import BotContext
from app.services import admins, albums
from app.services.broadcast.jobs import creation
from app.services.broadcast.jobs.draft import Draft

MAX_GROUP_ID = 64  # album_parts.media_group_id is VARCHAR(64)


def is_album_part(ctx: BotContext) -> bool:
    """Tell whether the update's message is one part of an album."""
    group = ctx.update.message.media_group_id if ctx.update.message is not None else None
    # Telegram's ids are short digit strings; a forged one of another shape is handled as a plain message.
    return isinstance(group, str) and 0 < len(group) <= MAX_GROUP_ID


def on_stranger_part(ctx: BotContext) -> None:
    """Answer a non-admin's album once, not once per part."""
    message = ctx.update.message
    if albums.first_part_of_strangers_album(ctx.user_id, message.media_group_id, message.chat.id):
        ctx.reply("unknown_command")


def on_part(ctx: BotContext, state: tuple[str, dict] | None) -> None:
    """Store one part of an admin's album; the first part handled answers for the album."""
    message = ctx.update.message
    if not albums.add_part(ctx.user_id, message.media_group_id, message.message_id, message.chat.id):
        on_late_part(ctx, message)  # another part of this album already answered
        return
    step, current = state or (None, {})
    if step != wizard.STEP_MESSAGE:
        # An A/B version: an album is never one (no button goes under it, so its clicks could not be counted).
        ctx.reply("ab_album" if step == STEP_AB_VERSION else "wiz_album_not_now")
        return
    content = {"type": "album", "from_chat_id": message.chat.id, "media_group_id": message.media_group_id}
    draft_id = Draft.from_json(current).draft_id or new_token()
    admins.set_state(ctx.user_id, wizard.STEP_AUDIENCE, Draft(draft_id=draft_id, content=content).to_json())
    ctx.send(ctx.text("wiz_album_taken") + "\n\n" + ctx.text("wiz_choose_audience"),
             keyboards.audience(ctx.lang, creation.audience_counts(), draft_id))


def on_late_part(ctx: BotContext, message) -> None:
    """Re-render the preview when a part of its album arrives after it (Telegram spreads parts over 1-3 s).

    The state row is locked before the parts are read, as the audience tap
    locks it (wizard.with_parts): whichever commits first, the other sees its
    work, so no part is ever dropped. The new screen has a new preview id,
    so a Confirm under the screen without this part is refused.
    """
    state = admins.get_state(ctx.user_id, lock=True)
    if state is None or state[0] != wizard.STEP_PREVIEW:
        return  # still on the audience step (the tap gathers every part), or the album was used
    draft = Draft.from_json(state[1])
    content = draft.content or {}
    if content.get("media_group_id") != message.media_group_id or message.message_id in content["message_ids"]:
        return  # a redelivered part, or one of another album
    content = wizard.with_parts(ctx, content)
    draft = replace(draft.without_preview(), content=content)
    ctx.reply("wiz_album_late", n=len(content["message_ids"]))
    wizard.to_preview(ctx, draft, presend.count(draft))
