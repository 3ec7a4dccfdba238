"""A retry is a broadcast: '🔁 Send again' shows a pre-send screen, and only its Confirm sends (webhook + simulator)."""
from datetime import timedelta

import pytest

from app.clock import utcnow
from app.services import audit
from app.services.broadcast import jobs
from app.services.broadcast.drain import pump
from app.services.settings import set_setting
from app.texts import t
from tests.bot.test_history import view_of
from tests.bot.wizard import all_jobs, buttons, last_answer, offered, press, send, step_of, tap
from tests.broadcast.helpers import engine_settings
from tests.conftest import ADMIN_ID
from tests.factories import create_user

pytestmark = pytest.mark.usefixtures("fast_telegram")
USERS = list(range(9101, 9121))  # 20 recipients


def copies(simulator) -> list[dict]:
    """Return the broadcast copies the users got (not the admin's screens)."""
    return [d for d in simulator.deliveries("sendMessage") if d["chat_id"] in USERS]


def cancelled_scheduled_job() -> int:
    """A job for 20 users scheduled for tomorrow, cancelled before it sent anything."""
    for user_id in USERS:
        create_user(user_id)
    job = jobs.create_job(audience="all", created_by=ADMIN_ID, content={"type": "text", "text": "خبر مهم"},
                          settings=engine_settings(), actor=audit.admin_actor(ADMIN_ID),
                          send_at=utcnow() + timedelta(days=1))
    assert jobs.cancel_job(job.id)
    return job.id


def retry_screen(simulator) -> dict:
    """Return the newest retry screen (the message offering its Abort)."""
    return offered(simulator, "r.no")


def test_one_tap_on_retry_sends_nothing_and_shows_the_pre_send_screen(client, simulator):
    job_id = cancelled_scheduled_job()
    set_setting("broadcast_paid_enabled", "on")  # switched on after the job was made
    tap(client, simulator, f"j.view:{job_id}")
    view = view_of(simulator, job_id)
    assert f"j.retry:{job_id}" in buttons(view)
    [label] = [b["text"] for row in view["reply_markup"]["inline_keyboard"] for b in row
               if b["callback_data"] == f"j.retry:{job_id}"]
    assert label == t("btn_retry_not_sent")  # never sent because of the cancel: not "failed"
    press(client, simulator, "j.retry", under=view)
    assert len(all_jobs()) == 1 and copies(simulator) == []  # nothing created, nothing sent
    screen = retry_screen(simulator)
    assert t("retry_who_not_sent", n=20) in screen["text"] and "— 20 نفر" in screen["text"]
    assert t("wiz_paid_line", stars="2.0", cap=10000) in screen["text"]  # the cost, and the balance
    assert t("wiz_balance_line", balance="1000") in screen["text"]
    # The message itself was shown above the screen, as users will get it.
    assert simulator.deliveries("sendMessage", ADMIN_ID)[-2]["text"] == "خبر مهم"

    first = buttons(screen)
    press(client, simulator, "r.ok", under=screen)
    assert len(all_jobs()) == 1 and copies(simulator) == []  # paid: a second confirmation first
    second = offered(simulator, "r.ok")
    assert second["text"].startswith(t("wiz_paid_confirm", count=20)) and buttons(second) != first
    tap(client, simulator, first[0], message_id=screen["message_id"])  # the first Confirm again: stale
    assert last_answer(simulator)["text"] == t("wiz_stale") and len(all_jobs()) == 1
    press(client, simulator, "r.ok", under=second)
    [_, new] = all_jobs()
    assert (new.retry_of, new.paid, new.total_count) == (job_id, True, 20)
    assert pump(new.id, 20, settings=engine_settings(broadcast_paid_enabled=True)).stop in ("done", "not_running")
    sent = copies(simulator)
    assert len(sent) == 20 and all(d["paid"] for d in sent) and {d["chat_id"] for d in sent} == set(USERS)
    press(client, simulator, "r.ok", under=second)  # a double tap of the last Confirm
    assert len(all_jobs()) == 2


def test_the_paid_flag_is_the_one_the_screen_showed(client, simulator):
    job_id = cancelled_scheduled_job()
    tap(client, simulator, f"j.view:{job_id}")
    press(client, simulator, "j.retry", under=view_of(simulator, job_id))
    free = retry_screen(simulator)
    assert "💫" not in free["text"]
    set_setting("broadcast_paid_enabled", "on")  # changed while the screen was open
    press(client, simulator, "r.ok", under=free)
    assert last_answer(simulator)["text"] == t("retry_paid_changed") and len(all_jobs()) == 1
    fresh = retry_screen(simulator)
    assert fresh["message_id"] != free["message_id"] and t("wiz_paid_line", stars="2.0", cap=10000) in fresh["text"]
    press(client, simulator, "r.ok", under=free)  # the old screen stays refused
    assert last_answer(simulator)["text"] == t("wiz_stale") and copies(simulator) == []


def test_a_free_retry_confirmed_once_sends_once_and_abort_sends_nothing(client, simulator):
    job_id = cancelled_scheduled_job()
    tap(client, simulator, f"j.view:{job_id}")
    view = view_of(simulator, job_id)
    press(client, simulator, "j.retry", under=view)
    press(client, simulator, "r.no", under=retry_screen(simulator))
    assert step_of() is None and len(all_jobs()) == 1
    send(client, simulator, "hello")  # no screen waits any more
    press(client, simulator, "j.retry", under=view)
    screen = retry_screen(simulator)
    press(client, simulator, "r.ok", under=screen)
    press(client, simulator, "r.ok", under=screen)  # double tap
    [_, new] = all_jobs()
    assert (new.paid, new.total_count) == (False, 20)
    assert last_answer(simulator)["text"] == t("wiz_expired")  # the screen was taken by the first tap
    assert pump(new.id, 20, settings=engine_settings()).stop in ("done", "not_running")
    assert sorted(d["chat_id"] for d in copies(simulator)) == USERS
