"""Chains at cron time: the (step, user) pairs that came due, claimed once, each step's new ones one broadcast job.

Per step and cron pass, one transaction (app.repository.chains): lock the
active chain's row, insert the step's draft job, claim the due users into
chain_deliveries (UNIQUE step+user) naming that job, add one item per claim
(the engine's own WHERE: not blocked, not opted out), set the total and queue
it, with its audit entry. Two passes run one after the other on the chain's
lock; a pass killed anywhere leaves all of it or nothing, and the next pass
claims the same users again. The job is then an ordinary job: the bot-wide
budget, quiet hours, the daily cap, at most once and the counters hold as for
any broadcast. A user the daily cap skipped in a step's job is not done with
the step: the pump set their claim to wait, and the first pass of the next
Tehran day points it at that pass's job for the step (see sending/rules.py).
"""
from __future__ import annotations

import logging
from datetime import datetime

from app.extensions import db
from app.models.broadcast import CONTENT_TEXT
from app.repository import broadcast_jobs as jobs_repo
from app.repository import chains as repo
from app.repository.db_clock import db_utcnow
from app.repository.deadlocks import in_transaction
from app.services import audit
from app.services.broadcast.jobs import control, creation

log = logging.getLogger(__name__)
# Users claimed per step and pass: one transaction stays short; the rest come in the next minute's pass.
CLAIM_LIMIT = 10_000


def run_due(settings: dict, *, now: datetime | None = None) -> list[int]:
    """Make the job of every step with users due now; return the jobs made (cron's pass, safe to run concurrently).

    now (naive UTC) is the database's clock unless a test passes its own. A
    chain that fails is logged and left for the next pass.
    """
    now = now or db_utcnow()
    chain_ids = repo.active_ids()
    db.session.commit()
    made: list[int] = []
    for chain_id in chain_ids:
        try:
            made += run_chain(chain_id, now, settings)
        except Exception:
            db.session.rollback()
            log.exception("chain %s: its due steps could not be claimed", chain_id)
    if made:
        control.start_next_if_idle()
    return made


def run_chain(chain_id: int, now: datetime, settings: dict) -> list[int]:
    """Claim each step's due users of one chain into one job per step; return the jobs made."""
    chain = repo.get(chain_id)
    if chain is None:
        db.session.commit()
        return []
    steps = repo.steps_of(chain_id)
    for row in (chain, *steps):
        db.session.expunge(row)  # plain values from here: every transaction below starts fresh
    made, previous = [], None
    for step in steps:
        where = repo.due_where(chain, step, previous, now)
        previous = step.id
        due = repo.any_due(where) or repo.any_waiting(step.id, now)
        db.session.commit()
        if not due:
            continue
        job_id = in_transaction(lambda s=step, w=where: _claim_step(chain, s, w, now, settings))
        if job_id is not None:
            log.info("chain %s step %s: job %s made", chain_id, step.position, job_id)
            made.append(job_id)
    return made


def _claim_step(chain, step, where: list, now: datetime, settings: dict) -> int | None:
    """One transaction: the chain locked, the step's job, its claims and items, queued; None if nothing was due."""
    if not repo.lock_active(chain.id):
        return None  # paused or stopped meanwhile: no new claim
    _, fields, _ = creation.check_content("all", {"type": CONTENT_TEXT, "text": step.text}, chain.button_text,
                                          chain.button_url, None)
    job = creation.insert_draft({**settings, "broadcast_paid_enabled": False}, audience="all",
                                created_by=chain.created_by, button_text=chain.button_text,
                                button_url=chain.button_url, progress_chat_id=None, progress_lang="fa",
                                created_at=now, chain_step_id=step.id, **fields)
    claimed = repo.claim(step.id, job.id, where, now, CLAIM_LIMIT)
    claimed += repo.reclaim_waiting(step.id, job.id, now, CLAIM_LIMIT - claimed)  # the cap held these a day
    total = repo.populate_job(job.id, now) if claimed else 0
    if total == 0:
        jobs_repo.delete_draft(job.id)  # another pass claimed them first: no job, no claim
        return None
    jobs_repo.set_total(job.id, total)
    jobs_repo.queue_draft(job.id)
    audit.record(audit.ACTOR_CRON, audit.CREATED, job.id,
                 f"chain=#{chain.id} step={step.position} total={total}")
    return job.id
