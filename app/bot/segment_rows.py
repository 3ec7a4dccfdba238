"""What the wizard shows of segments: the audience step's row, the pre-send lines and row (taps: segment_step)."""
from __future__ import annotations

from dataclasses import replace

from app.bot.callback_data import build
from app.bot.context import BotContext
from app.services.audience import segments
from app.services.broadcast.jobs.draft import Draft
from app.texts import t


def audience_row(lang: str, draft_id: str) -> list[list[dict]]:
    """Return the audience step's "📁 Segments" row, or none while no segment is saved."""
    if not segments.page(1)[1]:
        return []
    return [[{"text": t("btn_segments", lang), "callback_data": build("segments", 1, draft_id)}]]


def screen_lines(ctx: BotContext, draft: Draft, n: int) -> str:
    """Return the pre-send screen's segment lines: its name, and the count with and without the exclusions."""
    if draft.segment_id is None and not draft.exclude_ids:
        return ""
    target = segments.of_draft(draft)
    text = ctx.text("seg_line", name=target.segment) if target.segment else ""
    if target.excludes:
        whole = segments.count_rule(replace(target, excludes=()))
        text += ctx.text("seg_excluded_line", names=ctx.text("list_sep").join(target.exclude_names),
                         count=n, whole=whole)
    return text


def screen_rows(lang: str, preview_id: str) -> list[list[dict]]:
    """Return the pre-send screen's "leave out a segment" row, or none while no segment is saved."""
    if not segments.page(1)[1]:
        return []
    return [[{"text": t("btn_exclude_segments", lang), "callback_data": build("exclude_list", 1, preview_id)}]]
