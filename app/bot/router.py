"""Routing table: which handler module answers which kind of update."""
from __future__ import annotations

import logging
from collections.abc import Callable

from telegram import Update
from telegram.constants import ChatType

from app.bot import (
    ab_screen,
    admin_menu,
    admin_settings,
    broadcast_album,
    broadcast_controls,
    broadcast_wizard,
    chains_screen,
    expiry_screen,
    help_screen,
    history,
    ledger,
    membership,
    pin_screen,
    presend,
    recurring,
    results_chart,
    retry_screen,
    schedule_wizard,
    segment_step,
    start,
    subscription,
    tagging,
    tap_button,
    unsend_edit,
    variant_step,
)
from app.bot.buttons import handled
from app.bot.callback_data import parse
from app.bot.context import BotContext
from app.services import admins
from app.texts import all_variants

log = logging.getLogger(__name__)
# A refused callback's data is logged cut to this many characters: any real one
# (at most 64 bytes) whole, a forged flood of it not.
LOGGED_DATA_CHARS = 80
Handler = Callable[[BotContext], None]

# Commands anyone may send; the rest are admin commands.
PUBLIC_COMMANDS = frozenset({"start", "help", "stop", "subscribe"})
COMMANDS: dict[str, Handler] = {
    "start": start.on_start,
    "help": help_screen.on_help,
    "stop": subscription.on_stop,
    "subscribe": subscription.on_subscribe,
    "broadcast": broadcast_wizard.on_broadcast,
    "settings": admin_settings.on_settings,
    "cancel": admin_menu.on_cancel,
    "stats": history.on_stats,
    "jobs": history.on_jobs,
    "scheduled": schedule_wizard.on_list,
    "recurring": recurring.on_list,
    "chains": chains_screen.on_list,
    "tag": tagging.on_tag,
    "untag": tagging.on_untag,
}
# Reply-keyboard buttons, recognised in every language.
MENU_BUTTONS: dict[str, Handler] = {
    "menu_broadcast": broadcast_wizard.on_broadcast,
    "menu_settings": admin_settings.on_settings,
    "menu_jobs": history.on_jobs,
}
# Every callback but PUBLIC_CALLBACKS is an admin action; the router checks that before any of these runs.
# Each button is declared in app.bot.callback_data; these modules attach their handlers (@button) on import,
# and handled() refuses to start with a declared button no handler took.
BUTTON_MODULES = (ab_screen, admin_settings, broadcast_controls, broadcast_wizard, chains_screen, expiry_screen,
                  history, ledger, pin_screen, presend, recurring, results_chart, retry_screen, schedule_wizard,
                  segment_step, subscription, tap_button, unsend_edit, variant_step)
BUTTONS = handled()
# Buttons anyone may press: the opt-out under a copy and its "subscribe again", a broadcast's tap and keyboard buttons.
PUBLIC_CALLBACKS = frozenset({"unsubscribe", "optout", "optout_job", "optin", "tap", "key_press"})
# Wizard buttons carry their draft's (or preview's) token: handler(ctx, token, arg).
DRAFT_CALLBACKS: dict[str, Callable[[BotContext, str, object], None]] = {
    spec.action: spec.handler for spec in BUTTONS.values() if spec.bound}
CALLBACKS: dict[str, Callable[[BotContext, object], None]] = {
    spec.action: spec.handler for spec in BUTTONS.values() if not spec.bound}
# An admin's free-form message goes to the conversation their state names.
STEP_INPUT: dict[str, Callable[[BotContext, str, dict], None]] = {
    "wiz": broadcast_wizard.on_input,
    "settings": admin_settings.on_input,
    "sched": schedule_wizard.on_input,
    "act": unsend_edit.on_input,
    "retry": retry_screen.on_input,
}


