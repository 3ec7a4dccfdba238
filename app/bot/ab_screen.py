"""A/B tests in the job view: the versions side by side with the 🏆 pick buttons; a winner job names its test."""
from __future__ import annotations

from app.bot.buttons import button
from app.bot.context import BotContext
from app.services import audit
from app.services.broadcast.ab import cron as ab_cron
from app.services.broadcast.ab import report, winner
from app.services.broadcast.ab.versions import OPEN_STATES
from app.services.broadcast.content import variants as variants_service
from app.services.broadcast.jobs import control
from app.services.settings import load_settings
from app.texts import t

_GOES = {report.GOES_SENT: "ab_goes_sent", report.GOES_EMPTY: "ab_goes_empty", report.GOES_ADMIN: "ab_goes_admin",
         report.GOES_NEVER: "ab_goes_never", report.GOES_AT: "ab_goes_at", report.GOES_AFTER: "ab_goes_after"}


def decorate(job, lang: str, text: str, markup: dict | None) -> tuple[str, dict | None]:
    """Add a test's versions (and its pick buttons while it is open), or a winner's test, to a job view."""
    if job.ab_of is not None:
        return text + t("ab_winner_of", lang, test=job.ab_of, v=_winner_letter(job)), markup
    info = report.summary(job)
    if not info:
        return text, markup
    text += versions_text(info, lang)
    if job.ab_state in OPEN_STATES and str(job.status) not in ("cancelled", "draft", "scheduled"):
        picks = ab_cron.pick_keyboard(job.id, list(variants_service.of(job)), lang).to_dict()["inline_keyboard"]
        markup = {"inline_keyboard": picks + (markup or {}).get("inline_keyboard", [])}
    return text, markup


def _winner_letter(job) -> str:
    """Return the letter of the version a winner job sends (its test's ab_winner)."""
    test = control.get_job(job.ab_of)
    return (test.ab_winner if test is not None else None) or "?"


def versions_text(info: dict, lang: str) -> str:
    """Render the versions side by side (pure): counts, CTR, the leader, the z-test, when the winner goes."""
    rule = info["rule"]
    out = t("ab_title", lang, share=info["share_percent"], n=len(info["versions"]), rule=rule_text(rule, lang))
    for v in info["versions"]:
        out += t("ab_row", lang, v=v["version"], recipients=v["recipients"], delivered=v["delivered"],
                 clicks=v["clicks"], ctr=f"{v['ctr'] * 100:.1f}")
        if "goal_clicks" in v:
            out += t("ab_row_goal", lang, goal=v["goal_clicks"], text=rule["text"], rate=f"{v['goal_rate'] * 100:.1f}")
    out += t("ab_leader", lang, v=info["leader"]) if info["leader"] else t("ab_no_leader", lang)
    p, test = info["test"]["p_value"], info["test"]
    shown = (t("ab_p_none", lang) if p is None else
             t("ab_p" if test["significant"] else "ab_p_weak", lang, p=f"{p:.4f}"))
    out += t("ab_test", lang, p=shown)
    wait = f"{(info['winner_after_seconds'] or 0) // 60} min"
    return out + t(_GOES[info["winner_goes"]], lang, v=info["winner"], job=info["winner_job"],
                   when=(info["winner_goes_at"] or "").replace("T", " ").rstrip("Z"), wait=wait)


def rule_text(rule: dict, lang: str) -> str:
    """Say what picks the winner: the CTR, or clicks on one button (by its text)."""
    if rule["by"] == report.BY_BUTTON:
        return t("ab_rule_button", lang, text=rule["text"])
    return t("ab_rule_ctr", lang)


@button("ab.pick")
def on_pick(ctx: BotContext, arg: str) -> None:
    """🏆 Send this version to the rest now: the winner job is made once, whoever presses first."""
    test_id, letter = arg.split(".")
    try:
        made = winner.pick(int(test_id), letter, actor=audit.admin_actor(ctx.user_id), settings=load_settings())
    except winner.NotPickable:
        ctx.answer("ab_pick_refused", alert=True)
        return
    if made is None:
        ctx.answer("ab_picked_empty", v=letter)
        return
    ctx.answer("ab_picked", v=letter, job=made)
