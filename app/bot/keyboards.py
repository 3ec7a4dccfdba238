"""Keyboards as pure builders returning Bot API dicts."""
from __future__ import annotations

from telegram import InlineKeyboardButton, InlineKeyboardMarkup, KeyboardButton, ReplyKeyboardMarkup

from app.bot.callback_data import build
from app.models.audience import AUDIENCES, MEMBER_AUDIENCES
from app.models.broadcast import PAUSED, QUEUED, RUNNING, TERMINAL
from app.services.broadcast.jobs.status import JobView, Offers
from app.services.broadcast.schedule.send_time import PRESETS
from app.settings_schema import DEFS, format_value
from app.texts import t


def admin_menu(lang: str) -> dict:
    """Return the admin's reply keyboard: broadcast, recent broadcasts and settings."""
    rows = [[KeyboardButton(t("menu_broadcast", lang))], [KeyboardButton(t("menu_jobs", lang))],
            [KeyboardButton(t("menu_settings", lang))]]
    return ReplyKeyboardMarkup(rows, resize_keyboard=True, is_persistent=True).to_dict()


MORE_VARIANTS = "more"  # the "version in another language" button's argument (app.bot.variant_step)


def no_button(lang: str, draft_id: str, ab: bool = False) -> dict:
    """Return the wizard's button step: "no button", the language versions to add and (ab) an A/B test; bound."""
    rows = [[(t("btn_no_button", lang), build("no_button", token=draft_id))],
            [(t("btn_add_english", lang), build("add_variant", "en", draft_id)),
             (t("btn_add_variant", lang), build("add_variant", MORE_VARIANTS, draft_id))]]
    return _inline(rows + [[(t("btn_ab", lang), build("ab_start", token=draft_id))]] * ab)


def audience(lang: str, counts: dict[str, int], draft_id: str, members: bool = True) -> dict:
    """Return one button per audience, each labelled with its size and bound to the draft.

    members=False (no main channel configured) leaves out the member audiences.
    """
    names = AUDIENCES if members else tuple(a for a in AUDIENCES if a not in MEMBER_AUDIENCES)
    return _inline([[(t(f"aud_{name}", lang, count=counts.get(name, 0)), build("aud", name, draft_id))]
                    for name in names])


def confirm(lang: str, preview_id: str, confirm_id: str) -> dict:
    """Return the preview's schedule button above confirm / abort (the last row); Confirm has its own id."""
    return _inline([[(t("btn_schedule", lang), build("schedule", token=preview_id))],
                    [(t("btn_confirm", lang), build("confirm", token=confirm_id)),
                     (t("btn_abort", lang), build("abort", token=preview_id))]])


def schedule_presets(lang: str, token: str) -> dict:
    """Return the schedule step's presets (in one hour, tonight 21:00, tomorrow 09:00), bound to the step."""
    return _inline([[(t(f"btn_preset_{name}", lang), build("at", name, token))] for name in PRESETS])


def scheduled_job(lang: str, job_id: int) -> dict:
    """Return a scheduled job's buttons: change its time, or cancel it."""
    return _inline([[(t("btn_retime", lang), build("retime", job_id))],
                    [(t("btn_cancel_job", lang), build("cancel_job", job_id))]])


def settings_menu(values: dict) -> dict:
    """Return one button per setting showing its current value."""
    rows = [[(f"{key} = {format_value(values[key])}", build("edit_setting", key))] for key in DEFS]
    return _inline(rows)


def job_list(lang: str, statuses: list[JobView], *, automated: bool = False) -> dict:
    """Return one button per job, "📢 #id — status — done/total" (an unsend/edit names its source), to its view.

    automated: one more button, to the list of automated jobs (chain steps, recurring occurrences).
    """
    rows = [[(_job_row(lang, s, s.kind), build("job_view", s.id))] for s in statuses]
    if automated:
        rows.append([(t("btn_jobs_automated", lang), build("job_automated"))])
    return _inline(rows)


