"""📌 / 📍, ⏳ and 🏆 pressed by the admin in a job's view: each does what its screen says, through the webhook."""
from datetime import timedelta

import pytest

from app.models.broadcast import KIND_PIN, KIND_UNPIN
from app.services.broadcast.ab import split
from app.services.broadcast.reporting.expiry_view import after_text
from app.texts import t
from tests.bot.test_history import view_of
from tests.bot.test_unsend_edit import USERS, finished_job
from tests.bot.wizard import all_jobs, buttons, last_answer, press, tap, texts_to
from tests.broadcast.helpers import create_users, engine_settings, reload
from tests.conftest import ADMIN_ID

pytestmark = pytest.mark.usefixtures("fast_telegram")


def question(simulator) -> dict:
    """Return the admin's newest message (the screen a press just opened)."""
    return simulator.deliveries("sendMessage", ADMIN_ID)[-1]


def test_pin_silently_then_unpin_from_the_view_acts_on_every_copy_once(client, simulator):
    job_id = finished_job(simulator)
    tap(client, simulator, f"j.view:{job_id}")
    press(client, simulator, "j.pin", under=view_of(simulator, job_id))
    asked = question(simulator)
    assert asked["text"] == t("pin_confirm", id=job_id, total=3)
    assert [b.split(":")[0] for b in buttons(asked)] == ["a.pns", "a.pnn", "a.no"]
    press(client, simulator, "a.pns", under=asked)
    [_, pin] = all_jobs()
    assert (pin.kind, pin.source_job_id, pin.status, pin.sent_count) == (KIND_PIN, job_id, "completed", 3)
    pins = [a for a in simulator.pin_attempts() if a["chat_id"] in USERS]
    # 🔕 means silent: one pinChatMessage per copy, each without a notification.
    assert sorted(a["chat_id"] for a in pins) == sorted(USERS)
    assert all(a["method"] == "pinChatMessage" and a["silent"] for a in pins)
    assert all(simulator.pinned(user) for user in USERS)
    # A second tap on the old question does nothing more.
    press(client, simulator, "a.pns", under=asked)
    assert last_answer(simulator)["text"] in (t("wiz_stale"), t("wiz_expired")) and len(all_jobs()) == 2

    tap(client, simulator, f"j.view:{job_id}")
    view = view_of(simulator, job_id)
    assert f"j.unpin:{job_id}" in buttons(view) and f"j.pin:{job_id}" not in buttons(view)
    press(client, simulator, "j.unpin", under=view)
    press(client, simulator, "a.upy", under=question(simulator))
    unpin = all_jobs()[-1]
    assert (unpin.kind, unpin.status, unpin.sent_count) == (KIND_UNPIN, "completed", 3)
    assert not any(simulator.pinned(user) for user in USERS)


def test_pin_with_a_notification_is_not_silent(client, simulator):
    job_id = finished_job(simulator)
    tap(client, simulator, f"j.view:{job_id}")
    press(client, simulator, "j.pin", under=view_of(simulator, job_id))
    press(client, simulator, "a.pnn", under=question(simulator))
    pins = [a for a in simulator.pin_attempts() if a["chat_id"] in USERS]
    assert len(pins) == 3 and not any(a["silent"] for a in pins)


def test_auto_delete_from_the_view_sets_the_chosen_hours_and_cancel_clears_them(client, simulator):
    job_id = finished_job(simulator)
    tap(client, simulator, f"j.view:{job_id}")
    press(client, simulator, "j.exp", under=view_of(simulator, job_id))
    screen = question(simulator)
    assert screen["text"].startswith(t("expire_pick", id=job_id))
    assert not any(b.startswith("a.exo") for b in buttons(screen))  # nothing to cancel yet
    [six] = [b for b in buttons(screen) if b.startswith("a.exh:6:")]
    tap(client, simulator, six, message_id=screen["message_id"])
    assert reload(job_id).expire_after == 6 * 3600 and reload(job_id).expire_at is not None
    assert t("expire_set", id=job_id, after=after_text(6 * 3600, "fa")) in texts_to(simulator)

    tap(client, simulator, f"j.view:{job_id}")
    press(client, simulator, "j.exp", under=view_of(simulator, job_id))
    press(client, simulator, "a.exo", under=question(simulator))
    assert reload(job_id).expire_after is None
    assert t("expire_cancelled", id=job_id) in texts_to(simulator)


def test_the_admins_pick_sends_the_winner_once_and_a_second_pick_is_refused(client, simulator, app):
    app.config["PUBLIC_URL"] = "https://bot.example.com"  # an A/B test is judged by tracked clicks
    try:
        create_users(40)
        test = split.create_test(audience="all", texts=["<b>الف</b>", "<b>ب</b>"], share=20, wait=timedelta(hours=2),
                                 button_text="ببین", button_url="https://example.com/offer", created_by=ADMIN_ID,
                                 settings=engine_settings())
        tap(client, simulator, f"j.view:{test.id}")
        view = view_of(simulator, test.id)
        picks = [b for b in buttons(view) if b.startswith("ab.pick:")]
        assert picks == [f"ab.pick:{test.id}.A", f"ab.pick:{test.id}.B"]
        tap(client, simulator, picks[1], message_id=view["message_id"])
        [winner] = [job for job in all_jobs() if job.ab_of == test.id]
        assert last_answer(simulator)["text"] == t("ab_picked", v="B", job=winner.id)
        assert winner.total_count == 40 - test.total_count  # the rest of the audience, nobody of the test
        tap(client, simulator, picks[0], message_id=view["message_id"])
        assert last_answer(simulator)["text"] == t("ab_pick_refused")
        assert [job.id for job in all_jobs() if job.ab_of == test.id] == [winner.id]
    finally:
        app.config["PUBLIC_URL"] = None
