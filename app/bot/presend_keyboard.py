"""The pre-send screen's keyboard and what its toggles flip: options, languages, presets, the largest sources."""
from __future__ import annotations

from dataclasses import replace

from app.bot import ab_extras, keyboards, presend_rules, segment_rows
from app.bot.callback_data import build
from app.bot.presend_text import PROTECT, SILENT
from app.services import users
from app.services.broadcast.jobs.draft import Draft
from app.texts import t

# Toggle argument -> what it flips; the label keys are btn_opt_<argument>.
DAY_PRESETS = {"a7": ("active_days", 7), "a30": ("active_days", 30), "j7": ("joined_days", 7),
               "j30": ("joined_days", 30)}
TOGGLE_ROWS = (("silent", "protect"), ("fa", "en", "other"), ("a7", "a30"), ("j7", "j30"))
# The screen offers the largest sources (and any chosen) as toggles, this many per row. A longer
# source would not fit the 64 bytes of callback data with its prefix and token: only the CLI filters by it.
SOURCE_BUTTONS, SOURCES_PER_ROW = 6, 3
SOURCE_BUTTON_CHARS = 64 - len("w.src::") - 8


def toggled(draft: Draft, option: str) -> Draft:
    """Return the draft with one toggle flipped."""
    if option in (SILENT, PROTECT):
        return replace(draft, **{option: not getattr(draft, option)})
    if option in presend_rules.TOGGLES:
        return presend_rules.toggled(draft, option)
    audience = draft.target
    if option in DAY_PRESETS:
        return draft.with_target(audience.toggle_days(*DAY_PRESETS[option]))
    return draft.with_target(audience.toggle_lang(option))


def screen_keyboard(lang: str, draft: Draft, preview_id: str, confirm: bool = True, schedule: bool = True) -> dict:
    """Return the toggles (✅ marks what is on) above the confirm/abort and schedule rows, bound to the preview."""
    audience = draft.target
    on = {SILENT: draft.silent, PROTECT: draft.protect,
          **{lang_: lang_ in audience.langs for lang_ in ("fa", "en", "other")},
          **{arg: getattr(audience, field) == days for arg, (field, days) in DAY_PRESETS.items()}}
    # A segment brings its own filters: only the send options stay, then its exclusions.
    toggles = TOGGLE_ROWS[:1] if draft.segment_id else TOGGLE_ROWS
    rows = [[{"text": t(f"btn_opt_{arg}", lang) + (" ✅" if on[arg] else ""),
              "callback_data": build("toggle", arg, preview_id)} for arg in row] for row in toggles]
    offered = [] if draft.segment_id else source_choices(audience.sources)
    buttons = [{"text": f"🔗 {source}" + (" ✅" if source in audience.sources else ""),
                "callback_data": build("toggle_source", source, preview_id)} for source in offered]
    rows += [buttons[i:i + SOURCES_PER_ROW] for i in range(0, len(buttons), SOURCES_PER_ROW)]
    rows += segment_rows.screen_rows(lang, preview_id)
    rows += presend_rules.toggle_row(lang, draft, preview_id)
    rows += ab_extras.goal_row(lang, draft, preview_id)  # an A/B test: what picks the winner
    last = keyboards.confirm(lang, preview_id, draft.confirm_id)["inline_keyboard"]
    # An A/B test is never scheduled (`--at` with `--ab` is refused too).
    dropped = ("w.confirm",) * (not confirm) + ("w.sched",) * (not schedule or bool(draft.ab))
    if dropped:
        # Refused now (the balance cannot cover it): no Confirm, but a paid one may
        # still be scheduled: its balance is read when it starts.
        last = [[b for b in row if not b.get("callback_data", "").startswith(dropped)] for row in last]
    return {"inline_keyboard": rows + [row for row in last if row]}


def source_choices(chosen: tuple[str, ...]) -> list[str]:
    """Return the sources to offer as toggles: the chosen ones, then the largest, each short enough for a button."""
    offered = list(dict.fromkeys([*chosen, *users.top_sources(SOURCE_BUTTONS)]))
    return [source for source in offered if len(source) <= SOURCE_BUTTON_CHARS][:max(SOURCE_BUTTONS, len(chosen))]
