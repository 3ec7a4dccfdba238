"""The settings menu: list every setting as a button, ask for a value, validate and store it."""
from __future__ import annotations

from app.bot import keyboards
from app.bot.buttons import button
from app.bot.context import BotContext
from app.services import admins, audit
from app.services.settings import set_setting
from app.settings_schema import DEFS, SettingError, format_range, format_value

# The key travels in the draft: "settings:<key>" would not fit admin_states.step (32 chars).
STEP = "settings"


def on_settings(ctx: BotContext) -> None:
    """Show every setting with its value as a button."""
    ctx.reply("settings_menu", keyboards.settings_menu(ctx.settings))


@button("s.edit")
def on_edit(ctx: BotContext, key: str) -> None:
    """Ask for a new value of key."""
    admins.set_state(ctx.user_id, STEP, {"key": key})
    d = DEFS[key]
    ctx.answer()
    ctx.reply("settings_ask", key=key, value=format_value(ctx.settings[key]), range=format_range(d), help=d.help)


def on_input(ctx: BotContext, step: str, draft: dict) -> None:
    """Validate and store the value (same rules as the CLI); stay on the step when refused."""
    key = draft.get("key")
    if key not in DEFS:
        admins.clear_state(ctx.user_id)
        ctx.reply("settings_unknown")
        return
    text = ctx.update.message.text
    if text is None:
        ctx.reply("settings_invalid", error=ctx.text("settings_need_text"))
        return
    admins.clear_state(ctx.user_id)
    try:
        # Commits the cleared state, the value and the update id together.
        value = set_setting(key, text, actor=audit.admin_actor(ctx.user_id))
    except SettingError as exc:
        admins.set_state(ctx.user_id, STEP, draft)
        ctx.reply("settings_invalid", error=str(exc))
        return
    values = {**ctx.settings, key: value}
    ctx.reply("settings_saved", keyboards.settings_menu(values), key=key, value=format_value(value))
