"""pump() against the simulated Bot API over real HTTP: outcomes judged by exact counts, not by time."""

import pytest
from sqlalchemy import delete, update

from app.extensions import db
from app.models import TelegramBudget, TelegramChatPace, User
from app.repository.broadcast_ledger import tallies
from app.services import telegram_factory
from app.services.broadcast.jobs import control, creation
from app.services.broadcast.sending.drain import pump, pump_all
from tests.broadcast.helpers import (
    BASE_ID,
    assert_consistent,
    clear_not_before,
    create_text_job,
    create_users,
    engine_settings,
    reload,
)

FAST = engine_settings(broadcast_rate_per_second=28)


def broadcast_chats(simulator):
    """Return the recipients the simulator delivered a broadcast to."""
    return [d["chat_id"] for d in simulator.deliveries() if d["chat_id"] >= BASE_ID]


def test_small_audience_completes_with_exact_counts(app, simulator):
    ids = create_users(40)
    simulator.block(ids[3])
    simulator.deactivate(ids[4])
    simulator.forget(ids[5])
    job = create_text_job(settings=FAST)
    result = pump(job.id, 20, settings=FAST)
    assert result.stop == "done" and result.acquired
    job = reload(job.id)
    assert job.status == "completed" and job.finished_at is not None
    assert (job.sent_count, job.skipped_count, job.failed_count, job.unknown_count) == (37, 3, 0, 0)
    assert assert_consistent(job.id, simulator) == {"sent": 37, "skipped": 3}
    assert sorted(broadcast_chats(simulator)) == sorted(set(ids) - {ids[3], ids[4], ids[5]})
    blocked = {u.id for u in db.session.execute(db.select(User).where(User.is_blocked.is_(True))).scalars()}
    assert blocked == {ids[3], ids[4]}, "403s mark users blocked; 'chat not found' does not"


def test_delivered_text_keeps_persian_html_and_button(app, simulator):
    create_users(2)
    job = creation.create_job(audience="all", created_by=1, settings=FAST, button_text="سایت ما 🌐",
                              button_url="https://example.com/a?b=1",
                              content={"type": "text", "text": "<b>سلام</b> دنیا 🎉"})
    pump(job.id, 10, settings=FAST)
    sent = [d for d in simulator.deliveries() if d["chat_id"] >= BASE_ID]
    assert {d["text"] for d in sent} == {"سلام دنیا 🎉"} or {d["text"] for d in sent} == {"<b>سلام</b> دنیا 🎉"}
    markup = sent[0]["reply_markup"]
    assert markup["inline_keyboard"][0][0] == {"text": "سایت ما 🌐", "url": "https://example.com/a?b=1"}


def test_copy_job_copies_the_admins_message(app, simulator):
    create_users(3)
    message_id = simulator.add_message(1001, text="پیام مدیر")
    job = creation.create_job(audience="all", created_by=1001, settings=FAST,
                              content={"type": "copy", "from_chat_id": 1001, "message_id": message_id})
    assert pump(job.id, 10, settings=FAST).stop == "done"
    copies = [d for d in simulator.deliveries(method="copyMessage")]
    assert len(copies) == 3 and {d["source_message_id"] for d in copies} == {message_id}


def test_pump_on_a_job_that_is_not_running_is_a_no_op(app, simulator):
    create_users(2)
    first = create_text_job(settings=FAST)
    second = create_text_job(settings=FAST)
    result = pump(second.id, 5, settings=FAST)
    assert (result.acquired, result.stop) == (False, "not_running")
    assert pump(999999, 1, settings=FAST).stop == "no_such_job"
    assert simulator.deliveries() == []
    assert reload(first.id).status == "running"


def test_rate_limit_longer_than_the_budget_returns_items_to_pending(app, simulator):
    create_users(10)
    job = create_text_job(settings=FAST)
    simulator.configure(fail_429_ratio=1.0, retry_after_range=(30, 30))
    result = pump(job.id, 3, settings=FAST)
    assert result.stop == "rate_limited"
    job = reload(job.id)
    assert job.not_before is not None and job.failed_count == 0
    assert tallies(job.id) == {"pending": 10}, "a rate limit never fails or loses an item"
    # The next pump honours not_before without calling Telegram.
    calls_before = simulator.stats()["calls"].get("sendMessage", 0)
    simulator.configure(fail_429_ratio=0.0)
    assert pump(job.id, 3, settings=FAST).stop == "not_before"
    assert simulator.stats()["calls"].get("sendMessage", 0) == calls_before
    # A new process (fresh clients) still honours the 30 s: the hold is bot-wide, in the database.
    clear_not_before(job.id)
    telegram_factory.reset_clients()
    assert pump(job.id, 2, settings=FAST).stop == "budget"
    assert simulator.stats()["calls"].get("sendMessage", 0) == calls_before, "no call before retry_after passed"
    # As if the 30 s had passed: the bot-wide hold and the chats' holds end.
    db.session.execute(update(TelegramBudget).values(hold_until_us=0))
    db.session.execute(delete(TelegramChatPace))
    db.session.commit()
    telegram_factory.reset_clients()
    assert pump(job.id, 10, settings=FAST).stop == "done"
    assert assert_consistent(job.id, simulator) == {"sent": 10}


