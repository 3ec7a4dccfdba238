"""A retry is a broadcast: '🔁 Send again' shows a pre-send screen, and only its Confirm sends (webhook + simulator)."""
import json
from datetime import timedelta

import pytest
from sqlalchemy import update

from app.clock import utcnow
from app.extensions import db
from app.models import BroadcastJob
from app.services import audit
from app.services.broadcast.jobs import control, creation
from app.services.broadcast.sending.drain import pump
from app.services.settings import set_setting
from app.texts import t
from tests.bot.test_history import view_of
from tests.bot.wizard import all_jobs, buttons, last_answer, offered, press, send, step_of, tap
from tests.broadcast.helpers import engine_settings
from tests.conftest import ADMIN_ID
from tests.factories import admin_state, create_user

pytestmark = pytest.mark.usefixtures("fast_telegram")
USERS = list(range(9101, 9121))  # 20 recipients


def copies(simulator) -> list[dict]:
    """Return the broadcast copies the users got (not the admin's screens)."""
    return [d for d in simulator.deliveries("sendMessage") if d["chat_id"] in USERS]


def cancelled_scheduled_job(content: dict | None = None, variants: dict | None = None) -> int:
    """A job for 20 users scheduled for tomorrow, cancelled before it sent anything."""
    for user_id in USERS:
        create_user(user_id)
    job = creation.create_job(audience="all", created_by=ADMIN_ID,
                              content=content or {"type": "text", "text": "خبر مهم"},
                              settings=engine_settings(), actor=audit.admin_actor(ADMIN_ID),
                              send_at=utcnow() + timedelta(days=1), variants=variants)
    assert control.cancel_job(job.id)
    return job.id


def copied_job(simulator) -> tuple[int, int]:
    """A cancelled job copying a message of the admin's chat; return its id and the source message's id."""
    source = simulator.add_message(ADMIN_ID, text="خبر مهم")
    return cancelled_scheduled_job({"type": "copy", "from_chat_id": ADMIN_ID, "message_id": source}), source


def confirms(simulator) -> list[dict]:
    """Return every message to the admin carrying a retry Confirm."""
    return [d for d in simulator.deliveries(chat_id=ADMIN_ID) if any(b.startswith("r.ok:") for b in buttons(d))]


def preview_id() -> str:
    """Return the preview id the admin's retry screen stores now."""
    return json.loads(admin_state(ADMIN_ID).draft)["preview_id"]


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


def test_a_retry_whose_preview_failed_shows_no_numbers_and_no_confirm(client, simulator):
    job_id, source = copied_job(simulator)
    set_setting("broadcast_paid_enabled", "on")
    tap(client, simulator, f"j.view:{job_id}")
    view = view_of(simulator, job_id)
    press(client, simulator, "j.retry", under=view)
    old = retry_screen(simulator)
    assert [d["text"] for d in simulator.deliveries("copyMessage", ADMIN_ID)] == ["خبر مهم"]
    assert len(confirms(simulator)) == 1
    balance_reads = simulator.stats()["calls"]["getMyStarBalance"]
    assert simulator.delete_message_source(ADMIN_ID, source)  # "message to copy not found" from now on
    press(client, simulator, "j.retry", under=view)
    refusal = simulator.deliveries("sendMessage", ADMIN_ID)[-1]
    assert refusal["text"] == t("retry_preview_failed")
    assert buttons(refusal) == [f"j.retry:{job_id}", f"r.no:{preview_id()}"]  # Try again, Abort: no Confirm
    assert len(confirms(simulator)) == 1 and simulator.stats()["calls"]["getMyStarBalance"] == balance_reads
    header = t("retry_screen").split("{")[0]
    assert [d for d in simulator.deliveries("sendMessage", ADMIN_ID)
            if d["text"].startswith(header)] == [old]  # no numbers under nothing
    # The older screen's Confirm stays refused: the refusal stored new ids.
    press(client, simulator, "r.ok", under=old)
    assert last_answer(simulator)["text"] == t("wiz_stale") and len(all_jobs()) == 1
    # Try again: a new preview, which fails again while the source is gone.
    press(client, simulator, "j.retry", under=refusal)
    again = simulator.deliveries("sendMessage", ADMIN_ID)[-1]
    assert again["text"] == t("retry_preview_failed") and again["message_id"] != refusal["message_id"]
    assert len(confirms(simulator)) == 1
    press(client, simulator, "r.no", under=refusal)  # the first refusal's Abort is an older screen's
    assert last_answer(simulator)["text"] == t("wiz_stale") and step_of() == "retry:preview"
    press(client, simulator, "r.no", under=again)
    assert step_of() is None and len(all_jobs()) == 1 and copies(simulator) == []


def test_a_preview_held_by_a_429_is_withdrawn_and_no_screen_follows(client, simulator):
    job_id, _ = copied_job(simulator)
    tap(client, simulator, f"j.view:{job_id}")
    view = view_of(simulator, job_id)
    shown = len(simulator.deliveries(chat_id=ADMIN_ID))
    # A 429 on the preview whose retry_after outlasts the reply budget: still queued at the flush, so withdrawn.
    simulator.configure(fail_429_ratio=1.0, retry_after_range=(30, 30), fault_methods=["copyMessage"])
    press(client, simulator, "j.retry", under=view)
    # The 429 holds the whole bot, so the refusal waits behind it and is dropped too: nothing arrives, least
    # of all a screen with a Confirm; the view's Send again tries once more after the hold.
    assert len(simulator.deliveries(chat_id=ADMIN_ID)) == shown and confirms(simulator) == []
    assert simulator.stats()["calls"]["copyMessage"] == 1 and step_of() == "retry:preview"
    assert len(all_jobs()) == 1


def test_every_language_version_is_previewed_and_each_must_arrive(client, simulator):
    job_id = cancelled_scheduled_job(variants={"en": "Big news"})
    tap(client, simulator, f"j.view:{job_id}")
    view = view_of(simulator, job_id)
    press(client, simulator, "j.retry", under=view)
    texts = [d["text"] for d in simulator.deliveries("sendMessage", ADMIN_ID)][-4:]
    assert texts[:3] == ["خبر مهم", t("var_preview_label", code="en"), "Big news"]
    assert texts[3] == retry_screen(simulator)["text"] and len(confirms(simulator)) == 1
    # Telegram refuses the English version alone (here: HTML it cannot parse); the default one still arrives.
    db.session.execute(update(BroadcastJob).where(BroadcastJob.id == job_id).values(variants='{"en": "<b>Big news"}'))
    db.session.commit()
    press(client, simulator, "j.retry", under=view)
    sent = [d["text"] for d in simulator.deliveries("sendMessage", ADMIN_ID)][-3:]
    assert sent == ["خبر مهم", t("var_preview_label", code="en"), t("retry_preview_failed")]
    assert len(confirms(simulator)) == 1 and len(all_jobs()) == 1
