"""'🔁 Send again' from a job's view or summary: a retry is a broadcast, so it goes through a pre-send screen.

The screen shows the message as users will get it (each language version
under its label), whom it reaches (failed, not sent because of a cancel or a
pause, unknown when asked), how many, how long, the options the broadcast had
and, for a paid one, the Stars cost and the balance. Like the wizard's screen
it waits for the reply flush that sends the preview and appears only under a
delivered one: a preview that failed gets a refusal with Try again and Abort,
never a Confirm under nothing. Its buttons carry a fresh preview id (admin_states
step "retry:preview"), so a Confirm under an older screen never acts; Confirm has an
id of its own, so the Abort's id (shown under a screen that refused) never confirms. A paid
retry asks a second time, under yet another id, and the balance is read
again at that last Confirm. The paid flag is the one the screen showed: if
the setting changed since, the Confirm is refused and a new screen shown.
"""
from __future__ import annotations

import logging
from concurrent.futures import Future

from app.bot import presend, presend_paid, presend_text
from app.bot.buttons import button
from app.bot.callback_data import build, new_token
from app.bot.context import BotContext
from app.bot.wizard_preview import send_preview
from app.bot.wizard_state import CONFIRM_ID, PREVIEW_ID, current_draft
from app.models.broadcast import CANCELLED, CONTENT_ALBUM, CONTENT_TEXT, KIND_SEND, PAUSED
from app.services import admins, audit
from app.services.broadcast.actions import retry
from app.services.broadcast.content import keyboard, variants
from app.services.broadcast.jobs import control
from app.services.broadcast.jobs.content_columns import album_ids
from app.services.broadcast.jobs.draft import Draft
from app.services.broadcast.jobs.estimate import format_estimate, pending_ahead
from app.services.broadcast.sending import runner
from app.texts import t

log = logging.getLogger(__name__)
STEP_RETRY = "retry:preview"
PAID_OK = "paid_ok"  # a paid retry's first Confirm was pressed (the wizard's Draft.paid_ok)


@button("j.retry")
def on_retry(ctx: BotContext, job_id: int) -> None:
    """'🔁 Send again to the failed (and not sent)': show the retry's pre-send screen."""
    _screen(ctx, job_id, include_unknown=False)


@button("j.retry_u")
def on_retry_unknown(ctx: BotContext, job_id: int) -> None:
    """'🔁 Failed + unknown ⚠️': the same screen, with the unknown ones (the screen repeats the warning)."""
    _screen(ctx, job_id, include_unknown=True)


def _screen(ctx: BotContext, job_id: int, include_unknown: bool, answered: bool = False) -> None:
    """Check the job can be retried, then store a new preview id and show the screen; else answer why not."""
    job = control.get_job(job_id)
    refusal = _refusal(job, include_unknown)
    if refusal is not None:
        if not answered:
            ctx.answer(refusal, alert=True)
        return
    reach = retry.candidates(job_id)
    count = reach["failed"] + reach["not_sent"] + (reach["unknown"] if include_unknown else 0)
    draft = {"job_id": job_id, "include_unknown": include_unknown, "count": count,
             "paid": _paid_now(ctx, job), PREVIEW_ID: new_token(), CONFIRM_ID: new_token()}
    admins.set_state(ctx.user_id, STEP_RETRY, draft)
    if not answered:
        ctx.answer()
    preview = send_preview(ctx, _as_draft(job))
    body = _text(ctx, job, reach, draft)
    # After commit, so after the reply flush that sends the preview: its outcome is known then.
    ctx.after_commit(lambda: _render(ctx, draft, body, preview))


