"""Scheduling end to end over HTTP, judged by arrival times: nothing before its time, everything soon after.

The simulator POSTs updates to the served webhook, cron calls the pump. The missed schedule's
question and buttons (judged by counts) are in test_schedule_missed_e2e.py. Both run in the
parallel phase: "before its time" cannot be caused by load, and "soon after" allows 15 s.
"""
import time
from datetime import timedelta, timezone

import jdatetime
import pytest

from app.services.broadcast.schedule.send_time import describe, to_persian_digits, to_tehran
from app.texts import t
from tests.bot.test_schedule_missed_e2e import USERS, cron, db_now, press, user_deliveries
from tests.bot.wizard import all_jobs, buttons, post
from tests.conftest import ADMIN_ID
from tests.factories import create_users


@pytest.mark.slow  # 10 s of waiting: handed out first in the parallel phase
def test_a_job_scheduled_10_s_ahead_sends_nothing_before_its_time_and_everything_after(served, simulator):
    sim = simulator
    create_users(USERS)
    post(sim, "message", user_id=ADMIN_ID, text="/start", first_name="مدیر")
    post(sim, "message", user_id=ADMIN_ID, text="📢 پیامرسانی همگانی")
    post(sim, "message", user_id=ADMIN_ID, text="🎁 جشنواره از امشب")
    press(sim, "w.no_button")
    press(sim, "w.aud:all")
    press(sim, "w.sched")
    ask = sim.deliveries("sendMessage", ADMIN_ID)[-1]
    assert ask["text"].startswith(t("sched_ask", now="{now}").split("{now}")[0])
    assert [b.split(":")[1] for b in buttons(ask)] == ["hour", "tonight", "tomorrow"]

    # Typed the way an Iranian admin would: Solar Hijri, Persian digits, Tehran time.
    # 10 s ahead (whole seconds: 9-10 s) leaves 5 s of cron ticks that must send nothing.
    local = to_tehran(db_now() + timedelta(seconds=10))
    jalali = jdatetime.date.fromgregorian(date=local.date()).strftime("%Y/%m/%d")
    post(sim, "message", user_id=ADMIN_ID, text=to_persian_digits(f"{jalali} {local:%H:%M:%S}"))
    [job] = all_jobs()
    send_at = job.send_at
    assert (job.status, job.total_count) == ("scheduled", 4)
    assert send_at == local.astimezone(timezone.utc).replace(tzinfo=None, microsecond=0)
    done = sim.deliveries("sendMessage", ADMIN_ID)[-1]
    assert done["text"] == t("sched_done", id=job.id, when=describe(send_at, "fa"), audience=t("aud_name_all"),
                             count=4)
    assert buttons(done) == [f"w.retime:{job.id}", f"w.cancel_job:{job.id}"]
    due = send_at.replace(tzinfo=timezone.utc).timestamp()

    calls_before = 0
    while time.time() < due - 4:  # cron ticks well before the time: nothing goes out
        cron(served, seconds=1)
        calls_before += 1
        assert user_deliveries(sim) == []
        time.sleep(0.5)
    assert calls_before >= 3
    assert all_jobs()[0].status == "scheduled"
    deadline = time.time() + 40
    while all_jobs()[0].status != "completed" and time.time() < deadline:
        cron(served, seconds=10)
    [job] = all_jobs()
    assert (job.status, job.sent_count) == ("completed", 4)
    sent = user_deliveries(sim)
    assert sorted(d["chat_id"] for d in sent) == USERS
    assert all(d["text"] == "🎁 جشنواره از امشب" for d in sent)
    assert min(d["t"] for d in sent) >= due, "a recipient got it before its time"
    assert min(d["t"] for d in sent) < due + 15, "the cron pump started it late"
