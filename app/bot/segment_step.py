"""The wizard's saved segments: choose one as the audience, leave segments out, and their lines on the screen.

Buttons carry segment ids (a name may be 64 Persian letters, 128 bytes:
more than callback data holds) and the draft's or preview's token, as every
wizard button does. A segment deleted after its button was drawn answers
so, in words, and offers the list again.
"""
from __future__ import annotations

from dataclasses import replace

from app.bot import presend
from app.bot.broadcast_wizard import audience_chosen
from app.bot.buttons import button
from app.bot.callback_data import build
from app.bot.context import BotContext
from app.bot.wizard_state import DRAFT_ID, PREVIEW_ID, STEP_AUDIENCE, STEP_PREVIEW, current_wizard_draft
from app.services.audience import segments
from app.services.audience.segments import SegmentMissing
from app.services.broadcast.jobs.draft import Draft
from app.texts import t

PAGE = 8  # segments per list message: one button each, then the page buttons


def _list(ctx: BotContext, page: int, token: str, action: str, list_action: str, marked: set[int],
          skip: int | None = None) -> bool:
    """Send one page of segments as buttons (action per segment, ✅ on marked); False when there is none."""
    rows, total = segments.page(PAGE, (page - 1) * PAGE)
    rows = [s for s in rows if s.id != skip]
    if not rows and page == 1:
        return False
    pages = max((total + PAGE - 1) // PAGE, 1)
    buttons = [[{"text": s.name + (" ✅" if s.id in marked else ""), "callback_data": build(action, s.id, token)}]
               for s in rows]
    nav = [{"text": t(key, ctx.lang), "callback_data": build(list_action, to, token)}
           for key, to, shown in (("btn_seg_prev", page - 1, page > 1), ("btn_seg_next", page + 1, page < pages))
           if shown]
    key = "seg_choose" if action == "segment" else "seg_choose_exclude"
    ctx.reply(key, {"inline_keyboard": buttons + ([nav] if nav else [])}, page=page, pages=pages)
    return True


@button("w.segs")
def on_segments(ctx: BotContext, token: str, page: int) -> None:
    """List the saved segments (one page) to choose the audience from."""
    draft = current_wizard_draft(ctx, (STEP_AUDIENCE, STEP_PREVIEW), DRAFT_ID, token)
    if draft is None:
        return
    if not _list(ctx, page, token, "segment", "segments", set()):
        ctx.answer("seg_none", alert=True)
        return
    ctx.answer()


@button("w.seg")
def on_segment(ctx: BotContext, token: str, segment_id: int) -> None:
    """Choose a segment as the audience (no exclusions yet) and show the preview and pre-send screen."""

    state = current_wizard_draft(ctx, (STEP_AUDIENCE, STEP_PREVIEW), DRAFT_ID, token)
    if state is None:
        return
    segment = segments.get_by_id(segment_id)
    if segment is None:
        ctx.answer("seg_gone", alert=True)
        _list(ctx, 1, token, "segment", "segments", set())
        return
    audience_chosen(ctx, replace(state.without_preview().with_target(segments.rule_of(segment).audience),
                                 segment_id=segment.id, exclude_ids=None))


@button("w.xsegs")
def on_exclude_list(ctx: BotContext, token: str, page: int) -> None:
    """List the segments to leave out (✅: left out now); a press re-renders the screen under that list."""
    draft = current_wizard_draft(ctx, (STEP_PREVIEW,), PREVIEW_ID, token)
    if draft is None:
        return
    if not _list(ctx, page, token, "exclude_toggle", "exclude_list", set(draft.exclude_ids or ()), draft.segment_id):
        ctx.answer("seg_none_to_exclude", alert=True)
        return
    ctx.answer()


@button("w.xseg")
def on_exclude_toggle(ctx: BotContext, token: str, segment_id: int) -> None:
    """Leave a segment's users out, or put them back; the screen shows the counts with and without."""
    def change(draft: Draft) -> Draft:
        ids = list(draft.exclude_ids or ())
        if segment_id in ids:
            ids.remove(segment_id)
        elif segments.get_by_id(segment_id) is None:
            raise SegmentMissing(f"segment #{segment_id} was deleted")
        else:
            ids.append(segment_id)
        return replace(draft, exclude_ids=ids or None)

    try:
        presend.retoggle(ctx, token, change)
    except SegmentMissing:
        ctx.answer("seg_gone", alert=True)
