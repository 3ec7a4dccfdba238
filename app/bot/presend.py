"""The pre-send screen: the exact message, recipients after filters, duration, options and paid cost.

Its toggles (silent, protect, languages, active/joined presets, the largest sources) and the
confirm button carry the preview id; every toggle stores a new preview id and
re-renders the screen, so a Confirm under an older screen can never confirm
options the admin no longer sees. A paid broadcast's first Confirm leads to a
second one, under yet another id, after the bot's Star balance was checked.
"""
from __future__ import annotations

import time
from concurrent.futures import Future
from dataclasses import replace

from app.bot import keyboards, segment_step  # segment_step uses this module only inside its functions
from app.bot.buttons import button
from app.bot.callback_data import build, new_token
from app.bot.context import BotContext
from app.bot.wizard_state import CONFIRM_ID, PREVIEW_ID, STEP_PREVIEW, current_wizard_draft
from app.models.audience import Audience
from app.models.broadcast import CONTENT_ALBUM
from app.services import admins, users
from app.services.audience import segments
from app.services.broadcast.jobs import creation
from app.services.broadcast.jobs.draft import Draft
from app.services.broadcast.jobs.estimate import (
    STAR_PER_MESSAGE,
    capped_by_statements,
    estimate_seconds,
    format_estimate,
    paid_messages,
    pending_ahead,
    send_rate,
)
from app.services.broadcast.schedule.send_time import to_persian_digits
from app.telegram.errors import TelegramError
from app.texts import t

# getMyStarBalance gives whole Stars plus nanostars; a balance short of the cost
# by less than one nanostar is float rounding, not a shortfall.
NANOSTARS_PER_STAR = 1_000_000_000
BALANCE_SECONDS = 3.0
SILENT, PROTECT = "silent", "protect"  # the toggles of send options: Draft fields of these names
# Toggle argument -> what it flips; the label keys are btn_opt_<argument>.
DAY_PRESETS = {"a7": ("active_days", 7), "a30": ("active_days", 30), "j7": ("joined_days", 7),
               "j30": ("joined_days", 30)}
TOGGLE_ROWS = (("silent", "protect"), ("fa", "en", "other"), ("a7", "a30"), ("j7", "j30"))
# The screen offers the largest sources (and any chosen) as toggles, this many per row. A longer
# source would not fit the 64 bytes of callback data with its prefix and token: only the CLI filters by it.
SOURCE_BUTTONS, SOURCES_PER_ROW = 6, 3
SOURCE_BUTTON_CHARS = 64 - len("w.src::") - 8


def is_paid(ctx: BotContext, draft: Draft) -> bool:
    """Tell whether the draft would go as a paid broadcast (never an album: copyMessages has no paid option)."""
    return bool(ctx.settings["broadcast_paid_enabled"]) and draft.content.get("type") != CONTENT_ALBUM


def parts(draft: Draft) -> int:
    """Return how many messages each recipient gets (an album's parts, else one)."""
    return len(draft.content.get("message_ids") or ()) or 1


def count(draft: Draft) -> int:
    """Count the draft's recipients now, with the WHERE population will use."""
    return creation.count_recipients(segments.of_draft(draft))


def toggled(draft: Draft, option: str) -> Draft:
    """Return the draft with one toggle flipped."""
    if option in (SILENT, PROTECT):
        return replace(draft, **{option: not getattr(draft, option)})
    audience = draft.target
    if option in DAY_PRESETS:
        return draft.with_target(audience.toggle_days(*DAY_PRESETS[option]))
    return draft.with_target(audience.toggle_lang(option))


@button("w.opt", "toggle", arg="option", draft=True)
def on_toggle(ctx: BotContext, token: str, option: str) -> None:
    """Flip one filter or option and re-render the screen under a new preview id."""
    _retoggle(ctx, token, lambda draft: toggled(draft, option))


@button("w.src", "toggle_source", arg="source", draft=True)
def on_toggle_source(ctx: BotContext, token: str, source: str) -> None:
    """Add or remove one source filter and re-render the screen under a new preview id."""
    _retoggle(ctx, token, lambda draft: draft.with_target(draft.target.toggle_source(source)))


def _retoggle(ctx: BotContext, token: str, change) -> None:
    """Apply change to the screen's draft when the press is current, and show it unless nobody would receive it."""
    draft = current_wizard_draft(ctx, (STEP_PREVIEW,), PREVIEW_ID, token)
    if draft is None:
        return
    if draft.paid_ok:
        ctx.answer("wiz_stale", alert=True)  # the screen was already confirmed once
        return
    draft = change(draft)
    n = count(draft)
    if n == 0:
        # Never show a screen nobody would receive; the current one stays valid.
        ctx.answer("wiz_filters_empty", alert=True)
        return
    ctx.answer()
    message = ctx.update.callback_query.message
    show(ctx, draft, n, edit_message_id=message.message_id if message else None)


retoggle = _retoggle  # app.bot.segment_step's exclusions re-render the screen the same way


