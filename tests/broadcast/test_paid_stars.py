"""A paid broadcast against the bot's Stars balance, over real HTTP with the simulated Bot API.

Telegram bills a paid copy 0.1 Star from the bot's balance and refuses one it
cannot pay. The run reads the balance (getMyStarBalance) before its first
copy and refuses to start, saying why and what to do, when it cannot cover
the copies left; it reads it again once the job stops running, so the spend
Telegram took shows beside our estimate; a balance that runs out mid-way
pauses the job with every unpaid copy still pending (none failed), and a
top-up and resume finishes it with exact counts. The shared simulator bills
every paid message (tests/conftest.py: paid_free_rate=0).
"""
from __future__ import annotations

import time
from datetime import timedelta

from app.repository.db_clock import db_utcnow
from app.services import audit
from app.services.broadcast.jobs import control
from app.services.broadcast.jobs.status import job_status
from app.services.broadcast.reporting import progress
from app.services.broadcast.sending.drain import pump, pump_all
from app.texts import t
from tests.broadcast.helpers import assert_consistent, create_text_job, create_users, engine_settings, reload

AUTHOR = 1001


def paid_settings(**overrides) -> dict:
    return engine_settings(broadcast_paid_enabled=True, **overrides)


def paid_copies(simulator) -> list[dict]:
    return [d for d in simulator.deliveries() if d["paid"]]


def alerts_to_author(simulator) -> list[str]:
    return [d["text"] for d in simulator.deliveries("sendMessage", AUTHOR)]


def test_a_paid_job_the_balance_cannot_cover_is_paused_before_its_first_copy(app, simulator):
    create_users(10)
    simulator.set_stars(0, 500_000_000)  # 0.5 Star; ten copies may cost 1
    settings = paid_settings()
    job = create_text_job(settings=settings, actor=audit.ACTOR_CLI)
    assert pump(job.id, 10, settings=settings).stop == "no_stars"
    job = reload(job.id)
    reason = t("reason_stars_short", balance="0.5", cost="1")
    assert (job.status, job.pause_reason, job.sent_count, job.failed_count) == ("paused", reason, 0, 0)
    assert job.pending_count == 10 and paid_copies(simulator) == []
    assert [(e["actor"], e["action"], e["detail"]) for e in audit.entries(job.id)][-1] == ("system", "paused", reason)
    assert alerts_to_author(simulator) == [t("paused_alert", id=job.id, reason=reason)]
    assert "@BotFather" in reason and "broadcast_paid_enabled" in t("reason_stars_short", "en", balance=0, cost=1)
    # A top-up and resume: the balance is read again, and this time it covers the run.
    simulator.set_stars(5)
    assert control.resume_job(job.id) == "running"
    assert pump(job.id, 10, settings=settings).stop == "done"
    assert (reload(job.id).sent_count, len(paid_copies(simulator))) == (10, 10)


def test_a_scheduled_paid_job_reads_the_balance_when_it_starts(app, simulator):
    create_users(4)
    settings = paid_settings()
    job = create_text_job(settings=settings, send_at=db_utcnow() + timedelta(seconds=1))
    simulator.set_stars(0, 100_000_000)  # spent while it waited: 0.1 Star for four copies
    time.sleep(1.2)
    pump_all(8, settings=settings)
    job = reload(job.id)
    assert (job.status, job.pause_reason) == ("paused", t("reason_stars_short", balance="0.1", cost="0.4"))
    assert paid_copies(simulator) == []


def test_a_paid_job_shows_the_spend_telegram_took_beside_the_estimate(app, simulator):
    users = create_users(20)
    simulator.block(users[0])
    simulator.block(users[1])  # two recipients who blocked the bot: not billed
    simulator.set_stars(10)
    settings = paid_settings()
    job = create_text_job(settings=settings)
    assert pump(job.id, 10, settings=settings).stop == "done"
    job = reload(job.id)
    assert (job.sent_count, job.skipped_count) == (18, 2)
    assert simulator.star_balance() == {"amount": 8, "nanostar_amount": 200_000_000}
    view = job_status(job)
    # The estimate counts every recipient; Telegram took 0.1 Star for each of the 18 delivered copies.
    assert view.as_dict()["stars"] == {"spent": 1.8, "estimate": 2.0}
    line = t("job_stars_line", "fa", spent="1.8", estimate="2")
    assert alerts_to_author(simulator)[-1] == t("stars_spent_alert", id=job.id, line=line)
    # The summary went out as the job completed, before the balance was read again: the estimate alone there.
    assert t("job_stars_estimate_line", "fa", estimate="2") in alerts_to_author(simulator)[-2]
    assert progress.rules_lines(view, "fa").endswith(line)  # the job's view, from now on, shows both
    assert simulator.stats()["calls"]["getMyStarBalance"] == 2  # before the first copy and after the last


def test_a_balance_that_runs_out_midway_pauses_with_no_failed_copy_and_a_top_up_finishes_it(app, simulator):
    create_users(30)
    simulator.set_stars(3)  # covers the thirty copies when it starts
    settings = paid_settings(broadcast_paid_rate_per_second=10, broadcast_paid_concurrency=4)
    job = create_text_job(settings=settings)
    pump(job.id, 1.0, settings=settings)  # a first run sends some of them, then its time ends
    first = reload(job.id).sent_count
    assert 0 < first < 25 and reload(job.id).status == "running"
    simulator.set_stars(0, 500_000_000)  # spent elsewhere meanwhile: 0.5 Star pays five more copies
    assert pump(job.id, 20, settings=settings).stop == "no_stars"
    job = reload(job.id)
    assert (job.status, job.pause_reason) == ("paused", t("reason_no_stars"))
    # Exactly the five it could pay went out; the copies Telegram refused wait as pending, none failed.
    assert (job.sent_count, job.failed_count, job.unknown_count) == (first + 5, 0, 0)
    assert job.pending_count == 30 - first - 5 and len(paid_copies(simulator)) == first + 5
    assert assert_consistent(job.id, simulator).get("failed", 0) == 0
    assert t("paused_alert", id=job.id, reason=t("reason_no_stars")) in alerts_to_author(simulator)
    refused = simulator.stats()["4xx"].get("Bad Request: BALANCE_TOO_LOW", 0)
    assert refused >= 1

    simulator.set_stars(100)  # topped up in @BotFather
    assert control.resume_job(job.id) == "running"
    assert pump(job.id, 20, settings=settings).stop == "done"
    job = reload(job.id)
    assert (job.status, job.sent_count, job.failed_count, job.skipped_count, job.unknown_count) == (
        "completed", 30, 0, 0, 0)
    assert sorted(d["chat_id"] for d in paid_copies(simulator)) == sorted(set(d["chat_id"] for d in
                                                                               paid_copies(simulator)))
    assert len(paid_copies(simulator)) == 30 and assert_consistent(job.id, simulator).get("failed", 0) == 0