def _render(ctx: BotContext, draft: dict, body: str, preview: Future | tuple[Future, ...]) -> None:
    """Show the screen once every preview was delivered (paid: with the balance read now); else refuse."""
    if not presend.delivered(preview):
        ctx.reply("retry_preview_failed", _again_keyboard(ctx.lang, draft))
        return
    if not draft["paid"]:
        ctx.send(body + ctx.text("wiz_ask_send"), _keyboard(ctx.lang, draft, "btn_confirm"))
        return
    line, enough = presend_paid.paid_lines(ctx, draft["count"])
    markup = _keyboard(ctx.lang, draft, "btn_confirm" if enough else None)
    ctx.send(body + line + (ctx.text("wiz_ask_send") if enough else ""), markup)


def _refusal(job, include_unknown: bool) -> str | None:
    """Return the text key saying why this job cannot be retried now, or None."""
    if job is None:
        return "cb_unknown_job"
    if job.kind != KIND_SEND or job.status not in ("completed", CANCELLED, PAUSED):
        return "cb_retry_refused"
    if retry.blocker(job.id) is not None:
        return "cb_retry_blocked"
    reach = retry.candidates(job.id)
    if not (reach["failed"] + reach["not_sent"] + (reach["unknown"] if include_unknown else 0)):
        return "cb_retry_nothing"
    return None


def _paid_now(ctx: BotContext, job) -> bool:
    """Tell whether the retry would go as a paid broadcast under today's setting (never an album)."""
    return bool(ctx.settings["broadcast_paid_enabled"]) and job.content_type != CONTENT_ALBUM


def _as_draft(job) -> Draft:
    """Return the job's content in the wizard's draft form, for the preview."""
    if job.content_type == CONTENT_ALBUM:
        content = {"type": CONTENT_ALBUM, "from_chat_id": job.from_chat_id, "message_ids": album_ids(job)}
    elif job.content_type == CONTENT_TEXT:
        content = {"type": "text", "text": job.text}
    else:
        content = {"type": "copy", "from_chat_id": job.from_chat_id, "message_id": job.source_message_id}
    return Draft(content=content, button_text=job.button_text, button_url=job.button_url,
                 variants=variants.of(job) or None, keyboard=keyboard.load(job.keyboard))


def _text(ctx: BotContext, job, reach: dict, draft: dict) -> str:
    """Render the screen: whom (by ledger status), how many, how long, the options; a paused job's note."""
    who = []
    if reach["failed"]:
        who.append(ctx.text("retry_who_failed", n=reach["failed"]))
    if reach["not_sent"]:
        who.append(ctx.text("retry_who_not_sent_paused" if job.status == PAUSED else "retry_who_not_sent",
                            n=reach["not_sent"]))
    if draft["include_unknown"] and reach["unknown"]:
        who.append(ctx.text("retry_who_unknown", n=reach["unknown"]))
    ahead = pending_ahead()
    seconds = presend_text.seconds(ctx, _as_draft(job), draft["count"], draft["paid"], ahead)
    queued = sum(ahead.values())
    text = ctx.text("retry_screen", id=job.id, who=ctx.text("list_sep").join(who), count=draft["count"],
                    duration=format_estimate(seconds, ctx.lang),
                    queue=ctx.text("wiz_queue_ahead", n=queued) if queued else "",
                    options=presend_text.options_text(ctx, Draft(silent=bool(job.silent), protect=bool(job.protect))))
    if draft["include_unknown"] and reach["unknown"]:
        text += ctx.text("retry_unknown_warning", n=reach["unknown"]) + "\n"
    if job.status == PAUSED:
        text += ctx.text("retry_paused_note") + "\n"
    return text


def _keyboard(lang: str, draft: dict, confirm_key: str | None) -> dict:
    """Return confirm (if offered, under its own id) and abort, bound to this one screen."""
    row = [{"text": t(confirm_key, lang), "callback_data": build("retry_ok", token=draft[CONFIRM_ID])}
           ] if confirm_key else []
    row.append({"text": t("btn_abort", lang), "callback_data": build("retry_no", token=draft[PREVIEW_ID])})
    return {"inline_keyboard": [row]}


