"""A pump marking a user blocked while that user presses a button of the same job: one lock order, no deadlock.

The pump's recording step and the press both lock the user's row and the
job's row (app/repository/presses.py). The press runs through the webhook
in a thread of its own, started while the pump's step holds what it locks
first; both must finish without a deadlock victim, and every count is exact.
Also: two presses of the unsubscribe button at once count once (both databases).
"""
from __future__ import annotations

import logging
import threading
import time

import pytest
from sqlalchemy import event, text

from app.extensions import db
from app.services.audience import tap
from app.services.broadcast.jobs import creation
from app.services.broadcast.reporting import unsubscribes
from app.services.broadcast.sending.drain import pump
from app.simulator.updates import callback_update
from tests.audience.helpers import tags_of
from tests.bot.wizard import send
from tests.broadcast.helpers import at_once, create_users, engine_settings, reload
from tests.factories import get_user, post_update
from tests.reliability import test_deadlocks as dl

raw_engine = dl.raw_engine  # the fixture: a second engine on the test database (MariaDB only)
pytestmark = pytest.mark.usefixtures("fast_bot")
BUTTONS = {"tap": tap.callback_data, "unsubscribe": unsubscribes.callback_data}


def _wait_until_waiting_or_done(probe, press: threading.Thread) -> None:
    """Return once the press has waited on a lock in this database for a moment, or has finished."""
    deadline = time.monotonic() + dl.WAIT
    while time.monotonic() < deadline and press.is_alive():
        if probe.execute(text("SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE db = DATABASE() "
                              "AND command = 'Query' AND time_ms > 50 AND info NOT LIKE '%PROCESSLIST%'")).scalar():
            return
        time.sleep(0.01)
    assert not press.is_alive(), "the press neither waited on a lock nor finished"


@dl.mysql_only
@pytest.mark.parametrize("kind", sorted(BUTTONS))
def test_a_pump_marking_a_user_blocked_while_they_press_its_button_runs_both_without_a_deadlock(
        app, client, simulator, raw_engine, caplog, kind):
    [user] = create_users(1)
    settings = engine_settings()
    job = creation.create_job(audience="all", created_by=None, content={"type": "text", "text": "جشنواره!"},
                              optout_button=True, tap={"text": "🎁", "tag": "festival"}, settings=settings)
    simulator.block(user)  # the send answers 403: the pump's next step marks the user blocked
    pumping, press_result, update = threading.get_ident(), {}, callback_update(user, BUTTONS[kind](job.id), user, 1)

    def press() -> None:
        response = post_update(client, update, sim=simulator)
        press_result.update(status=response.status_code, body=response.get_json())

    presser = threading.Thread(target=press, daemon=True)

    def after(conn, cursor, statement, parameters, context, executemany):
        # The step recording the 403: its fence moves skipped_count. Whatever the pump locked before
        # it and with it is held now; the press starts and runs until it waits (or is done).
        if (threading.get_ident() == pumping and not presser.is_alive() and not press_result
                and statement.startswith("UPDATE broadcast_jobs") and "skipped_count" in statement):
            presser.start()
            with raw_engine.connect() as probe:
                _wait_until_waiting_or_done(probe, presser)

    event.listen(db.engine, "after_cursor_execute", after)
    try:
        with caplog.at_level(logging.INFO):
            result = pump(job.id, 30, settings=settings)
    finally:
        event.remove(db.engine, "after_cursor_execute", after)
    presser.join(dl.WAIT)
    assert presser.ident is not None and not presser.is_alive()
    assert "deadlock" not in caplog.text.lower()  # neither the pump's step nor the press was a victim
    assert press_result == {"status": 200, "body": {"ok": True, "outcome": "handled"}}
    assert result.stop == "done"
    row, pressed = reload(job.id), get_user(user)
    assert (row.status, row.skipped_count, pressed.is_blocked) == ("completed", 1, True)
    if kind == "tap":
        assert (row.tap_presses, row.tap_tagged, tags_of(user) >= {"festival"}) == (1, 1, True)
    else:
        assert (row.unsubscribed_count, pressed.opted_out_at is not None) == (1, True)


def test_two_presses_of_the_unsubscribe_button_at_once_count_once(app, client, simulator):
    [user] = create_users(1)
    settings = engine_settings()
    job = creation.create_job(audience="all", created_by=None, content={"type": "text", "text": "خبر"},
                              optout_button=True, settings=settings)
    assert pump(job.id, 30, settings=settings).stop == "done"
    data = unsubscribes.callback_data(job.id)

    def press() -> int:
        return post_update(client, callback_update(user, data, user, 1), sim=simulator).status_code

    for _ in range(3):  # each round: subscribed again, then two presses at once
        assert at_once(app, press, 2) == [200, 200]
        assert get_user(user).opted_out_at is not None
        send(client, simulator, "/subscribe", user_id=user)
    assert reload(job.id).unsubscribed_count == 1
