"""Progress and summary messages for the admin's chat: pure rendering plus the outbox call."""
from __future__ import annotations

import logging

from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from app.extensions import db
from app.models.broadcast import CANCELLED, PAUSED, QUEUED, RUNNING, TERMINAL, BroadcastJob
from app.services.broadcast.jobs.star_amount import stars_text
from app.services.broadcast.jobs.status import JobView, job_status, retry_offer
from app.texts import t

log = logging.getLogger(__name__)
# Cells of the progress bar: it fits one line of a phone screen.
BAR_WIDTH = 12


def progress_bar(done: int, total: int, width: int = BAR_WIDTH) -> tuple[str, int]:
    """Return a text bar and the whole percentage."""
    if total <= 0:
        return "▱" * width, 100
    ratio = min(max(done / total, 0.0), 1.0)
    filled = int(ratio * width)
    return "▰" * filled + "▱" * (width - filled), int(ratio * 100)


def format_duration(seconds: float | None, lang: str) -> str:
    """Render seconds as h:mm:ss (or the 'unknown' word)."""
    if seconds is None:
        return t("eta_unknown", lang)
    seconds = int(seconds)
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


def unsent_line(status: JobView, lang: str, key: str = "unsent_pending") -> str:
    """Render the items not yet final: pending, or 'not sent (cancelled)' once the job is cancelled."""
    if status.status == CANCELLED:
        return t("unsent_cancelled", lang, n=status.not_sent)
    return t(key, lang, n=status.pending)


def clicks_line(status: JobView, lang: str) -> str:
    """Render the clicks line of a job whose copies carry a link button ("" otherwise); the rate per delivered copy."""
    if not status.has_button:
        return ""
    if not status.clicks_counted:
        return "\n" + t("clicks_untracked_line", lang)
    return "\n" + t("clicks_line", lang, clicks=status.clicks, total=status.click_total, rate=percent_text(status))


def rules_lines(status: JobView, lang: str) -> str:
    """Render the sending rules' lines: daily cap, opted out by the button, urgent, a paid job's Stars ("" for none)."""
    lines = t("job_capped_line", lang, n=status.capped) if status.capped else ""
    if status.unsubscribe_button or status.unsubscribed:
        lines += t("job_unsubscribed_line", lang, n=status.unsubscribed)
    return lines + (t("job_urgent_line", lang) if status.urgent else "") + stars_line(status, lang)


def stars_line(status: JobView, lang: str) -> str:
    """Render a paid job's spend as Telegram's balance showed it beside our estimate ("" before it started)."""
    if status.stars_estimate is None:
        return ""
    estimate = stars_text(status.stars_estimate)
    if status.stars_spent is None:  # a run still open, or its balance not read yet
        return t("job_stars_estimate_line", lang, estimate=estimate)
    return t("job_stars_line", lang, spent=stars_text(status.stars_spent), estimate=estimate)


def percent_text(status: JobView) -> str:
    """Render the click rate as a percentage, or "-" before any copy was delivered."""
    return f"{status.click_rate * 100:.1f}%" if status.click_rate is not None else "-"


def action_counts(status: JobView, lang: str) -> str:
    """Render an unsend/edit job's counters: done, already gone, too old (unsend), skipped, failed, unknown."""
    return t(f"action_counts_{status.kind}", lang, sent=status.sent, gone=status.gone,
             too_old=status.too_old, skipped=status.skipped, failed=status.failed,
             unknown=status.unknown)


def action_title(status: JobView, lang: str) -> str:
    """Render "Unsend of #source (job #id)" for an unsend/edit job."""
    return t(f"action_title_{status.kind}", lang, id=status.id, source=status.source_job_id)


def rate_text(status: JobView) -> float | str:
    """Render the rate, or "-" before the job has started."""
    return status.rate if status.rate is not None else "-"


