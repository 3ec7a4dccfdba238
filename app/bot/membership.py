"""my_chat_member (the user blocked or restarted the bot) and chat_member of the main channel."""
from __future__ import annotations

import logging

from telegram.constants import ChatMemberStatus

from app.bot.context import BotContext
from app.bot.profile import profile_of
from app.services import users

log = logging.getLogger(__name__)


def on_my_chat_member(ctx: BotContext) -> None:
    """Set is_blocked when the user blocks the bot (kicked), clear it when they restart it."""
    change = ctx.update.my_chat_member
    status = change.new_chat_member.status
    if status == ChatMemberStatus.BANNED:  # "kicked"
        users.set_blocked(profile_of(change.from_user), True)
    elif status == ChatMemberStatus.MEMBER:
        users.set_blocked(profile_of(change.from_user), False)


def on_chat_member(ctx: BotContext) -> None:
    """Keep main_channel_status of a known user current as they join or leave the channel."""
    member = ctx.update.chat_member.new_chat_member
    status = users.channel_status(member.status, getattr(member, "is_member", None))
    if status is None or member.user.is_bot:
        return
    if not users.record_channel_status(member.user.id, status):
        log.debug("chat_member for user %s who never started the bot; not stored", member.user.id)
