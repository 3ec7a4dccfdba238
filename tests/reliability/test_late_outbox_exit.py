"""A gunicorn worker that exits while its late outbox holds an admin's replies sends them first.

The admin's chat is booked 3 s ahead (as another process's messages to it
would), so the replies to the admin's two messages cannot go out in their
requests and wait in the worker's late outbox (docs/BROADCAST.md, "Replies
to a busy chat"). The worker is then stopped (SIGTERM, a deploy) or recycled
(--max-requests) at once; what the simulated Bot API delivered to the
admin's chat is checked once gunicorn has gone.
"""
from __future__ import annotations

import time

import pytest
import requests

from app.extensions import db
from app.repository.budget import chats as chats_repo
from app.repository.budget.engine import budget_engine
from app.simulator.updates import message_update
from app.simulator.webhook import register_update
from app.texts import t
from tests.conftest import ADMIN_ID, WEBHOOK_SECRET
from tests.reliability.helpers import process_env, start_gunicorn, stop_process

BUSY_SECONDS = 3.0
# Longer than the exit flush's bound (LATE_EXIT_SECONDS), as deploy/systemd's 60 s is.
GRACEFUL_SECONDS = 30


def post_admin(base: str, simulator, text: str) -> None:
    """POST one admin message to the webhook as Telegram would."""
    update = message_update(ADMIN_ID, text)
    register_update(simulator.state, update)
    response = requests.post(f"{base}/telegram/webhook", json=update, timeout=30,
                             headers={"X-Telegram-Bot-Api-Secret-Token": WEBHOOK_SECRET})
    assert response.status_code == 200, response.text


def texts_to_admin(simulator) -> list[str]:
    """Return the texts the admin's chat received, in order."""
    return [d["text"] for d in simulator.deliveries("sendMessage", ADMIN_ID)]


def queue_late_replies(base: str, simulator) -> float:
    """Leave the replies to /cancel and /help in the worker's late outbox; return the wall time the posts ended."""
    chats_repo.reserve_chat(budget_engine(db.engine), ADMIN_ID, round(BUSY_SECONDS * 1_000_000), 0)
    post_admin(base, simulator, "/cancel")
    post_admin(base, simulator, "/help")
    assert texts_to_admin(simulator) == [], "a reply went out in its request: nothing was left late"
    return time.time()


def assert_delivered_at_exit(simulator, log_text: str, posted_at: float) -> None:
    """Both replies arrived, in order, after the requests had returned, a chat slot apart, with no 429."""
    deliveries = simulator.deliveries("sendMessage", ADMIN_ID)
    assert len(deliveries) == 2, (texts_to_admin(simulator), log_text[-3000:])
    assert deliveries[0]["text"] == t("nothing_to_cancel")
    assert all(d["t"] > posted_at for d in deliveries)
    assert deliveries[1]["t"] - deliveries[0]["t"] >= 1.0
    assert simulator.stats()["429_total"] == 0
    assert "process exiting: sending 2 late replies first" in log_text
    assert "did not fit" not in log_text


@pytest.mark.timeout(120)
def test_a_stopped_worker_sends_the_admins_late_replies_before_it_exits(app, simulator, database_url, tmp_path):
    log_path = tmp_path / "gunicorn.log"
    server, base = start_gunicorn(process_env(database_url, simulator), log_path, workers=1,
                                  graceful_timeout=GRACEFUL_SECONDS)
    try:
        posted_at = queue_late_replies(base, simulator)
        server.terminate()  # a deploy or `systemctl stop`: the worker exits while the replies wait
        assert server.wait(GRACEFUL_SECONDS) == 0
    finally:
        stop_process(server)
    assert_delivered_at_exit(simulator, log_path.read_text(errors="replace"), posted_at)


@pytest.mark.timeout(120)
def test_a_recycled_worker_sends_the_admins_late_replies_before_it_exits(app, simulator, database_url, tmp_path):
    log_path = tmp_path / "gunicorn.log"
    # The readiness probe's /healthz, then the two posts: the worker recycles right after the second.
    server, base = start_gunicorn(process_env(database_url, simulator), log_path, workers=1,
                                  graceful_timeout=GRACEFUL_SECONDS, extra=("--max-requests", "3"))
    try:
        posted_at = queue_late_replies(base, simulator)
        deadline = time.monotonic() + GRACEFUL_SECONDS
        while len(texts_to_admin(simulator)) < 2 and time.monotonic() < deadline:
            time.sleep(0.1)
        log_text = log_path.read_text(errors="replace")
        assert "Worker exiting" in log_text, "the worker was not recycled"
    finally:
        stop_process(server)
    assert_delivered_at_exit(simulator, log_path.read_text(errors="replace"), posted_at)
