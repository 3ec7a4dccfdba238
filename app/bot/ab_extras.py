"""The wizard's A/B versions beyond their text: a version's own buttons, a media version, the winner's button.

At the version step (ab_step), a message in the keyboard builder's form
("TEXT - https://…", a row per line) gives the version just saved buttons of
its own; without them a version carries the shared buttons asked at the end.
A photo, video or other media message (not an album: no button goes under
one, so its clicks could not be counted) is a version copied as it is. On the
pre-send screen "🏆 by CTR" or "🏆 by «TEXT»" chooses the rule that picks the
winner; w.abg carries the goal's position (0: by CTR) and the preview's token.
The draft's `ab` keeps {"versions": [HTML | {"copy": id, "caption": HTML}],
"keys": {letter: keyboard}, "goal": position} beside the share and the wait.
"""
from __future__ import annotations

from dataclasses import replace

from app.bot import drafts
from app.bot.callback_data import build
from app.bot.context import BotContext
from app.services.broadcast.ab import specs
from app.services.broadcast.ab.versions import LETTERS
from app.services.broadcast.content import keyboard, placeholders
from app.services.broadcast.jobs.draft import Draft
from app.texts import t

GOAL_BUTTONS = 3  # the link buttons offered as the winner's measure: a phone's row holds no more


def is_media(message) -> bool:
    """Tell whether the admin's message is a single media message (a version copied as it is)."""
    return message.text is None and any(getattr(message, kind, None) for kind in drafts.MEDIA_KINDS)


def own_buttons(ctx: BotContext, draft: Draft, text: str) -> Draft | None:
    """Give the version saved last buttons of its own from the builder's text; None (answered) when refused."""
    letter = LETTERS[len(draft.ab["versions"]) - 1]
    try:
        kb = keyboard.parse_text(text)
    except keyboard.KeyboardError as exc:
        ctx.reply("ab_keys_refused", v=letter, reason=exc.text(ctx.lang))
        return None
    if not keyboard.url_positions(kb):
        ctx.reply("ab_keys_need_link", v=letter)
        return None
    draft = replace(draft, ab={**draft.ab, "keys": {**draft.ab.get("keys", {}), letter: kb}})
    ctx.reply("ab_keys_saved", v=letter, labels=" · ".join(b["text"] for _, b in keyboard.buttons(kb)))
    return draft


def media_version(ctx: BotContext, message) -> dict | None:
    """Return a media message as a version ({"copy": its id, "caption": its HTML}); None (answered) when refused."""
    if message.media_group_id is not None:
        ctx.reply("ab_album")
        return None
    try:
        drafts.copy_draft(message)
    except drafts.DraftError as exc:
        ctx.reply(exc.key, **exc.values)
        return None
    try:  # a media version is copied as it is: its caption's placeholders would reach users as typed
        placeholders.check(message.caption_html, False, "the caption")
    except placeholders.PlaceholderRefused:
        ctx.reply("ab_copy_placeholder")
        return None
    return {"copy": message.message_id, "caption": message.caption_html or ""}


def shared_keyboard(draft: Draft) -> dict | None:
    """Return the buttons every version without its own carries, as the job will hold them (the link folded in)."""
    if draft.keyboard:
        return keyboard.fold(draft.keyboard, draft.button_text, draft.button_url, None)
    if draft.button_url:
        return {"rows": [[{"kind": "url", "text": draft.button_text, "url": draft.button_url}]]}
    return None


def versions(draft: Draft) -> list[dict]:
    """Return the test's versions as ab/specs.check takes them: each text or copy with its own buttons."""
    keys = draft.ab.get("keys", {})
    out = []
    for letter, version in zip(LETTERS, draft.ab["versions"], strict=False):
        one = dict(version) if isinstance(version, dict) else {"text": version}
        out.append({**one, **({"keyboard": keys[letter]} if letter in keys else {})})
    return out


def goals(draft: Draft) -> list[tuple[int, str]]:
    """Return the link buttons (position, text in A) at the same place in every version, when there is a choice."""
    keys = draft.ab.get("keys", {})
    own = {letter: ({"keyboard": keys[letter]} if letter in keys else {})
           for letter in LETTERS[:len(draft.ab["versions"])]}
    boards = specs.effective(own, shared_keyboard(draft))
    links = [{pos: b["text"] for pos, b in keyboard.buttons(kb) if b["kind"] == "url"} for kb in boards.values()]
    if not links or max(len(found) for found in links) < 2:
        return []  # one link per version: its clicks are the CTR
    common = set.intersection(*(set(found) for found in links))
    first = links[0]
    return [(pos, first[pos]) for pos in sorted(common)][:GOAL_BUTTONS]


def goal_row(lang: str, draft: Draft, preview_id: str) -> list[list[dict]]:
    """Return the pre-send row that chooses the winner's rule (✅ marks the chosen one); none without a choice."""
    offered = goals(draft) if draft.ab else []
    if not offered:
        return []
    chosen = draft.ab.get("goal") or 0
    choices = [(0, t("btn_ab_goal_ctr", lang))] + [(pos, t("btn_ab_goal", lang, text=text)) for pos, text in offered]
    return [[{"text": label + (" ✅" if pos == chosen else ""), "callback_data": build("ab_goal", pos, preview_id)}
             for pos, label in choices]]


def rule_line(ctx: BotContext, draft: Draft) -> str:
    """Say on the pre-send screen what picks the winner."""
    chosen = dict(goals(draft)).get(draft.ab.get("goal") or 0)
    return ctx.text("ab_presend_rule_button", text=chosen) if chosen else ctx.text("ab_presend_rule_ctr")


def set_goal(draft: Draft, position: int) -> Draft:
    """Return the draft with the winner ranked by this button (0: by CTR); a position not offered is CTR."""
    return replace(draft, ab={**draft.ab, "goal": position if position in dict(goals(draft)) else None})
