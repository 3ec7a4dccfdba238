"""Albums in the wizard through the webhook: one answer per album at any step, the preview, paid settings."""
import json
from datetime import timedelta

import pytest
from sqlalchemy import update

from app.clock import utcnow
from app.extensions import db
from app.models import AlbumPart
from app.services.settings import set_setting
from app.simulator.updates import message_update
from app.texts import t
from tests.bot.wizard import all_jobs, press, screen, send, step_of, texts_to
from tests.conftest import ADMIN_ID
from tests.factories import admin_state, create_users, post_update

pytestmark = pytest.mark.usefixtures("fast_telegram")


def send_album(client, sim, group: str, n: int = 3, order=None) -> list[int]:
    """Deliver an album's parts as separate updates (in `order`); return the part ids, ascending."""
    updates = [message_update(ADMIN_ID, photo=True, media_group_id=group, caption="cap" if i == 0 else None)
               for i in range(n)]
    for i in order or range(n):
        assert post_update(client, updates[i], sim=sim).status_code == 200
    return [u["message"]["message_id"] for u in updates]


def test_album_skips_the_button_step_and_the_preview_copies_every_part(client, simulator):
    create_users([7001, 7002])
    send(client, simulator, "/broadcast")
    ids = send_album(client, simulator, "g1", order=[1, 2, 0])
    assert step_of() == "wiz:audience"
    assert texts_to(simulator) == [t("wiz_send_message"), t("wiz_album_taken") + "\n\n" + t("wiz_choose_audience")]
    press(client, simulator, "w.aud:all")
    [*parts] = simulator.deliveries("copyMessages", ADMIN_ID)
    assert [p["source_message_id"] for p in parts] == ids and len({p["album"] for p in parts}) == 1
    assert json.loads(admin_state(ADMIN_ID).draft)["content"]["message_ids"] == ids
    press(client, simulator, "w.confirm")
    [job] = all_jobs()
    assert (job.content_type, job.status, job.sent_count) == ("album", "completed", 2)
    for user_id in (7001, 7002):
        assert [p["source_message_id"] for p in simulator.deliveries("copyMessages", user_id)] == ids


@pytest.mark.parametrize("setup", ["button_step", "audience_step", "no_wizard", "settings"])
def test_an_album_at_another_step_gets_one_answer_not_one_per_part(client, simulator, setup):
    create_users([7001])
    if setup != "no_wizard":
        send(client, simulator, "/broadcast" if setup != "settings" else "/settings")
    if setup in ("button_step", "audience_step"):
        send(client, simulator, "متن پیام")
    if setup == "audience_step":
        press(client, simulator, "w.no_button")
    step, before = step_of(), len(texts_to(simulator))
    send_album(client, simulator, f"g-{setup}", n=4)
    assert texts_to(simulator)[before:] == [t("wiz_album_not_now")]
    assert step_of() == step, "the album changed nothing"
    assert simulator.deliveries("copyMessages") == []


def test_the_same_album_again_is_silent_and_a_new_album_is_answered(client, simulator):
    send(client, simulator, "/broadcast")
    send_album(client, simulator, "g-a")
    before = len(texts_to(simulator))
    send_album(client, simulator, "g-b")
    assert texts_to(simulator)[before:] == [t("wiz_album_not_now")]


def test_paid_broadcasts_on_an_album_goes_free_and_the_preview_says_so(client, simulator, app):
    set_setting("broadcast_paid_enabled", True)
    create_users([7001])
    send(client, simulator, "/broadcast")
    send_album(client, simulator, "g-paid", n=2)
    press(client, simulator, "w.aud:all")
    assert texts_to(simulator)[-1] == screen(1, duration="≈ ۱ ثانیه", paid=t("wiz_album_free_line"), album=2)
    press(client, simulator, "w.confirm")
    [job] = all_jobs()
    assert not job.paid and job.status == "completed"
    assert not any(p["paid"] for p in simulator.deliveries("copyMessages"))


def test_single_photo_still_asks_for_a_button(client, simulator):
    send(client, simulator, "/broadcast")
    send(client, simulator, photo=True, caption="one photo")
    assert step_of() == "wiz:button" and texts_to(simulator)[-1] == t("wiz_ask_button")


def test_starting_the_wizard_forgets_album_rows_older_than_a_week(client, simulator):
    send(client, simulator, "/broadcast")
    send_album(client, simulator, "g-old", n=2)
    send_album(client, simulator, "g-new", n=1)
    db.session.execute(update(AlbumPart).where(AlbumPart.media_group_id == "g-old")
                       .values(created_at=utcnow() - timedelta(days=8)))
    db.session.commit()
    send(client, simulator, "/broadcast")
    groups = db.session.execute(db.select(AlbumPart.media_group_id)).scalars()
    assert set(groups) == {"g-new"}
    db.session.commit()


def test_a_silent_protected_album_reaches_every_recipient_silent_and_protected_in_every_part(client, simulator):
    users = [7001, 7002, 7003]
    create_users(users)
    send(client, simulator, "/broadcast")
    ids = send_album(client, simulator, "g-options", n=3)
    press(client, simulator, "w.aud:all")
    press(client, simulator, "w.opt:silent")
    press(client, simulator, "w.opt:protect")
    press(client, simulator, "w.confirm")
    [job] = all_jobs()
    assert (job.content_type, job.silent, job.protect, job.status) == ("album", True, True, "completed")
    for user_id in users:
        parts = simulator.deliveries("copyMessages", user_id)
        assert [p["source_message_id"] for p in parts] == ids
        assert [(p["silent"], p["protected"]) for p in parts] == [(True, True)] * len(ids)


@pytest.mark.parametrize("users, parts, duration", [
    (60, 3, "≈ ۱۱ ثانیه"),  # 60 sends x 5 bot-wide slots at 29/s = 10.3 s (60 x 3 parts alone would say 7 s)
    (30, 10, "≈ ۲۰ ثانیه"),  # 30 x 19 slots = 19.7 s (30 x 10 parts alone would say 11 s)
])
def test_the_screen_of_an_album_shows_the_pumps_slot_model_duration(client, simulator, users, parts, duration):
    create_users(list(range(7001, 7001 + users)))
    send(client, simulator, "/broadcast")
    send_album(client, simulator, f"g-eta-{parts}", n=parts)
    press(client, simulator, "w.aud:all")
    assert texts_to(simulator)[-1] == screen(users, duration=duration, album=parts)