def _again_keyboard(lang: str, draft: dict) -> dict:
    """Return Try again (the same retry button: a new preview, a new screen) and this screen's abort."""
    action = "retry_unknown" if draft["include_unknown"] else "retry"
    return {"inline_keyboard": [[
        {"text": t("btn_retry_again", lang), "callback_data": build(action, draft["job_id"])},
        {"text": t("btn_abort", lang), "callback_data": build("retry_no", token=draft[PREVIEW_ID])}]]}


@button("r.ok")
def on_confirm(ctx: BotContext, token: str, _arg: object) -> None:
    """Confirm this screen (exactly once); a paid retry's first Confirm only asks the second one."""
    draft = current_draft(ctx, (STEP_RETRY,), CONFIRM_ID, token)
    if draft is None:
        return
    job = control.get_job(draft["job_id"])
    if job is not None and _paid_now(ctx, job) != draft["paid"]:
        # The screen showed another paid flag than the setting now says: show the truth first.
        ctx.answer("retry_paid_changed", alert=True)
        _screen(ctx, draft["job_id"], draft["include_unknown"], answered=True)
        return
    if draft["paid"] and not draft.get(PAID_OK):
        _ask_paid(ctx, draft)
        return
    taken = admins.take_state(ctx.user_id, STEP_RETRY, expect={CONFIRM_ID: token})
    if taken is None:
        ctx.answer("wiz_stale", alert=True)
        return
    ctx.answer("cb_working")
    ctx.after_commit(lambda: _create(ctx, taken))


def _ask_paid(ctx: BotContext, draft: dict) -> None:
    """Store a new id and ask the paid retry's second confirmation, with the balance read now."""
    draft = {**draft, PAID_OK: True, PREVIEW_ID: new_token(), CONFIRM_ID: new_token()}
    admins.set_state(ctx.user_id, STEP_RETRY, draft)
    ctx.answer()

    def second_question() -> None:
        line, enough = presend_paid.paid_lines(ctx, draft["count"])
        markup = _keyboard(ctx.lang, draft, "btn_pay_confirm" if enough else None)
        ctx.send(ctx.text("wiz_paid_confirm", count=draft["count"]) + line
                 + (ctx.text("wiz_paid_ask") if enough else ""), markup)

    ctx.after_commit(second_question)


def _create(ctx: BotContext, draft: dict) -> None:
    """After commit: check a paid retry's balance once more, create the retry as confirmed, run its pumps."""
    if draft["paid"]:
        line, enough = presend_paid.paid_lines(ctx, draft["count"])
        if not enough:
            ctx.reply("retry_balance_refused", line=line)
            return
    try:
        job = retry.retry_job(draft["job_id"], include_unknown=draft["include_unknown"], paid=draft["paid"],
                              actor=audit.admin_actor(ctx.user_id), created_by=ctx.user_id,
                              progress_chat_id=ctx.chat_id, lang=ctx.lang, settings=ctx.settings)
    except (retry.NotRetryable, retry.NothingToRetry) as exc:
        ctx.end_transaction()
        log.info("admin %s: retry of job %s refused: %s", ctx.user_id, draft["job_id"], exc)
        ctx.reply("cb_retry_nothing" if isinstance(exc, retry.NothingToRetry) else "cb_retry_blocked")
        return
    new_id, total = job.id, job.total_count
    ctx.end_transaction()
    ctx.reply("cb_retried", id=new_id, total=total)
    runner.run_interactive(new_id, settings=ctx.settings, outbox=ctx.outbox, chat_id=ctx.chat_id, lang=ctx.lang)


def on_input(ctx: BotContext, _step: str, _draft: dict) -> None:
    """A message while the screen waits: point at its buttons."""
    ctx.reply("wiz_use_buttons")


@button("r.no")
def on_abort(ctx: BotContext, token: str, _arg: object) -> None:
    """Drop this screen (an older screen's abort leaves a newer one alone)."""
    if current_draft(ctx, (STEP_RETRY,), PREVIEW_ID, token) is None:
        return
    admins.clear_state(ctx.user_id)
    ctx.answer()
    ctx.reply("act_aborted")