def show(ctx: BotContext, draft: Draft, n: int, *, edit_message_id: int | None = None,
         preview: Future | tuple[Future, ...] | None = None) -> None:
    """Store a new preview id and render the screen, once the preview just sent (if any) was delivered.

    With a preview, the screen waits for the reply flush that sends it: a
    preview that failed (a 429 that outlasted the reply budget, a deleted
    source message) gets a refusal and the audience buttons, never a Confirm
    under nothing. Paid: the screen also waits for the Star balance.
    """
    preview_id = new_token()
    draft = replace(draft, paid_ok=False, preview_id=preview_id, confirm_id=new_token())
    admins.set_state(ctx.user_id, STEP_PREVIEW, draft.to_json())
    paid = is_paid(ctx, draft)
    body = screen_text(ctx, draft, n, paid, pending_ahead())
    body += segment_step.screen_lines(ctx, draft, n)
    if draft.variants:
        body += variants_line(ctx, draft)
    if draft.content_type == CONTENT_ALBUM:
        body += ctx.text("wiz_album_parts_line", n=parts(draft))  # exactly the parts the Confirm sends
    if not paid and ctx.settings["broadcast_paid_enabled"]:
        body += ctx.text("wiz_album_free_line")  # paid broadcasts are on, but an album cannot be paid

    def render() -> None:
        if not delivered(preview):
            counts = creation.audience_counts()
            ctx.send(ctx.text("wiz_preview_failed"), keyboards.audience(ctx.lang, counts, draft.draft_id,
                                                                      members=ctx.main_channel_id is not None))
            return
        if not paid:
            _put(ctx, body + ctx.text("wiz_ask_send"), screen_keyboard(ctx.lang, draft, preview_id), edit_message_id)
            return
        line, enough = paid_lines(ctx, n)
        markup = screen_keyboard(ctx.lang, draft, preview_id, confirm=enough, schedule=False)
        _put(ctx, body + line + (ctx.text("wiz_ask_send") if enough else ""), markup, edit_message_id)

    if preview is None and not paid:
        render()  # a re-rendered screen: its preview was delivered before
    else:
        ctx.after_commit(render)


def delivered(preview: Future | tuple[Future, ...] | None) -> bool:
    """Tell whether the preview reached the admin; one still queued (its 429 outlasted the flush) is withdrawn.

    A tuple (the previews of each language version) is delivered when every one of them is.
    """
    if isinstance(preview, tuple):
        return all([delivered(one) for one in preview])  # a list: every one still queued is withdrawn
    if preview is None:
        return True
    if not preview.done():
        preview.cancel()  # the outbox drops a cancelled op: no preview arriving after its refusal
        return False
    return preview.result() is not None


def _put(ctx: BotContext, text: str, markup: dict, edit_message_id: int | None) -> None:
    """Send the screen, or replace the one whose toggle was pressed."""
    if edit_message_id is None:
        ctx.send(text, markup)
    else:
        ctx.outbox.edit(ctx.chat_id, edit_message_id, text, reply_markup=markup)


def screen_text(ctx: BotContext, draft: Draft, n: int, paid: bool, ahead: dict[tuple[bool, int], int]) -> str:
    """Render everything but the paid lines and the closing question."""
    audience = draft.target
    seconds = estimate_seconds(n, parts(draft), paid, ctx.settings, ahead)
    queued = sum(ahead.values())
    queue = ctx.text("wiz_queue_ahead", n=queued) if queued else ""
    return ctx.text(
        "wiz_preview", audience=ctx.text(f"aud_name_{audience.base}"), filters=filters_text(ctx, audience),
        count=n, duration=format_estimate(seconds, ctx.lang), queue=queue + statement_cap_text(ctx, paid),
        options=options_text(ctx, draft),
    )


def statement_cap_text(ctx: BotContext, paid: bool) -> str:
    """Say so when the host's cap on database statements, not Telegram, sets the broadcast's pace (else nothing)."""
    if not capped_by_statements(ctx.settings, paid):
        return ""
    cap, rate = f"{ctx.settings['db_statements_per_hour']:,}", f"{send_rate(ctx.settings, paid):.1f}"
    if ctx.lang == "fa":
        cap, rate = to_persian_digits(cap), to_persian_digits(rate)
    return ctx.text("wiz_statement_cap", cap=cap, rate=rate)


def variants_line(ctx: BotContext, draft: Draft) -> str:
    """Say how many recipients get each language version, with the WHERE and the match population will use."""
    per = creation.variant_counts(segments.of_draft(draft), list(draft.variants))
    names = [(ctx.text("var_default"), per.get(None, 0))] + [(code, per.get(code, 0)) for code in draft.variants]
    return ctx.text("var_presend_line", counts=ctx.text("list_sep").join(f"{name}: {n}" for name, n in names))


def filters_text(ctx: BotContext, audience: Audience) -> str:
    """Describe the filters in one parenthesis, or nothing when there are none."""
    parts = []
    if audience.langs:
        parts.append(ctx.text("flt_langs", langs=ctx.text("list_sep").join(ctx.text(f"lang_{x}")
                                                                            for x in audience.langs)))
    if audience.active_days:
        parts.append(ctx.text("flt_active", n=audience.active_days))
    if audience.joined_days:
        parts.append(ctx.text("flt_joined", n=audience.joined_days))
    if audience.sources:
        parts.append(ctx.text("flt_sources", sources=ctx.text("list_sep").join(audience.sources)))
    return f" ({ctx.text('flt_sep').join(parts)})" if parts else ""