def select(update: Update, main_channel_id: int | None) -> Handler | None:
    """Pick the handler for an update without touching the database; None means ignore it.

    Telegram never omits a chat or sender, but a forged or truncated body may:
    such updates are ignored here rather than failing inside a handler. So is
    a message or press in a private chat that is not the sender's own (its id
    is the user's id): replies go to the update's chat, and an admin's answer
    (a job view, a wizard) must never land in someone else's chat.
    """
    if update.message is not None:
        msg = update.message
        if msg.chat is None or msg.from_user is None:
            return None
        return on_message if _own_private_chat(msg.chat, msg.from_user) and not msg.from_user.is_bot else None
    if update.callback_query is not None:
        query = update.callback_query
        if query.from_user is None or (query.message is not None and query.message.chat is None):
            return None
        in_private = query.message is None or _own_private_chat(query.message.chat, query.from_user)
        return on_callback if in_private and not query.from_user.is_bot else None
    if update.my_chat_member is not None:
        change = update.my_chat_member
        if not _complete(change):
            return None
        return membership.on_my_chat_member if change.chat.type == ChatType.PRIVATE else None
    if update.chat_member is not None:
        change = update.chat_member
        if not _complete(change):
            return None
        is_main = main_channel_id is not None and change.chat.id == main_channel_id
        return membership.on_chat_member if is_main else None
    return None


def _own_private_chat(chat, sender) -> bool:
    """Tell whether chat is the sender's private chat with the bot (forged ones carry another id)."""
    own = chat.type == ChatType.PRIVATE and chat.id == sender.id
    if chat.type == ChatType.PRIVATE and not own:
        log.warning("update ignored: user %s wrote in private chat %s, not their own", sender.id, chat.id)
    return own


def _complete(change) -> bool:
    """Tell whether a ChatMemberUpdated carries the parts the handlers read."""
    return (change.chat is not None and change.from_user is not None
            and change.new_chat_member is not None and change.new_chat_member.user is not None)


def command_of(text: str | None) -> str | None:
    """Return "start" for "/start", "/start@my_bot" or "/start payload"; None otherwise."""
    if not text or not text.startswith("/"):
        return None
    word = text.split(maxsplit=1)[0][1:]
    return word.split("@", 1)[0].lower() or None


def writes_last_seen(update: Update) -> bool:
    """Tell whether the update's handler writes its sender's last_seen_at itself (/start's upsert)."""
    message = update.message
    return message is not None and command_of(message.text) == "start"


def menu_button_of(text: str | None) -> str | None:
    """Return the text key of the admin-menu button whose label text is, in any language."""
    if not text:
        return None
    return next((key for key in MENU_BUTTONS if text.strip() in all_variants(key)), None)


def on_message(ctx: BotContext) -> None:
    """Route a private message: command, menu button, wizard input, or a hint."""
    text = ctx.update.message.text
    command = command_of(text)
    if command in COMMANDS:
        if command in PUBLIC_COMMANDS or admin_menu.require_admin(ctx):
            COMMANDS[command](ctx)
        return
    button = menu_button_of(text)
    if button is not None:
        if admin_menu.require_admin(ctx):
            MENU_BUTTONS[button](ctx)
        return
    state = admins.get_state(ctx.user_id) if ctx.is_admin() else None
    if broadcast_album.is_album_part(ctx):
        # One answer per album, whatever the step or sender: never one complaint per part.
        if ctx.is_admin():
            broadcast_album.on_part(ctx, state)
        else:
            broadcast_album.on_stranger_part(ctx)
        return
    conversation = state[0].split(":", 1)[0] if state else None
    if conversation in STEP_INPUT:
        STEP_INPUT[conversation](ctx, *state)
        return
    ctx.reply("unknown_command")


def on_callback(ctx: BotContext) -> None:
    """Route a button press after checking admin rights (but for public buttons); stale or forged data is refused."""
    parsed = parse(ctx.update.callback_query.data)
    if parsed is not None and parsed.action in PUBLIC_CALLBACKS:
        CALLBACKS[parsed.action](ctx, parsed.arg)
        return
    if not admin_menu.require_admin(ctx):
        return
    if parsed is None:
        log.info("callback data refused: %r", (ctx.update.callback_query.data or "")[:LOGGED_DATA_CHARS])
        ctx.answer("wiz_expired")
        return
    if parsed.action in DRAFT_CALLBACKS:
        DRAFT_CALLBACKS[parsed.action](ctx, parsed.token, parsed.arg)
    else:
        CALLBACKS[parsed.action](ctx, parsed.arg)
