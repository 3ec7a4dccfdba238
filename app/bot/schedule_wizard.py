"""'⏰ Schedule' from the wizard's preview, re-timing a scheduled job, and "send now" for a missed one.

Steps (admin_states): "sched:new" holds the whole wizard draft, "sched:retime"
holds {job_id}; both hold a fresh "sched_token" that the preset buttons carry,
so a preset under an older question never acts on the current one. A typed
time or a preset is taken exactly once (take_state), like the wizard's confirm.
"""
from __future__ import annotations

import logging
from datetime import datetime

from app.bot import broadcast_wizard as wizard
from app.bot import keyboards
from app.bot.buttons import button
from app.bot.callback_data import new_token
from app.bot.context import BotContext
from app.repository.db_clock import db_utcnow
from app.services import admins, audit
from app.services.broadcast.jobs import control
from app.services.broadcast.jobs.draft import Draft
from app.services.broadcast.schedule import releases
from app.services.broadcast.schedule.send_time import SendTimeError, describe, parse_send_time, preset_time
from app.services.broadcast.sending import runner

log = logging.getLogger(__name__)
STEP_NEW, STEP_RETIME = "sched:new", "sched:retime"
TOKEN = "sched_token"
LIST_LIMIT = 10


@button("w.sched")
def on_schedule(ctx: BotContext, token: str, _arg: object) -> None:
    """'⏰ Schedule' under a preview: ask when, offering presets."""
    draft = wizard.current_wizard_draft(ctx, (wizard.STEP_PREVIEW,), wizard.PREVIEW_ID, token)
    if draft is None:
        return
    if draft.ab:
        ctx.answer("ab_no_schedule", alert=True)  # `--at` with `--ab` is refused too: a test starts at Confirm
        return
    ctx.answer()
    ask(ctx, STEP_NEW, draft.to_json())


@button("w.retime")
def on_retime(ctx: BotContext, job_id: int) -> None:
    """'Change time' under a scheduled job: ask for its new time."""
    if not releases.is_scheduled(control.get_job(job_id)):
        ctx.answer("sched_gone", alert=True)
        return
    ctx.answer()
    ask(ctx, STEP_RETIME, {"job_id": job_id})


def ask(ctx: BotContext, step: str, draft: dict) -> None:
    """Put the admin on a schedule step with a new token and ask for the time (draft: the step's JSON state)."""
    token = new_token()
    admins.set_state(ctx.user_id, step, {**draft, TOKEN: token})
    ctx.reply("sched_ask", keyboards.schedule_presets(ctx.lang, token), now=describe(db_utcnow(), ctx.lang))


@button("w.at")
def on_preset(ctx: BotContext, token: str, preset: str) -> None:
    """A preset button: its time, if this question is still the current one."""
    state = admins.get_state(ctx.user_id)
    if state is None or state[0] not in (STEP_NEW, STEP_RETIME):
        ctx.answer("wiz_expired")
        return
    if state[1].get(TOKEN) != token:
        ctx.answer("wiz_stale", alert=True)
        return
    try:
        send_at = preset_time(preset, db_utcnow())
    except SendTimeError as exc:  # "tonight 21:00" pressed after 21:00
        ctx.answer(exc.key, alert=True, **_shown(exc, ctx.lang))
        return
    ctx.answer()
    take(ctx, state[0], state[1], send_at)


def on_input(ctx: BotContext, step: str, draft: dict) -> None:
    """A typed date and time (Tehran): take it, or say what is wrong and stay on the step."""
    try:
        send_at = parse_send_time(ctx.update.message.text, db_utcnow())
    except SendTimeError as exc:
        ctx.send(exc.text(ctx.lang))
        return
    take(ctx, step, draft, send_at)


def _shown(exc: SendTimeError, lang: str) -> dict:
    """Return the error's values rendered for lang."""
    return {k: describe(v, lang) if isinstance(v, datetime) else v for k, v in exc.values.items()}


def take(ctx: BotContext, step: str, draft: dict, send_at: datetime) -> None:
    """Take the step's draft exactly once, then schedule (or re-time) after commit."""
    taken = admins.take_state(ctx.user_id, step, expect={TOKEN: draft.get(TOKEN)})
    if taken is None:
        ctx.reply("wiz_expired")
        return
    if step == STEP_NEW:
        ctx.after_commit(lambda: create(ctx, Draft.from_json(taken), send_at))
    else:
        ctx.after_commit(lambda: retime(ctx, taken, send_at))


def create(ctx: BotContext, draft: Draft, send_at: datetime) -> None:
    """Create the scheduled job and show its time in both calendars with change-time / cancel buttons."""
    try:
        job = wizard.create_job(ctx, draft, send_at)
    except SendTimeError as exc:  # the time passed while the admin was on this step
        ctx.end_transaction()
        admins.restore_state(ctx.user_id, STEP_NEW, draft.to_json())
        ctx.send(exc.text(ctx.lang))
        return
    except ValueError as exc:
        wizard.creation_refused(ctx, draft, exc)
        return
    job_id, total = job.id, job.total_count
    ctx.end_transaction()
    log.info("admin %s scheduled job %s for %s UTC", ctx.user_id, job_id, send_at)
    ctx.reply("sched_done", keyboards.scheduled_job(ctx.lang, job_id), id=job_id, when=describe(send_at, ctx.lang),
              audience=ctx.text(f"aud_name_{draft.audience}"), count=total)


def retime(ctx: BotContext, draft: dict, send_at: datetime) -> None:
    """Move the job's time, unless it has started or was cancelled meanwhile."""
    job_id = draft["job_id"]
    try:
        ok = releases.reschedule(job_id, send_at, actor=audit.admin_actor(ctx.user_id))
    except SendTimeError as exc:
        ctx.end_transaction()
        admins.restore_state(ctx.user_id, STEP_RETIME, draft)
        ctx.send(exc.text(ctx.lang))
        return
    ctx.end_transaction()
    if not ok:
        ctx.reply("sched_gone")
        return
    ctx.reply("sched_retimed", keyboards.scheduled_job(ctx.lang, job_id), id=job_id,
              when=describe(send_at, ctx.lang))


def on_list(ctx: BotContext) -> None:
    """/scheduled: one message per waiting job, soonest first, each with change-time / cancel buttons."""
    waiting = releases.scheduled_jobs(LIST_LIMIT)
    if not waiting:
        ctx.reply("sched_none")
    for job in waiting:
        missed = ctx.text("sched_item_missed") if job.missed_at else ""
        markup = keyboards.scheduled_job(ctx.lang, job.id)
        ctx.reply("sched_item", markup, id=job.id, when=describe(job.send_at, ctx.lang),
                  audience=ctx.text(f"aud_name_{job.audience}"), count=job.total_count, missed=missed)


@button("w.send_now")
def on_send_now(ctx: BotContext, job_id: int) -> None:
    """'Send now' under a missed schedule's question: queue it and run the request's bounded pumps."""
    if not releases.is_scheduled(control.get_job(job_id)):
        ctx.answer("sched_gone", alert=True)
        return

    def run() -> None:
        released = releases.send_now(job_id, actor=audit.admin_actor(ctx.user_id))
        ctx.end_transaction()
        if not released:  # another admin answered first, or it was cancelled
            ctx.answer("sched_gone", alert=True)
            return
        ctx.answer("cb_working")
        runner.run_interactive(job_id, settings=ctx.settings, outbox=ctx.outbox, chat_id=ctx.chat_id,
                               lang=ctx.lang)

    ctx.after_commit(run)
