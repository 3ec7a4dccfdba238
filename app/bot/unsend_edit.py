"""'🗑 Unsend' and '✏️ Edit everywhere' from a job's view: confirmed steps that create an action job.

Steps (admin_states), each with a fresh random "act_token" its buttons carry,
so a button under an older question never acts on the current one:
  act:unsend1  first confirmation ("delete from everyone?")
  act:unsend2  second confirmation ("sure? it cannot be undone")
  act:edit_pick  a broadcast with language versions: which version to edit (one button each)
  act:edit     waiting for the new text (or caption), of one version when it has versions
  act:edit_ok  the new text shown (rendered, as its own message), waiting for its confirmation
A step is taken exactly once (take_state), like the wizard's confirm; the job
is then created after commit and run by the request's bounded pumps.
"""
from __future__ import annotations

import logging

from app.bot import keyboards
from app.bot.buttons import button
from app.bot.callback_data import new_token
from app.bot.context import BotContext
from app.bot.drafts import MEDIA_KINDS
from app.bot.text_refusal import refuse_text
from app.models.broadcast import KIND_EDIT, KIND_UNSEND, BroadcastJob
from app.services import admins, audit
from app.services.broadcast.actions import unsend_edit
from app.services.broadcast.content import greeting, text_rules, variants
from app.services.broadcast.content.methods import url_button
from app.services.broadcast.jobs import control
from app.services.broadcast.sending import runner

log = logging.getLogger(__name__)
STEP_UNSEND1, STEP_UNSEND2 = "act:unsend1", "act:unsend2"
STEP_EDIT, STEP_EDIT_OK = "act:edit", "act:edit_ok"
STEP_EDIT_PICK = "act:edit_pick"
# The draft's key naming the version an edit changes ("default" or a code); absent without versions.
VARIANT = "variant"
TOKEN = "act_token"


@button("j.unsend")
def on_unsend(ctx: BotContext, job_id: int) -> None:
    """'🗑 Delete from everyone': check the job, then ask the first confirmation."""
    if not _actionable(ctx, job_id, KIND_UNSEND):
        return
    ctx.answer()
    _ask(ctx, STEP_UNSEND1, {"job_id": job_id}, "unsend_confirm1", "btn_unsend_yes1", id=job_id,
         total=control.get_job(job_id).sent_count)


@button("j.edit")
def on_edit(ctx: BotContext, job_id: int) -> None:
    """'✏️ Edit everywhere': check the job, then ask for the new text (or caption)."""
    if not _actionable(ctx, job_id, KIND_EDIT):
        return
    ctx.answer()
    source = control.get_job(job_id)
    token = new_token()
    if variants.of(source):
        # One version at a time, each with its own text: one language's words never reach another's copies.
        per = unsend_edit.copies_per_variant(job_id)
        counts = [(variants.label(code), version_name(ctx, code), per.get(code, 0))
                  for code in [None, *variants.of(source)]]
        admins.set_state(ctx.user_id, STEP_EDIT_PICK, {"job_id": job_id, TOKEN: token})
        ctx.reply("edit_pick_variant", keyboards.edit_variants(ctx.lang, token, counts), id=job_id)
        return
    key = "edit_ask_text" if source.content_type == "text" else "edit_ask_caption"
    admins.set_state(ctx.user_id, STEP_EDIT, {"job_id": job_id, TOKEN: token})
    ctx.reply(key, keyboards.action_abort(ctx.lang, token), id=job_id, limit=unsend_edit.edit_limit(source))


def version_name(ctx: BotContext, code: str | None) -> str:
    """Return a version's name as the admin reads it: the default's in their language, else its code."""
    return ctx.text("var_default") if code is None else code


@button("a.ev")
def on_edit_variant(ctx: BotContext, token: str, variant: str) -> None:
    """A version chosen to edit: ask for its new text (only its copies will change)."""
    state = admins.get_state(ctx.user_id)
    if state is None or state[0] != STEP_EDIT_PICK or state[1].get(TOKEN) != token:
        ctx.answer("wiz_expired")
        return
    job_id = state[1]["job_id"]
    source = control.get_job(job_id)
    code = None if variant == variants.DEFAULT else variant
    if source is None or (code is not None and code not in variants.of(source)):
        ctx.answer("wiz_expired")
        return
    ctx.answer()
    n = unsend_edit.copies_per_variant(job_id).get(code, 0)
    new = new_token()
    admins.set_state(ctx.user_id, STEP_EDIT, {"job_id": job_id, VARIANT: variant, TOKEN: new})
    ctx.reply("edit_ask_variant", keyboards.action_abort(ctx.lang, new), id=job_id, name=version_name(ctx, code),
              n=n, limit=unsend_edit.edit_limit(source))


def on_input(ctx: BotContext, step: str, draft: dict) -> None:
    """The admin's new text: check it as the service will, then show it rendered and ask to confirm."""
    if step != STEP_EDIT:
        ctx.reply("wiz_expired")
        return
    message = ctx.update.message
    if message.text is not None:
        text = message.text_html
    elif any(getattr(message, kind, None) for kind in MEDIA_KINDS) and message.caption:
        text = message.caption_html
    else:
        ctx.reply("edit_need_text")
        return
    source = control.get_job(draft["job_id"])
    if source is None:
        ctx.reply("cb_unknown_job")
        return
    try:
        text = text_rules.check(text, unsend_edit.edit_limit(source))
    except text_rules.TextRefused as exc:
        refuse_text(ctx, exc, "edit_need_text")
        return
    _preview(ctx, source, text)
    if VARIANT in draft:
        code = None if draft[VARIANT] == variants.DEFAULT else draft[VARIANT]
        _ask(ctx, STEP_EDIT_OK, {"job_id": draft["job_id"], "text": text, VARIANT: draft[VARIANT]},
             "edit_confirm_variant", "btn_edit_yes", id=draft["job_id"], name=version_name(ctx, code))
        return
    key = "edit_confirm_personal" if greeting.has_greeting(text) else "edit_confirm"
    _ask(ctx, STEP_EDIT_OK, {"job_id": draft["job_id"], "text": text}, key, "btn_edit_yes", id=draft["job_id"])


