"""Statistics and history for admins: /stats, the recent broadcasts and one job's view."""
from __future__ import annotations

from datetime import datetime

from app.bot import ab_screen, keyboards
from app.bot.buttons import button
from app.bot.context import BotContext
from app.extensions import db
from app.models.broadcast import PAUSED
from app.repository.db_clock import db_utcnow
from app.services import audit, stats
from app.services.broadcast.content.telegram_html import utf16_len
from app.services.broadcast.content.text_rules import TEXT_LIMIT
from app.services.broadcast.jobs import control, origin
from app.services.broadcast.jobs.offers import offers
from app.services.broadcast.jobs.status import JobView, Offers, job_status
from app.services.broadcast.reporting import clicks, key_stats
from app.services.broadcast.reporting.expiry_view import expiry_line
from app.services.broadcast.reporting.progress import (
    action_counts,
    action_title,
    clicks_line,
    format_duration,
    percent_text,
    rate_text,
    rules_lines,
    unsent_line,
)
from app.services.broadcast.schedule.cron_watch import late_line
from app.services.broadcast.schedule.recurring_series import job_note
from app.services.broadcast.schedule.send_time import tehran_minute
from app.services.settings import load_settings
from app.texts import TEXTS, t

# /jobs lists this many: one screen on a phone, far inside Telegram's 4096 characters.
RECENT_JOBS = 10
# A job view shows its newest entries: a long history must not push the text past Telegram's 4096.
VIEW_AUDIT_ENTRIES = 15


