"""The pre-send screen's auto-expiry: a row of T choices (off, 1, 6, 24, 47 h) and the line saying when copies go.

The choice is the draft's expire_after; the Confirm (or the schedule) writes
it into the job's own row (app.services.broadcast.jobs.creation), and cron's
expiry passes delete each copy T after it was sent (app.services.broadcast.actions.expiry).
"""
from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

from app.bot.callback_data import build
from app.repository.db_clock import db_utcnow
from app.services.broadcast.jobs.draft import Draft
from app.services.broadcast.reporting.expiry_view import after_text
from app.services.broadcast.schedule.send_time import describe, to_persian_digits
from app.texts import t

# Toggle argument -> T in hours (None: off). The job view's ⏳ offers the same (app.bot.expiry_screen).
CHOICES = {"x0": None, "x1": 1, "x6": 6, "x24": 24, "x47": 47}
TOGGLES = tuple(CHOICES)


def toggled(draft: Draft, option: str) -> Draft:
    """Return the draft with the chosen T (x0: no auto-expiry)."""
    hours = CHOICES[option]
    return replace(draft, expire_after=None if hours is None else hours * 3600)


def toggle_row(lang: str, draft: Draft, preview_id: str) -> list[list[dict]]:
    """Return the row of T choices, ✅ on the one chosen (as on every toggle, ✅ marks what is on: off has none)."""
    chosen = draft.expire_after // 3600 if draft.expire_after else None
    row = []
    for arg, hours in CHOICES.items():
        label = t("btn_presend_expire_off", lang) if hours is None else t("btn_presend_expire_h", lang, h=hours)
        label = to_persian_digits(label) if lang == "fa" else label
        mark = " ✅" if hours is not None and hours == chosen else ""
        row.append({"text": label + mark, "callback_data": build("toggle", arg, preview_id)})
    return [row]


def line(lang: str, draft: Draft) -> str:
    """Say when the copies will be deleted ("" without auto-expiry): T after each arrived, the first around when."""
    if not draft.expire_after:
        return ""
    first = db_utcnow().replace(second=0, microsecond=0) + timedelta(seconds=draft.expire_after)
    return t("wiz_expire_line", lang, after=after_text(draft.expire_after, lang), at=describe(first, lang))
