"""The wizard's steps and button bindings, shared by the wizard and its pre-send screen."""
from __future__ import annotations

import logging

from app.bot.context import BotContext
from app.services import admins
from app.services.broadcast.jobs.draft import Draft

log = logging.getLogger("app.bot.broadcast_wizard")
STEP_MESSAGE, STEP_BUTTON = "wiz:message", "wiz:button"
STEP_AUDIENCE, STEP_PREVIEW = "wiz:audience", "wiz:preview"
DRAFT_ID, PREVIEW_ID = "draft_id", "preview_id"
# Confirm carries an id of its own, stored only with a screen that shows a Confirm: the ids of the
# screen's toggles, schedule and abort (visible under a screen that refused) can never confirm.
CONFIRM_ID = "confirm_id"


def current_draft(ctx: BotContext, steps: tuple[str, ...], key: str, token: str) -> dict | None:
    """Return the draft a button belongs to, or answer why the press is refused and return None."""
    state = admins.get_state(ctx.user_id)
    if state is None:
        ctx.answer("wiz_expired")
        return None
    step, draft = state
    if draft.get(key) != token:
        # A button under an older draft or preview: never let it act on what is current now.
        log.info("wizard button of an old %s refused", key)
        ctx.answer("wiz_stale", alert=True)
        return None
    if step not in steps:
        ctx.answer("wiz_expired")
        return None
    return draft


def current_wizard_draft(ctx: BotContext, steps: tuple[str, ...], key: str, token: str) -> Draft | None:
    """Return the wizard's draft a button belongs to (as current_draft), or None once the press was answered."""
    state = current_draft(ctx, steps, key, token)
    return None if state is None else Draft.from_json(state)
