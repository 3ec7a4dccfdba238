"""Shared pieces of the bad-input properties: settings, a job in every state, snapshots, response checks."""
from __future__ import annotations

import json

from hypothesis import HealthCheck, settings
from sqlalchemy import func, select

from app.extensions import db
from app.models import AdminState, BroadcastJob, BroadcastJobItem, Setting, User
from app.models.broadcast import SENDING, TERMINAL
from app.services.broadcast.jobs import control
from tests.broadcast.helpers import BASE_ID, create_text_job, create_users
from tests.conftest import WEBHOOK_SECRET
from tests.reliability.helpers import assert_no_secret, use_settings

WEBHOOK = "/telegram/webhook"
SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"
# Never 500; 503 is the documented "database unavailable, retry later" and needs a sick database.
ALLOWED_STATUSES = {200, 400, 401, 403, 405, 413, 503}
DB_503 = {"ok": False, "error": "database unavailable, retry later"}
JOB_COLUMNS = ("id", "status", "sent_count", "failed_count", "skipped_count", "unknown_count", "total_count",
               "pause_reason", "lease_token", "lease_expires_at", "not_before", "active_slot", "created_by",
               "progress_chat_id", "progress_message_id", "finished_at", "text", "button_url")


def fuzz(max_examples: int):
    """Hypothesis settings for one property: modest example counts, no deadline (2 shared cores)."""
    return settings(max_examples=max_examples, deadline=None, suppress_health_check=[
        HealthCheck.function_scoped_fixture, HealthCheck.too_slow, HealthCheck.data_too_large,
        HealthCheck.filter_too_much])


def jobs_in_every_state() -> list[int]:
    """Create recipients and four jobs: running, queued, paused, cancelled; return their ids."""
    create_users(5)
    use_settings(webhook_pump_calls=1, webhook_pump_seconds=1)
    running = create_text_job(text="first").id
    queued = create_text_job(text="second").id
    paused = create_text_job(text="third").id
    cancelled = create_text_job(text="fourth").id
    assert control.pause_job(paused) and control.cancel_job(cancelled)
    return [running, queued, paused, cancelled]


def snapshot() -> dict:
    """Everything an outsider must never be able to change."""
    db.session.expire_all()
    rows = db.session.execute(select(*(getattr(BroadcastJob, c) for c in JOB_COLUMNS)).order_by(BroadcastJob.id))
    items = db.session.execute(select(BroadcastJobItem.job_id, BroadcastJobItem.status, func.count())
                               .group_by(BroadcastJobItem.job_id, BroadcastJobItem.status))
    state = {
        "jobs": [tuple(r) for r in rows],
        "items": sorted(tuple(r) for r in items),
        "settings": sorted((s.key, s.value) for s in db.session.execute(select(Setting)).scalars()),
        "admin_states": sorted((s.admin_id, s.step, s.draft) for s in db.session.execute(select(AdminState)).scalars()),
        "admins": db.session.execute(select(func.count()).select_from(User).where(User.is_admin.is_(True))).scalar(),
    }
    db.session.commit()
    return state


def tally(figures: dict, prop: str, response) -> None:
    """Count one example's answer (status and bot outcome) under the property's name in the run's figures."""
    outcome = ""
    if response.status_code == 200 and response.is_json:
        outcome = " " + str((response.get_json() or {}).get("outcome", ""))
    counts = figures.setdefault("bad_input", {}).setdefault(prop, {})
    key = f"{response.status_code}{outcome}".strip()
    counts[key] = counts.get(key, 0) + 1


def check_http(response, where: str) -> str:
    """Never a 500, only the documented 503, never a secret; return the body text."""
    body = response.get_data(as_text=True)
    assert response.status_code in ALLOWED_STATUSES, (where, response.status_code, body[:300])
    if response.status_code == 503:
        assert response.get_json() == DB_503, body[:300]
    assert_no_secret(body, where)
    return body


def post_webhook(client, body: bytes | str, *, secret: str | None = WEBHOOK_SECRET,
                 content_type: str = "application/json"):
    """POST a raw body to the webhook with an optional secret header."""
    headers = {"Content-Type": content_type}
    if secret is not None:
        headers[SECRET_HEADER] = secret
    return client.post(WEBHOOK, data=body, headers=headers)


def sender_of(body) -> int | None:
    """Return the id of the user an update comes from, read as the app reads it (PTB's effective_user), or None."""
    from app.bot.dispatcher import parse_update

    if isinstance(body, (bytes, str)):
        try:
            body = json.loads(body)
        except ValueError:
            return None
    if not isinstance(body, dict):
        return None
    try:
        update = parse_update(body)
        user = update.effective_user if update is not None else None
        return user.id if user is not None else None
    except Exception:  # noqa: BLE001 - a shape PTB cannot read has no sender
        return None


def post_update(client, simulator, update: dict):
    """POST an Update like Telegram would, after telling the simulator what it implies."""
    from app.simulator.webhook import register_update

    try:
        register_update(simulator.state, update)
    except Exception:  # noqa: BLE001 - a fuzzed update may be junk to the simulator too; the app still gets it
        pass
    return post_webhook(client, json.dumps(update, ensure_ascii=False).encode("utf-8"))


def assert_replies_clean(simulator, since: int) -> None:
    """Nothing the bot sent to Telegram since delivery number `since` carries a secret."""
    for delivery in simulator.deliveries()[since:]:
        assert_no_secret(json.dumps(delivery, ensure_ascii=False, default=str), "a bot message")


def assert_jobs_sane(terminal_seen: dict[int, str]) -> None:
    """Counters equal tallies, nothing is left in flight, terminal states never change, one job runs."""
    db.session.expire_all()
    running = 0
    for job in db.session.execute(select(BroadcastJob)).scalars():
        counts = dict(db.session.execute(select(BroadcastJobItem.status, func.count())
                                         .where(BroadcastJobItem.job_id == job.id)
                                         .group_by(BroadcastJobItem.status)).all())
        assert counts.get(SENDING, 0) == 0, (job.id, counts)
        assert (job.sent_count, job.failed_count, job.skipped_count, job.unknown_count) == (
            counts.get("sent", 0), counts.get("failed", 0), counts.get("skipped", 0), counts.get("unknown", 0))
        if job.id in terminal_seen:
            assert job.status == terminal_seen[job.id], f"terminal job {job.id} changed to {job.status}"
        elif job.status in TERMINAL:
            terminal_seen[job.id] = job.status
        running += job.status == "running"
    db.session.commit()
    assert running <= 1


def broadcast_copies(simulator) -> list[tuple[int, str]]:
    """Return (recipient, text) of every broadcast copy delivered so far."""
    return [(d["chat_id"], d["text"]) for d in simulator.deliveries("sendMessage") if d["chat_id"] >= BASE_ID]