@button("a.yes")
def on_yes(ctx: BotContext, token: str, _arg: object) -> None:
    """A confirmation button: the next step of its question, if the question is still current."""
    state = admins.get_state(ctx.user_id)
    if state is None or state[0] not in (STEP_UNSEND1, STEP_UNSEND2, STEP_EDIT_OK):
        ctx.answer("wiz_expired")
        return
    step, draft = state
    taken = admins.take_state(ctx.user_id, step, expect={TOKEN: token})
    if taken is None:
        ctx.answer("wiz_stale", alert=True)
        return
    ctx.answer()
    if step == STEP_UNSEND1:
        _ask(ctx, STEP_UNSEND2, {"job_id": taken["job_id"]}, "unsend_confirm2", "btn_unsend_yes2",
             id=taken["job_id"])
        return
    kind = KIND_UNSEND if step == STEP_UNSEND2 else KIND_EDIT
    ctx.after_commit(lambda: _create(ctx, kind, taken))


@button("a.no")
def on_no(ctx: BotContext, token: str, _arg: object) -> None:
    """'Abort' under a question: forget it (only if it is the current one)."""
    state = admins.get_state(ctx.user_id)
    if state is None or not state[0].startswith("act:") or state[1].get(TOKEN) != token:
        ctx.answer("wiz_expired")
        return
    admins.clear_state(ctx.user_id)
    ctx.answer()
    ctx.reply("act_aborted")


def _actionable(ctx: BotContext, job_id: int, kind: str) -> bool:
    """Answer why the job cannot be unsent/edited now (an alert), or return True."""
    source = control.get_job(job_id)
    if source is None:
        ctx.answer("cb_unknown_job")
        return False
    try:
        unsend_edit.check_source(source, kind)
    except unsend_edit.NotActionable as exc:
        ctx.answer(exc.key, alert=True, **exc.values)
        return False
    return True


def _preview(ctx: BotContext, source: BroadcastJob, text: str) -> None:
    """Send the new text as Telegram will show it (HTML parsed, the link button kept), with the admin's name."""
    first_name = ctx.update.effective_user.first_name if ctx.update.effective_user else None
    sample = greeting.render(text, first_name, ctx.lang)
    if text_rules.visible_length(sample) > text_rules.TEXT_LIMIT:
        sample = greeting.render(text, None, ctx.lang)  # a name too long for one message: the fallback fits
    ctx.outbox.send(ctx.chat_id, sample, parse_mode="HTML",
                    reply_markup=url_button(source.button_text, source.button_url))



def _ask(ctx: BotContext, step: str, draft: dict, key: str, yes_key: str, **values) -> None:
    """Put the admin on a step with a fresh token and ask its question (with what it cannot reach), yes / abort."""
    token = new_token()
    admins.set_state(ctx.user_id, step, {**draft, TOKEN: token})
    text = ctx.text(key, **values)
    if step != STEP_UNSEND2:  # the first question of an unsend, and an edit's, say it before the admin agrees
        text += _unreachable_note(ctx, draft["job_id"])
    ctx.send(text, keyboards.action_confirm(ctx.lang, token, yes_key))


def _unreachable_note(ctx: BotContext, job_id: int) -> str:
    """Return the line naming the copies no action can reach (their answer was lost), or nothing."""
    unknown = unsend_edit.unreachable(job_id)
    return ctx.text("act_unreachable", n=unknown) if unknown else ""


def _create(ctx: BotContext, kind: str, draft: dict) -> None:
    """Create the unsend/edit job, say so, and run the request's bounded pumps."""
    job_id, actor = draft["job_id"], audit.admin_actor(ctx.user_id)
    common = dict(actor=actor, created_by=ctx.user_id, progress_chat_id=ctx.chat_id, lang=ctx.lang,
                  settings=ctx.settings)
    try:
        if kind == KIND_UNSEND:
            job = unsend_edit.unsend_job(job_id, **common)
        elif draft.get(VARIANT) not in (None, variants.DEFAULT):
            job = unsend_edit.edit_job(job_id, None, variants={draft[VARIANT]: draft["text"]}, **common)
        else:
            # Without versions: every copy; with versions ("default"): the default's copies only.
            job = unsend_edit.edit_job(job_id, draft["text"], **common)
    except unsend_edit.NotActionable as exc:
        ctx.end_transaction()
        log.info("admin %s: %s of job %s refused: %s", ctx.user_id, kind, job_id, exc)
        ctx.reply(exc.key, **exc.values)
        return
    except ValueError as exc:
        ctx.end_transaction()
        log.info("admin %s: %s of job %s refused: %s", ctx.user_id, kind, job_id, exc)
        if isinstance(exc, text_rules.TextRefused):
            refuse_text(ctx, exc, "edit_need_text")
        else:
            ctx.reply("edit_need_text")
        return
    new_id, total = job.id, job.total_count
    ctx.end_transaction()
    ctx.send(ctx.text(f"act_started_{kind}", id=new_id, source=job_id, total=total) + _unreachable_note(ctx, job_id))
    runner.run_interactive(new_id, settings=ctx.settings, outbox=ctx.outbox, chat_id=ctx.chat_id, lang=ctx.lang)