def progress_text(status: JobView, lang: str) -> str:
    """Render the live progress message."""
    done = status.total - status.pending - status.not_sent
    bar, percent = progress_bar(done, status.total)
    reason = t("progress_reason", lang, reason=status.pause_reason) if status.pause_reason else ""
    if status.is_action:
        state = t(f"status_{status.status}", lang)
        return t("progress_action", lang, title=action_title(status, lang), status=state, bar=bar, percent=percent,
                 counts=action_counts(status, lang), unsent=unsent_line(status, lang),
                 rate=rate_text(status), eta=format_duration(status.eta, lang), reason=reason)
    return t(
        "progress", lang, id=status.id, status=t(f"status_{status.status}", lang), bar=bar, percent=percent,
        sent=status.sent, failed=status.failed, skipped=status.skipped, unknown=status.unknown,
        unsent=unsent_line(status, lang), rate=rate_text(status),
        eta=format_duration(status.eta, lang), reason=reason,
    )


def summary_text(status: JobView, lang: str) -> str:
    """Render the final summary that replaces the progress message."""
    duration = format_duration(status.duration, lang)
    if status.is_action:
        return t("summary_action", lang, title=action_title(status, lang), status=t(f"status_{status.status}", lang),
                 counts=action_counts(status, lang),
                 unsent=unsent_line(status, lang, "unsent_not_sent") + clicks_line(status, lang)
                 + rules_lines(status, lang),
                 duration=duration)
    return t("summary", lang, id=status.id, status=t(f"status_{status.status}", lang), sent=status.sent,
             failed=status.failed, skipped=status.skipped, unknown=status.unknown,
             unsent=unsent_line(status, lang, "unsent_not_sent") + clicks_line(status, lang)
             + rules_lines(status, lang), duration=duration)


def progress_keyboard(job_id: int, status: str, lang: str) -> InlineKeyboardMarkup | None:
    """Return continue / pause|resume / cancel buttons fitting the job's state."""
    if status in TERMINAL:
        return None
    rows = []
    if status in (RUNNING, QUEUED):
        rows.append([InlineKeyboardButton(t("btn_continue", lang), callback_data=f"w.continue:{job_id}")])
        rows.append([InlineKeyboardButton(t("btn_pause", lang), callback_data=f"w.pause:{job_id}")])
    elif status == PAUSED:
        rows.append([InlineKeyboardButton(t("btn_resume", lang), callback_data=f"w.resume:{job_id}")])
    rows.append([InlineKeyboardButton(t("btn_cancel_job", lang), callback_data=f"w.cancel_job:{job_id}")])
    return InlineKeyboardMarkup(rows)


def summary_keyboard(status: JobView, lang: str) -> InlineKeyboardMarkup | None:
    """Return the summary's retry buttons (app.bot.keyboards.retry_rows' callbacks), or None when nobody is left."""
    offer = retry_offer(status)
    rows = []
    if offer.retry:
        rows.append([InlineKeyboardButton(t(offer.retry_key, lang), callback_data=f"j.retry:{status.id}")])
    if offer.unknown:
        rows.append([InlineKeyboardButton(t("btn_retry_unknown", lang), callback_data=f"j.retry_u:{status.id}")])
    return InlineKeyboardMarkup(rows) if rows else None


def _snapshot(job_id: int) -> tuple[JobView, int | None, int | None] | None:
    """Return (status, progress chat, progress message) read before commit.

    Reading an expired attribute after commit would open a new transaction
    across the Telegram call that follows, so everything is copied first.
    """
    job = db.session.get(BroadcastJob, job_id)
    snap = (job_status(job), job.progress_chat_id, job.progress_message_id) if job else None
    db.session.commit()
    return snap


def refresh_progress(job_id: int, *, outbox, lang: str = "fa", extra: str | None = None,
                     priority: str | None = None) -> None:
    """Queue an edit of the job's progress message (coalesced by the outbox; "low" gives way to other calls)."""
    snap = _snapshot(job_id)
    if snap is None or not snap[2]:
        return
    status, chat_id, message_id = snap
    text = progress_text(status, lang) + (f"\n\n{extra}" if extra else "") + _cron_line(status.status, lang)
    outbox.edit(chat_id, message_id, text, reply_markup=progress_keyboard(job_id, status.status, lang),
                priority=priority)


def _cron_line(status: str, lang: str) -> str:
    """Return the late-cron line for the progress message (empty while cron is on time)."""
    from app.services.broadcast.schedule.cron_watch import late_line  # it reads settings and the schedule: import late
    from app.services.settings import load_settings

    return late_line(load_settings(), lang, status)
