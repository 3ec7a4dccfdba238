"""A missed schedule end to end over HTTP: the question, "send now" and cancel, judged by counts."""
import threading
import time
from datetime import timedelta

import requests
from sqlalchemy import update

from app.extensions import db
from app.models import BroadcastJob
from app.repository.db_clock import db_utcnow
from app.services.broadcast.jobs import creation
from app.texts import t
from tests.bot.wizard import all_jobs, buttons, offered, post
from tests.conftest import ADMIN_ID, PUMP_TOKEN
from tests.factories import create_users

USERS = [9101, 9102, 9103]




def press(sim, action, user_id=ADMIN_ID):
    """Press the newest button for action the bot offered user_id."""
    keyboard = offered(sim, action, user_id)
    [data] = [d for d in buttons(keyboard) if d == action or d.startswith(action + ":")]
    post(sim, "callback_query", user_id=user_id, data=data, message_chat_id=user_id,
         message_id=keyboard["message_id"])


def cron(base, seconds=3):
    """Call the pump endpoint as cron/pump.sh does; return its JSON."""
    response = requests.post(base + "/internal/pump", data={"seconds": seconds},
                             headers={"Authorization": f"Bearer {PUMP_TOKEN}"}, timeout=seconds + 30)
    assert response.status_code == 200, response.text
    return response.json()


def user_deliveries(sim):
    return [d for d in sim.deliveries() if d["chat_id"] in USERS]


def db_now():
    value = db_utcnow()
    db.session.commit()
    return value


def age_into_missed(job_id):
    """Move the job's time two hours back, as if the site had been down since before it."""
    db.session.execute(update(BroadcastJob).where(BroadcastJob.id == job_id)
                       .values(send_at=db_now() - timedelta(hours=2)))
    db.session.commit()


def scheduled_job():
    create_users(USERS)
    job = creation.create_job(audience="all", created_by=ADMIN_ID, content={"type": "text", "text": "سلام"},
                              send_at=db_now() + timedelta(hours=1), progress_chat_id=ADMIN_ID)
    age_into_missed(job.id)
    return job.id


def test_a_missed_schedule_asks_instead_of_sending_then_send_now(served, simulator):
    sim = simulator
    post(sim, "message", user_id=ADMIN_ID, text="/start", first_name="مدیر")
    job_id = scheduled_job()
    # Two cron processes at once, then a third later: one question, nothing sent.
    threads = [threading.Thread(target=cron, args=(served, 2)) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    cron(served, 2)
    questions = [d for d in sim.deliveries("sendMessage", ADMIN_ID) if buttons(d)[:1] == [f"w.send_now:{job_id}"]]
    assert len(questions) == 1
    assert questions[0]["text"].startswith(f"⚠️ ارسال زمان‌بندی‌شده‌ی #{job_id}")
    assert buttons(questions[0]) == [f"w.send_now:{job_id}", f"w.cancel_job:{job_id}"]
    assert user_deliveries(sim) == []
    [job] = all_jobs()
    assert (job.status, job.missed_at is not None, job.sent_count) == ("scheduled", True, 0)

    press(sim, "w.send_now")
    press(sim, "w.send_now")  # a second tap (or a second admin) changes nothing
    deadline = time.time() + 30
    while all_jobs()[0].status != "completed" and time.time() < deadline:
        cron(served, 5)
    [job] = all_jobs()
    assert (job.status, job.sent_count) == ("completed", 4)
    assert sorted(d["chat_id"] for d in user_deliveries(sim)) == USERS
    answers = [a["text"] for a in sim.callback_answers()]
    assert answers == [t("cb_working"), t("sched_gone")]


def test_a_missed_schedule_can_be_cancelled_from_the_question(served, simulator):
    sim = simulator
    post(sim, "message", user_id=ADMIN_ID, text="/start", first_name="مدیر")
    job_id = scheduled_job()
    cron(served, 1)
    press(sim, "w.cancel_job")
    assert all_jobs()[0].status == "cancelled"
    cron(served, 1)
    assert user_deliveries(sim) == []
    assert [a["text"] for a in sim.callback_answers()] == [t("cb_cancelled")]
    assert len([d for d in sim.deliveries("sendMessage", ADMIN_ID) if f"#{job_id}" in d["text"]]) == 1