# Serial: under the parallel phase's load it once ended 'incomplete' instead of 'done' (not reproduced alone).
@pytest.mark.serial
def test_rate_limit_that_fits_the_budget_is_waited_out(app, simulator):
    create_users(6)
    job = create_text_job(settings=FAST)
    # Seed 3 answers 7 of the 14 calls 429, the ratio asked for (seed 7 drew 12 of 19: 12 s of holds).
    simulator.configure(fail_429_ratio=0.5, retry_after_range=(1, 1), seed=3)
    assert pump(job.id, 20, settings=FAST).stop == "done"
    assert assert_consistent(job.id, simulator) == {"sent": 6}
    assert simulator.stats()["429_total"] >= 5, "the pump met (and waited out) several 429s"


def test_revoked_token_pauses_at_once_and_resume_completes(app, simulator):
    create_users(8)
    job = create_text_job(settings=FAST)
    simulator.revoke_token()
    result = pump(job.id, 5, settings=FAST)
    assert result.stop == "unauthorized"
    job = reload(job.id)
    assert job.status == "paused" and "401" in job.pause_reason
    assert tallies(job.id) == {"pending": 8}
    simulator.restore_token()
    assert control.resume_job(job.id) == "running"
    assert pump(job.id, 10, settings=FAST).stop == "done"
    assert assert_consistent(job.id, simulator) == {"sent": 8}


def test_consecutive_content_errors_trip_the_breaker_and_keep_items_pending(app, simulator):
    create_users(30)
    settings = engine_settings(broadcast_rate_per_second=28, broadcast_max_consecutive_errors=5)
    job = creation.create_job(audience="all", created_by=1001, settings=settings,
                              content={"type": "copy", "from_chat_id": 1001, "message_id": 424242})
    result = pump(job.id, 10, settings=settings)
    assert result.stop == "breaker"
    job = reload(job.id)
    assert job.status == "paused" and "message to copy not found" in job.pause_reason
    assert job.failed_count == 0 and tallies(job.id) == {"pending": 30}
    # The admin is told, with a resume button.
    alerts = [d for d in simulator.deliveries(chat_id=1001) if "w.resume" in str(d.get("reply_markup"))]
    assert len(alerts) == 1
    simulator.configure(strict_copy=False)
    assert control.resume_job(job.id) == "running"
    assert pump(job.id, 10, settings=settings).stop == "done"
    assert assert_consistent(job.id, simulator) == {"sent": 30}


def test_a_5xx_after_delivery_is_unknown_and_never_resent(app, simulator):
    """The exact breaker threshold and streak resets are in test_breaker.py; here the breaker stays out of the way."""
    ids = create_users(12)
    settings = engine_settings(broadcast_rate_per_second=28, broadcast_max_consecutive_errors=1000)
    job = create_text_job(settings=settings)
    simulator.configure(fail_5xx_after_delivery_ratio=0.3, seed=3)
    assert pump(job.id, 10, settings=settings).stop == "done"
    counts = assert_consistent(job.id, simulator)
    assert simulator.stats()["5xx_after_delivery"] >= 1
    assert counts["unknown"] == simulator.stats()["5xx_after_delivery"], "a 5xx after delivery is unknown"
    assert counts["sent"] + counts["unknown"] == len(ids) and "failed" not in counts
    assert sorted(broadcast_chats(simulator)) == ids, "everyone got exactly one copy: unknown is never re-sent"


def test_pump_all_finishes_the_running_job_then_starts_the_queued_one(app, simulator):
    create_users(15)
    first = create_text_job(settings=FAST)
    second = create_text_job(settings=FAST, text="دومی")
    assert reload(second.id).status == "queued"
    results = pump_all(20, settings=FAST)
    assert [(r.job_id, r.stop) for r in results] == [(first.id, "done"), (second.id, "done")]
    assert reload(second.id).status == "completed"
    chats = broadcast_chats(simulator)
    assert len(chats) == 30 and len(set(chats)) == 15, "each user got each broadcast once"


def test_paid_broadcast_stops_before_its_cap(app, simulator):
    create_users(12)
    paid = engine_settings(broadcast_paid_enabled=True, broadcast_paid_max_messages=5)
    job = create_text_job(settings=paid)
    assert job.paid and job.paid_limit == 5
    result = pump(job.id, 10, settings=paid)
    assert result.stop == "paid_cap"
    job = reload(job.id)
    assert job.status == "paused" and "5" in job.pause_reason
    deliveries = [d for d in simulator.deliveries() if d["chat_id"] >= BASE_ID]
    assert len(deliveries) == 5 and all(d["paid"] for d in deliveries)
    assert_consistent(job.id, simulator)

