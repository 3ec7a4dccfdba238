"""The pre-send screen's text: audience and filters, recipients, duration, queue, options and language versions."""
from __future__ import annotations

from app.bot import ab_presend, presend_rules, segment_rows
from app.bot.context import BotContext
from app.models.audience import Audience
from app.models.broadcast import CONTENT_ALBUM, KIND_SEND
from app.services.audience import segments
from app.services.broadcast.jobs import creation
from app.services.broadcast.jobs.draft import Draft
from app.services.broadcast.jobs.estimate import (
    Ahead,
    capped_by_statements,
    estimate_seconds,
    follows,
    format_estimate,
    send_rate,
)
from app.services.broadcast.schedule.send_time import to_persian_digits

SILENT, PROTECT = "silent", "protect"  # the toggles of send options: Draft fields of these names


def parts(draft: Draft) -> int:
    """Return how many messages each recipient gets (an album's parts, else one)."""
    return len(draft.content.get("message_ids") or ()) or 1


def seconds(ctx: BotContext, draft: Draft, recipients: int, paid: bool, ahead: Ahead) -> float:
    """Return how long sending the draft to ``recipients`` takes after the queue, paced as the pump paces it.

    An album with a keyboard sends its keyboard message after each album; this
    process's typical call time stands for the pump's (both call one Bot API).
    """
    follow = follows(KIND_SEND, draft.content_type, draft.keyboard)
    call = getattr(ctx.client, "typical_call_seconds", None)
    return estimate_seconds(recipients, parts(draft), paid, ctx.settings, ahead, follow, call)


def screen_body(ctx: BotContext, draft: Draft, n: int, paid: bool, ahead: Ahead) -> str:
    """Render the screen above the paid lines and the closing question."""
    body = screen_text(ctx, draft, n, paid, ahead) + segment_rows.screen_lines(ctx, draft, n)
    if draft.variants:
        body += variants_line(ctx, draft)
    if draft.ab:
        body += ab_presend.lines(ctx, draft, n)
    if draft.content_type == CONTENT_ALBUM:
        body += ctx.text("wiz_album_parts_line", n=parts(draft))  # exactly the parts the Confirm sends
    if not paid and ctx.settings["broadcast_paid_enabled"]:
        body += ctx.text("wiz_album_free_line")  # paid broadcasts are on, but an album cannot be paid
    return body + presend_rules.lines(ctx.lang, draft, ctx.settings)


def screen_text(ctx: BotContext, draft: Draft, n: int, paid: bool, ahead: Ahead) -> str:
    """Render the audience, recipients, duration, queue and options lines."""
    audience = draft.target
    duration = seconds(ctx, draft, ab_presend.sent_now(draft, n), paid, ahead)
    queued = sum(ahead.values())
    queue = ctx.text("wiz_queue_ahead", n=queued) if queued else ""
    return ctx.text(
        "wiz_preview", audience=ctx.text(f"aud_name_{audience.base}"), filters=filters_text(ctx, audience),
        count=n, duration=format_estimate(duration, ctx.lang), queue=queue + statement_cap_text(ctx, paid),
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
