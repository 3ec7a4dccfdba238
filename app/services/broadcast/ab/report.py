"""What admins see of an A/B test: each version's numbers, the leader, the z-test, when (or whether) the winner goes.

One summary() serves `broadcast ab --json`, the CLI's table and the bot's
job view alike; its counts are one GROUP BY over the test job's items.
"""
from __future__ import annotations

from datetime import timedelta

from app.extensions import db
from app.models.broadcast import CANCELLED, COMPLETED, BroadcastJob
from app.repository import ab as repo
from app.services.broadcast.ab import stats
from app.services.broadcast.ab.versions import ASKED, SENT
from app.services.broadcast.ab.winner import versions_of
from app.services.broadcast.content import ab_content

TEST_NAME = "two-proportion z-test (pooled), leader vs runner-up"
# What picks the winner: the click-through rate, or the rate of recipients who clicked the goal button.
BY_CTR, BY_BUTTON = "ctr", "button"
# When the winner goes, as a word: sent (winner_job says which), nobody left, waiting for an admin, never.
GOES_SENT, GOES_EMPTY, GOES_ADMIN, GOES_NEVER, GOES_AT, GOES_AFTER = (
    "sent", "nobody_left", "admin_pick", "never", "at", "after_test")


def summary(job: BroadcastJob) -> dict:
    """Return a test's numbers: versions, leader, test, winner (or None when the job is no A/B test)."""
    if job.ab_state is None:
        return {}
    versions = versions_of(job.id)
    best, test = stats.leader(versions), stats.confidence(versions)
    winner_job = repo.winner_job_of(job.id)
    db.session.commit()
    goes, at = _goes(job, winner_job)
    return {
        "job": job.id, "status": str(job.status), "state": job.ab_state, "share_percent": job.ab_share,
        "winner_after_seconds": job.ab_wait,
        "rule": rule(job),
        "versions": [{"version": v.letter, "recipients": v.recipients, "delivered": v.delivered,
                      "clicks": v.clicks, "ctr": round(v.ctr, 4),
                      **({} if v.goal is None else {"goal_clicks": v.goal, "goal_rate": round(v.rate, 4)})}
                     for v in versions],
        "leader": best.letter if best else None,
        "test": {"name": TEST_NAME, "z": None if test.z is None else round(test.z, 3),
                 "p_value": None if test.p_value is None else round(test.p_value, 4),
                 "significant": test.significant},
        "winner": job.ab_winner, "winner_job": winner_job, "winner_goes": goes,
        "winner_goes_at": at.strftime("%Y-%m-%dT%H:%M:%SZ") if at else None,
    }


def rule(job: BroadcastJob) -> dict:
    """Return what picks the test's winner: {"by": "ctr"}, or {"by": "button", "position": n, "text": its label}."""
    position = ab_content.goal(job)
    if position is None:
        return {"by": BY_CTR}
    return {"by": BY_BUTTON, "position": position, "text": ab_content.goal_label(job)}


def rule_text(rule_info: dict) -> str:
    """Return the winner's rule in English: "CTR", or "clicks on «TEXT» (button N)"."""
    if rule_info["by"] == BY_CTR:
        return "CTR (recipients who clicked any link, over delivered)"
    return f"clicks on «{rule_info['text']}» (button {rule_info['position']}), over delivered"


def _goes(job: BroadcastJob, winner_job: int | None):
    """Return (when the winner goes, as a word; its time in UTC when known)."""
    if job.ab_state == SENT:
        return (GOES_SENT if winner_job else GOES_EMPTY), None
    if job.status == CANCELLED:
        return GOES_NEVER, None
    if job.ab_state == ASKED:
        return GOES_ADMIN, None
    if job.status == COMPLETED and job.finished_at is not None:
        return GOES_AT, job.finished_at + timedelta(seconds=job.ab_wait or 0)
    return GOES_AFTER, None


def p_text(info: dict) -> str:
    """Return the test's p-value as shown ("p = 0.012", or "p = 0.34, not significant"; "-" when none)."""
    p = info["test"]["p_value"]
    if p is None:
        return "-"
    return f"p = {p:.4f}" + ("" if info["test"]["significant"] else ", not significant")
