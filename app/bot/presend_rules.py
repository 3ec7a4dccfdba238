"""The pre-send screen's sending rules: urgent, unsubscribe-button and auto-expiry toggles, and what each will do."""
from __future__ import annotations

from dataclasses import replace

from app.bot import presend_expiry
from app.bot.callback_data import build
from app.models.broadcast import CONTENT_ALBUM
from app.repository.db_clock import db_utcnow
from app.services.broadcast.jobs.draft import Draft
from app.services.broadcast.schedule import quiet_hours
from app.texts import t

URGENT, UNSUB = "urgent", "unsub"
TOGGLES = (URGENT, UNSUB) + presend_expiry.TOGGLES


def resolve(draft: Draft, settings: dict) -> Draft:
    """Return the draft with its unsubscribe button decided: the setting's default until toggled; never on an album."""
    if draft.content_type == CONTENT_ALBUM:
        return replace(draft, unsubscribe=False)
    if draft.ab and draft.expire_after is not None:
        draft = replace(draft, expire_after=None)  # a test's copies never expire (`--expire-after` with `--ab`)
    if draft.unsubscribe is None:
        return replace(draft, unsubscribe=bool(settings["broadcast_optout_button"]))
    return draft


def toggled(draft: Draft, option: str) -> Draft:
    """Return the draft with the urgent flag or the unsubscribe button flipped (an album keeps none), or T chosen."""
    if option in presend_expiry.TOGGLES:
        return presend_expiry.toggled(draft, option)
    if option == URGENT:
        return replace(draft, urgent=not draft.urgent)
    return replace(draft, unsubscribe=not draft.unsubscribe and draft.content_type != CONTENT_ALBUM)


def toggle_row(lang: str, draft: Draft, preview_id: str) -> list[list[dict]]:
    """Return the row of the two toggles (✅ marks what is on; an album gets no unsubscribe toggle), then T's row."""
    shown = (URGENT,) if draft.content_type == CONTENT_ALBUM else (URGENT, UNSUB)
    on = {URGENT: draft.urgent, UNSUB: bool(draft.unsubscribe)}
    expiry = [] if draft.ab else presend_expiry.toggle_row(lang, draft, preview_id)  # a test's copies never expire
    return [[{"text": t(f"btn_opt_{arg}", lang) + (" ✅" if on[arg] else ""),
              "callback_data": build("toggle", arg, preview_id)} for arg in shown]] + expiry


def lines(lang: str, draft: Draft, settings: dict) -> str:
    """Say what quiet hours, the daily cap and the unsubscribe button will do to this broadcast ("" when nothing)."""
    text = _quiet_line(lang, draft, settings)
    if cap := settings["max_broadcasts_per_user_per_day"]:
        text += t("wiz_cap_rule", lang, cap=quiet_hours.digits(str(cap), lang))
    if draft.content_type == CONTENT_ALBUM and settings["broadcast_optout_button"]:
        text += t("wiz_unsub_album", lang)
    elif draft.unsubscribe:
        text += t("wiz_unsub_on", lang)
    return text + presend_expiry.line(lang, draft)


def _quiet_line(lang: str, draft: Draft, settings: dict) -> str:
    """Say when quiet hours hold the broadcast (now, or should it reach them), or that urgent ignores them."""
    window = quiet_hours.window(settings)
    if window is None:
        return ""
    label = quiet_hours.digits(window.label(), lang)
    if draft.urgent:
        return t("wiz_quiet_urgent", lang, window=label)
    until = quiet_hours.quiet_until(window, db_utcnow())
    if until is not None:
        return t("wiz_quiet_now", lang, window=label, until=quiet_hours.digits(quiet_hours.tehran_clock(until), lang))
    return t("wiz_quiet_rule", lang, window=label, until=quiet_hours.digits(f"{window.end:%H:%M}", lang))