def automated_job_list(lang: str, rows: list[tuple[JobView, str]]) -> dict:
    """Return one button per automated job ("💧" a chain step, "🔁" a recurring occurrence), then back to /jobs."""
    buttons = [[(_job_row(lang, s, made_by), build("job_view", s.id))] for s, made_by in rows]
    return _inline(buttons + [[(t("btn_jobs_back", lang), build("job_list"))]])


def _job_row(lang: str, s: JobView, row: str) -> str:
    """Return one job's list label (row: its kind, or the automation that made it)."""
    return t(f"job_row_{row}", lang, id=s.id, source=s.source_job_id, status=t(f"status_{s.status}", lang),
             done=s.finished_items, total=s.total)


def job_actions(lang: str, job_id: int, status: str, offer: Offers = Offers(), chart: bool = False) -> dict:
    """Return a job view's buttons: the actions its state allows and that would act, then "back to the list".

    offer: whom a retry would reach and whether unsend / edit would be accepted
    (app.services.broadcast.jobs.offers: the same checks the actions run); chart: it delivered something.
    """
    rows = []
    if status in (RUNNING, QUEUED):
        rows.append([(t("btn_pause", lang), build("pause", job_id))])
    elif status == PAUSED:
        rows.append([(t("btn_resume", lang), build("resume", job_id))])
    if status not in TERMINAL:
        rows.append([(t("btn_cancel_job", lang), build("cancel_job", job_id))])
    rows.extend(retry_rows(lang, job_id, offer))
    acts = [(t(key, lang), build(action, job_id)) for key, action, on in
            (("btn_unsend", "unsend", offer.unsend), ("btn_edit_all", "edit_all", offer.edit)) if on]
    if acts:
        rows.append(acts)
    after = [(t(key, lang), build(action, job_id)) for key, action, on in
             (("btn_pin", "pin", offer.pin), ("btn_unpin", "unpin", offer.unpin),
              ("btn_expire", "expire", offer.expire)) if on]
    if after:
        rows.append(after)
    if chart:
        rows.append([(t("btn_chart", lang), build("chart", job_id))])
    rows.append([(t("btn_export", lang), build("export", job_id))])
    rows.append([(t("btn_jobs_back", lang), build("job_list"))])
    return _inline(rows)


def retry_rows(lang: str, job_id: int, offer: Offers) -> list[list[tuple[str, str]]]:
    """Return the retry buttons: failed and unsent only, and with unknown as a second choice."""
    rows = [[(t(offer.retry_key, lang), build("retry", job_id))]] if offer.retry else []
    if offer.unknown:
        rows.append([(t("btn_retry_unknown", lang), build("retry_unknown", job_id))])
    return rows


def action_confirm(lang: str, token: str, yes_key: str) -> dict:
    """Return an unsend/edit question's yes / abort buttons, bound to this one question."""
    return _inline([[(t(yes_key, lang), build("act_yes", token=token)),
                     (t("btn_act_abort", lang), build("act_no", token=token))]])


def edit_variants(lang: str, token: str, counts: list[tuple[str, str, int]]) -> dict:
    """Return a button per language version to edit ((argument, name, copies)), then abort, bound to the question."""
    rows = [[(t("btn_edit_variant", lang, name=name, n=n), build("edit_variant", arg, token))]
            for arg, name, n in counts]
    return _inline(rows + [[(t("btn_act_abort", lang), build("act_no", token=token))]])


def action_abort(lang: str, token: str) -> dict:
    """Return the abort button under "send the new text", bound to that question."""
    return _inline([[(t("btn_act_abort", lang), build("act_no", token=token))]])


def subscribe_again(lang: str) -> dict:
    """Return the button under the /stop confirmation that subscribes the user again."""
    return _inline([[(t("btn_subscribe", lang), build("optin"))]])


def _inline(rows: list[list[tuple[str, str]]]) -> dict:
    """Build an inline keyboard from (label, callback data) rows."""
    return InlineKeyboardMarkup(
        [[InlineKeyboardButton(label, callback_data=data) for label, data in row] for row in rows]
    ).to_dict()