def on_stats(ctx: BotContext) -> None:
    """Answer /stats: the population counts, the top sources, the clicks of the newest broadcast with a button."""
    figures = stats.figures()
    counts, sources = figures.counts, figures.sources
    job = clicks.latest_with_button()
    db.session.commit()
    line = ""
    if job is not None:
        status = job_status(job)
        line = t("stats_clicks", ctx.lang, id=status.id, clicks=status.clicks, total=status.click_total,
                 rate=percent_text(status))
    text = ctx.text("stats", clicks=line, **counts)
    if not figures.live:  # a large bot's snapshot: say how old it is
        text += ctx.text("stats_as_of", minutes=figures.age_minutes(), at=figures.taken_at.strftime("%H:%M"),
                         every=int(stats.SNAPSHOT_EVERY.total_seconds() // 60))
    if sources:
        text += "\n\n" + ctx.text("stats_sources") + "".join(ctx.text("stats_source_line", **row) for row in sources)
    ctx.send(text)


def on_jobs(ctx: BotContext) -> None:
    """List the admins' own newest jobs, one button each; automated ones (chains, recurring) behind one more.

    Apart, so a busy drip chain's many small jobs never push an admin's broadcasts out of the list.
    """
    rows = [job_status(job) for job in origin.newest(RECENT_JOBS, automated=False)]
    automated = bool(origin.newest(1, automated=True))
    if not rows and not automated:
        ctx.reply("jobs_empty")
        return
    ctx.reply("jobs_title" if rows else "jobs_own_empty", keyboards.job_list(ctx.lang, rows, automated=automated))


@button("j.list")
def on_job_list(ctx: BotContext, _arg: object) -> None:
    """The "back to the list" button."""
    ctx.answer()
    on_jobs(ctx)


@button("j.auto")
def on_automated_jobs(ctx: BotContext, _arg: object) -> None:
    """List the newest automated jobs: drip-chain steps (💧) and recurring occurrences (🔁)."""
    ctx.answer()
    rows = [(job_status(job), origin.CHAIN if job.chain_step_id is not None else origin.RECURRING)
            for job in origin.newest(RECENT_JOBS, automated=True)]
    ctx.reply("jobs_automated_title", keyboards.automated_job_list(ctx.lang, rows))


@button("j.view")
def on_job_view(ctx: BotContext, job_id: int) -> None:
    """Show one job: counters, rate, duration, author, its audit log and the actions of its state."""
    job = control.get_job(job_id)
    if job is None:
        ctx.answer("cb_unknown_job")
        return
    ctx.answer()
    ctx.send(*_view(job, ctx.lang))


def rerender(ctx: BotContext, job_id: int) -> None:
    """Edit the pressed job view after one of its actions (the progress message is refreshed elsewhere)."""
    query = ctx.update.callback_query
    job = control.get_job(job_id)
    if job is None or query is None or query.message is None or query.message.message_id == job.progress_message_id:
        return
    text, markup = _view(job, ctx.lang)
    ctx.outbox.edit(ctx.chat_id, query.message.message_id, text, reply_markup=markup)


def _view(job, lang: str) -> tuple[str, dict | None]:
    """Read what a job view shows and render it with the buttons that would act now."""
    now = db_utcnow()  # the job's times are the database's
    status, author = job_status(job, now, buttons=key_stats.of_job(job)), job.created_by
    entries = audit.entries(status.id, limit=VIEW_AUDIT_ENTRIES)
    offer = offers(job)
    chart = status.sent > 0 and not status.is_action  # 📊 only for a broadcast that delivered something
    markup = keyboards.job_actions(lang, status.id, status.status, offer, chart=chart)
    tail = job_note(status.id, lang) + expiry_line(job, now, lang)  # the auto-delete's countdown, if any
    text, markup = ab_screen.decorate(job, lang, tail, markup)  # an A/B test's versions, or a winner's test
    tail = text + retry_notes(status, offer, lang) + late_line(load_settings(), lang, status.status)
    return fitted(lambda shown: job_view_text(status, author, shown, lang, now) + tail, entries), markup


def fitted(compose, entries: list[dict]) -> str:
    """Compose a view with as many of its newest audit entries as keep it within one message, clipped if need be.

    Audit details are free text (an edit's new words, a long reason): 15 of
    them can pass Telegram's 4096 characters, and a longer text is refused.
    """
    while True:
        text = compose(entries)
        if utf16_len(text) <= TEXT_LIMIT or not entries:
            return clip(text)
        entries = entries[1:]  # oldest first: the newest stay


def clip(text: str, limit: int = TEXT_LIMIT) -> str:
    """Return text cut to at most limit UTF-16 units, with an ellipsis when cut."""
    if utf16_len(text) <= limit:
        return text
    while utf16_len(text) > limit - 1:
        text = text[:-max(1, (utf16_len(text) - limit + 1) // 2)]
    return text + "…"


def retry_notes(status: JobView, offer: Offers, lang: str) -> str:
    """Return the plain warnings under the retry buttons: unknown items may get a second copy; a paused job ends."""
    notes = [t("retry_unknown_warning", lang, n=offer.unknown)] if offer.unknown else []
    if (offer.retry or offer.unknown) and status.status == PAUSED:
        notes.append(t("retry_paused_note", lang))
    return "".join("\n\n" + note for note in notes)


def job_view_text(status: JobView, author: int | None, entries: list[dict], lang: str, now: datetime) -> str:
    """Render a job's view (pure): the duration runs to the end, or to now while the job is open."""
    duration = None
    if status.started_at:
        end = status.finished_at or now
        duration = max((end - status.started_at).total_seconds(), 0)
    lines = "\n".join(audit_line(entry, lang) for entry in entries) or t("audit_empty", lang)
    reason = t("progress_reason", lang, reason=status.pause_reason) if status.pause_reason else ""
    created = tehran_minute(status.created_at)
    common = dict(id=status.id, status=t(f"status_{status.status}", lang),
                  author=author if author is not None else t("job_author_unknown", lang),
                  unsent=unsent_line(status, lang) + clicks_line(status, lang)
                  + key_stats.view_lines(status.buttons, status.id, lang) + rules_lines(status, lang),
                  rate=rate_text(status),
                  duration=format_duration(duration, lang), created=created, reason=reason,
                  audit=lines)
    if status.is_action:
        # An unsend or edit is titled by what it does, its counters by what they mean (deleted, gone, too old).
        return t("job_view_action", lang, title=action_title(status, lang), counts=action_counts(status, lang),
                 total=status.total, **common)
    return t("job_view", lang, audience=t(f"aud_name_{status.audience}", lang), total=status.total,
             sent=status.sent, failed=status.failed, skipped=status.skipped, unknown=status.unknown,
             **common)


def audit_line(entry: dict, lang: str) -> str:
    """Render one audit entry: when, who, what (actions without a text yet show their name)."""
    action = t(f"act_{entry['action']}", lang) if f"act_{entry['action']}" in TEXTS else entry["action"]
    detail = f" ({entry['detail']})" if entry["detail"] else ""
    return t("audit_line", lang, at=_minute(entry["at"]), actor=entry["actor"], action=action, detail=detail)


def _minute(iso: str | None) -> str:
    """Render an audit entry's "2026-12-01T12:34:56Z" (UTC) as Tehran wall time, "2026-12-01 16:04"."""
    return tehran_minute(datetime.fromisoformat(iso.removesuffix("Z"))) if iso else "-"