def options_text(ctx: BotContext, draft: Draft) -> str:
    """Name the chosen send options, or say there are none."""
    chosen = [ctx.text(f"opt_{name}") for name in (SILENT, PROTECT) if getattr(draft, name)]
    return ctx.text("list_sep").join(chosen) or ctx.text("opt_none")


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
    rows += segment_step.screen_rows(lang, preview_id)
    last = keyboards.confirm(lang, preview_id, draft.confirm_id)["inline_keyboard"]
    dropped = ("w.confirm",) * (not confirm) + ("w.sched",) * (not schedule)
    if dropped:
        # Refused (the balance cannot cover it): only abort stays. Paid: no
        # scheduling, since its second confirmation checks the balance now.
        last = [[b for b in row if not b.get("callback_data", "").startswith(dropped)] for row in last]
    return {"inline_keyboard": rows + [row for row in last if row]}


def source_choices(chosen: tuple[str, ...]) -> list[str]:
    """Return the sources to offer as toggles: the chosen ones, then the largest, each short enough for a button."""
    offered = list(dict.fromkeys([*chosen, *users.top_sources(SOURCE_BUTTONS)]))
    return [source for source in offered if len(source) <= SOURCE_BUTTON_CHARS][:max(SOURCE_BUTTONS, len(chosen))]


def star_balance(ctx: BotContext) -> float | None:
    """Ask Telegram for the bot's Star balance; None when it cannot be read."""
    try:
        amount = ctx.client.get_my_star_balance(deadline=time.monotonic() + BALANCE_SECONDS, hard_deadline=True)
        return int(amount.get("amount", 0)) + int(amount.get("nanostar_amount", 0)) / NANOSTARS_PER_STAR
    except (TelegramError, AttributeError, TypeError, ValueError):
        return None


def paid_lines(ctx: BotContext, n: int) -> tuple[str, bool]:
    """Return the cost and balance lines, and whether the balance covers the capped cost."""
    cap = ctx.settings["broadcast_paid_max_messages"]
    likely, most = paid_messages(n, ctx.settings)
    cost = most * STAR_PER_MESSAGE
    line = ctx.text("wiz_paid_line", stars=f"{cost:.1f}", cap=cap)
    if likely < most:
        line += ctx.text("wiz_paid_likely", stars=f"{likely * STAR_PER_MESSAGE:.1f}")
    balance = star_balance(ctx)
    if balance is None:
        return line + ctx.text("wiz_balance_unknown"), False
    line += ctx.text("wiz_balance_line", balance=stars_text(balance))
    if balance + 1 / NANOSTARS_PER_STAR < cost:
        return line + ctx.text("wiz_balance_short", balance=stars_text(balance), stars=f"{cost:.1f}"), False
    return line, True


def stars_text(value: float) -> str:
    """Render Stars without exponent or trailing zeros: 1000, 12.5, 0.3."""
    return f"{value:.2f}".rstrip("0").rstrip(".")


def ask_paid_confirm(ctx: BotContext, token: str) -> bool:
    """Turn a paid broadcast's first Confirm into a second question; False once that one is confirmed."""
    draft = current_wizard_draft(ctx, (STEP_PREVIEW,), CONFIRM_ID, token)
    if draft is None:
        return True  # refused and answered
    if draft.paid_ok or not is_paid(ctx, draft):
        return False
    # New ids: the first Confirm (and a double tap of it) cannot stand in for the second.
    preview_id, confirm_id = new_token(), new_token()
    draft = replace(draft, paid_ok=True, preview_id=preview_id, confirm_id=confirm_id)
    admins.set_state(ctx.user_id, STEP_PREVIEW, draft.to_json())
    n = count(draft)
    ctx.answer()

    def second_question() -> None:
        line, enough = paid_lines(ctx, n)
        row = [(t("btn_pay_confirm", ctx.lang), build("confirm", token=confirm_id))] if enough else []
        row.append((t("btn_abort", ctx.lang), build("abort", token=preview_id)))
        markup = {"inline_keyboard": [[{"text": label, "callback_data": data} for label, data in row]]}
        ctx.send(ctx.text("wiz_paid_confirm", count=n) + line + (ctx.text("wiz_paid_ask") if enough else ""), markup)

    ctx.after_commit(second_question)
    return True


def balance_refusal(ctx: BotContext, draft: Draft) -> str | None:
    """Read the balance again at a paid broadcast's last Confirm; return the refusal to show, or None if it covers it.

    The screens checked it too, but a balance spent since (or a crafted
    press) must not start a paid broadcast the bot cannot pay for.
    """
    if not (draft.paid_ok and is_paid(ctx, draft)):
        return None
    line, enough = paid_lines(ctx, count(draft))
    return None if enough else line
