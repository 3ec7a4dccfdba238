"""Create, read, pause, resume and stop drip chains (the CLI and the bot call these)."""
from __future__ import annotations

from dataclasses import dataclass

from app.extensions import db
from app.models.broadcast import CONTENT_TEXT, KIND_SEND, BroadcastJob
from app.models.chain import CLICKED, Chain, ChainStep
from app.repository import chains as repo
from app.repository.db_clock import db_utcnow
from app.services import audit
from app.services.broadcast.jobs import creation
from app.services.chains.rules import RuleError, StepSpec, Trigger, check_name, delay_text

CHAIN_CREATED, CHAIN_PAUSED, CHAIN_RESUMED, CHAIN_STOPPED = ("chain_created", "chain_paused", "chain_resumed",
                                                             "chain_stopped")
# waiting: claims the daily cap held back, sent from the next Tehran day (their cap skips are not in skipped).
STAT_KEYS = ("claimed", "jobs", "delivered", "failed", "skipped", "pending", "not_sent", "waiting")
_CLAIMS = ("claimed", "waiting")  # read from the claims, not the jobs


@dataclass(frozen=True)
class StepView:
    """One step with its numbers (from its jobs' counters, and the claims)."""

    id: int
    position: int
    delay: str
    text: str
    stats: dict

    def as_dict(self) -> dict:
        """Return a JSON-safe dict."""
        return {"id": self.id, "position": self.position, "delay": self.delay, "text": self.text, **self.stats}


@dataclass(frozen=True)
class ChainView:
    """A chain and its steps, read in one transaction."""

    id: int
    name: str
    status: str
    trigger: str
    button_text: str | None
    button_url: str | None
    created_at: str
    steps: list[StepView]

    def as_dict(self) -> dict:
        """Return a JSON-safe dict."""
        return {"id": self.id, "name": self.name, "status": self.status, "trigger": self.trigger,
                "button_text": self.button_text, "button_url": self.button_url, "created_at": self.created_at,
                "steps": [s.as_dict() for s in self.steps]}


def create(name: str, trigger: Trigger, steps: list[StepSpec], *, button_text: str | None = None,
           button_url: str | None = None, created_by: int | None = None, actor: str | None = None) -> int:
    """Check everything, then store the chain and its steps; return its id. Raises RuleError or ValueError, one line.

    Each step's text is checked as `broadcast create --text` checks it
    (Telegram's HTML, its length with {first_name}), and the button as any
    broadcast's: a chain Telegram would refuse is refused here, before it exists.
    """
    name = check_name(name)
    for spec in steps:
        try:
            creation.check_content("all", {"type": CONTENT_TEXT, "text": spec.text}, button_text, button_url, None)
        except ValueError as exc:
            raise RuleError(f"step {steps.index(spec) + 1}: {exc}") from None
    if trigger.kind == CLICKED:
        job = db.session.get(BroadcastJob, int(trigger.value))
        if job is None or job.kind != KIND_SEND:
            db.session.rollback()
            raise RuleError(f"trigger clicked:{trigger.value}: no broadcast job {trigger.value}")
    chain = Chain(name=name, status="active", trigger_kind=trigger.kind, trigger_value=trigger.value,
                  button_text=button_text or None, button_url=button_url or None, created_by=created_by,
                  created_at=db_utcnow())
    rows = [ChainStep(position=i, delay_seconds=s.delay_seconds, text=s.text) for i, s in enumerate(steps, 1)]
    repo.add(chain, rows)
    audit.record(actor, CHAIN_CREATED, None, f"chain #{chain.id} {name!r} trigger={trigger} steps={len(rows)}")
    db.session.commit()
    return chain.id


def trigger_text(chain: Chain) -> str:
    """Return a chain's trigger as the CLI takes it (joined, tag:vip, inactive:30, ...)."""
    return str(Trigger(chain.trigger_kind, chain.trigger_value))


def view(chain_id: int) -> ChainView | None:
    """Return a chain with its steps and their numbers, or None."""
    chain = repo.get(chain_id)
    if chain is None:
        db.session.commit()
        return None
    steps = repo.steps_of(chain_id)
    ids = [s.id for s in steps]
    counters, claimed, waiting = repo.step_counters(ids), repo.claimed_counts(ids), repo.waiting_counts(ids)
    views = [StepView(s.id, s.position, delay_text(s.delay_seconds), s.text,
                      {"claimed": claimed.get(s.id, 0), **_zero(counters.get(s.id)), "waiting": waiting.get(s.id, 0)})
             for s in steps]
    found = ChainView(chain.id, chain.name, chain.status, trigger_text(chain), chain.button_text, chain.button_url,
                      chain.created_at.isoformat(timespec="seconds") + "Z", views)
    db.session.commit()
    return found


def _zero(counters: dict | None) -> dict:
    """Return a step's job counters, zeros when it has made no job yet."""
    counters = counters or {}
    return {k: counters.get(k, 0) for k in STAT_KEYS if k not in _CLAIMS}


def newest(limit: int = 20) -> list[ChainView]:
    """Return the newest chains first, with their steps' numbers."""
    ids = [c.id for c in repo.newest(limit)]
    db.session.commit()
    return [v for v in (view(i) for i in ids) if v is not None]


def _change(chain_id: int, change, action: str, actor: str | None) -> bool:
    """Run one guarded change with its audit entry; True if it happened."""
    done = change(chain_id)
    if done:
        audit.record(actor, action, None, f"chain #{chain_id}")
    db.session.commit()
    return done


def pause(chain_id: int, actor: str | None) -> bool:
    """active -> paused: no new claims; jobs already made run."""
    return _change(chain_id, repo.pause, CHAIN_PAUSED, actor)


def resume(chain_id: int, actor: str | None) -> bool:
    """paused -> active: claims start again, with what came due meanwhile."""
    return _change(chain_id, repo.resume, CHAIN_RESUMED, actor)


def stop(chain_id: int, actor: str | None) -> bool:
    """active|paused -> stopped, for good; jobs already made run (cancel them with `broadcast cancel`)."""
    return _change(chain_id, repo.stop, CHAIN_STOPPED, actor)


def status_of(chain_id: int) -> str | None:
    """Return a chain's status, or None when there is none."""
    chain = repo.get(chain_id)
    status = chain.status if chain else None
    db.session.commit()
    return status
