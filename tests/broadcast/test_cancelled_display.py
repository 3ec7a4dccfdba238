"""A cancelled job shows what it left unsent as "not sent (cancelled)", never as pending, wherever it is shown."""
from __future__ import annotations

import json
import time
from dataclasses import replace

import pytest

from app.services.broadcast.jobs import control
from app.services.broadcast.jobs.status import job_status
from app.services.broadcast.reporting.progress import progress_text, summary_text
from app.services.broadcast.sending.runner import ensure_progress_message
from app.services.telegram_factory import get_client, new_outbox
from app.texts import t
from tests.bot.wizard import last_answer, tap
from tests.broadcast.helpers import create_text_job, create_users, engine_settings, reload
from tests.conftest import ADMIN_ID

FAST = engine_settings(broadcast_rate_per_second=28)
CANCELLED_LINE = {"fa": "ارسال‌نشده (لغو شد): {n}", "en": "Not sent (cancelled): {n}"}
PENDING_LINE = {"fa": "⏳ باقیمانده: {n}", "en": "⏳ Pending: {n}"}


def cancelled_after_some_sends(n: int = 10, sent: int = 4) -> int:
    """A job of n recipients, `sent` of them delivered, then cancelled; return its id."""
    from app.services.broadcast.sending.drain import pump

    create_users(n)
    job = create_text_job(settings=engine_settings(broadcast_rate_per_second=28, broadcast_paid_enabled=True,
                                                   broadcast_paid_max_messages=sent), progress_chat_id=ADMIN_ID)
    assert pump(job.id, 10, settings=FAST).stop == "paid_cap"  # a simple way to stop after exactly `sent`
    assert control.cancel_job(job.id)
    return job.id


def test_status_of_a_cancelled_job_counts_not_sent_instead_of_pending(app, simulator):
    job_id = cancelled_after_some_sends()
    status = job_status(reload(job_id))
    assert status.status == "cancelled"
    assert (status.sent, status.pending, status.not_sent) == (4, 0, 6)
    assert status.eta == 0
    running = job_status(reload(create_text_job().id))
    assert (running.status, running.pending, running.not_sent) == ("running", 10, 0)


@pytest.mark.parametrize("lang", ["fa", "en"])
def test_progress_and_summary_texts_say_not_sent_cancelled(app, simulator, lang):
    job_id = cancelled_after_some_sends()
    status = job_status(reload(job_id))
    for text in (progress_text(status, lang), summary_text(status, lang)):
        assert CANCELLED_LINE[lang].format(n=6) in text
        assert PENDING_LINE[lang].format(n="") not in text
    assert "▰▰▰▰▱▱▱▱▱▱▱▱ 40" in progress_text(status, lang), "the bar shows what was processed (4 of 10), not 100%"
    # A job still running keeps its pending line.
    running = replace(status, status="running", pending=6, not_sent=0)
    assert PENDING_LINE[lang].format(n=6) in progress_text(running, lang)
    assert CANCELLED_LINE[lang].format(n=6) not in progress_text(running, lang)


def test_the_admins_progress_message_after_cancel_says_not_sent_cancelled(app, client, simulator):
    create_users(7)
    job = create_text_job(settings=FAST, progress_chat_id=ADMIN_ID)
    outbox = new_outbox(get_client(FAST))
    ensure_progress_message(job.id, outbox=outbox, chat_id=ADMIN_ID, lang="fa")
    outbox.flush(deadline=time.monotonic() + 5)
    progress_id = reload(job.id).progress_message_id
    assert progress_id
    tap(client, simulator, f"w.cancel_job:{job.id}", message_id=progress_id)
    assert last_answer(simulator)["text"] == t("cb_cancelled")
    assert reload(job.id).status == "cancelled"
    edits = [d for d in simulator.deliveries("editMessageText", ADMIN_ID) if d["message_id"] == progress_id]
    assert edits, "the progress message was re-rendered after the cancel"
    text = edits[-1]["text"]
    assert CANCELLED_LINE["fa"].format(n=7) in text and t("status_cancelled") in text
    assert PENDING_LINE["fa"].format(n="") not in text


def test_cli_status_and_list_show_not_sent_for_a_cancelled_job(app, runner, simulator):
    job_id = cancelled_after_some_sends()
    status = json.loads(runner.invoke(args=["broadcast", "status", str(job_id)]).stdout)
    assert (status["status"], status["pending"], status["not_sent"]) == ("cancelled", 0, 6)
    lines = runner.invoke(args=["broadcast", "list"]).stdout.splitlines()
    header = lines[0].split()
    row = dict(zip(header, lines[2].split(), strict=False))
    assert (row["STATUS"], row["PENDING"], row["NOT_SENT"]) == ("cancelled", "0", "6")
