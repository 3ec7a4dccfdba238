"""The wizard's keyboard builder: the admin's text becomes rows, the preview carries them, every copy gets them."""
from __future__ import annotations

import json

import pytest

from app.services.audience import key_press
from app.texts import t
from tests.bot.test_wizard_album import send_album
from tests.bot.wizard import all_jobs, last_answer, press, screen, send, step_of, tap, texts_to
from tests.conftest import ADMIN_ID
from tests.factories import admin_state, create_users

pytestmark = pytest.mark.usefixtures("fast_telegram")
BUILT = ("Shop - https://example.com/shop | Code - copy:SALE20\n"
         "I'm in - tag:VIP:Noted | Hours - menu:9 to 17\n"
         "Blog - https://example.org/blog")


def rows_of(delivery: dict) -> list[list[str]]:
    return [[b["text"] for b in row] for row in delivery["reply_markup"]["inline_keyboard"]]


def test_the_admins_text_becomes_the_keyboard_of_the_preview_and_of_every_copy(client, simulator):
    create_users([7001, 7002])
    send(client, simulator, "/broadcast")
    send(client, simulator, "Big sale!")
    send(client, simulator, BUILT)
    assert step_of() == "wiz:audience"
    press(client, simulator, "w.aud:all")
    [preview] = simulator.deliveries("copyMessage", ADMIN_ID)
    assert rows_of(preview) == [["Shop", "Code"], ["I'm in", "Hours"], ["Blog"]]
    preview_rows = preview["reply_markup"]["inline_keyboard"]
    assert preview_rows[1][0]["callback_data"] == "w.kp" and preview_rows[0][1]["copy_text"] == {"text": "SALE20"}
    tap(client, simulator, "w.kp", message_id=preview["message_id"])
    assert (last_answer(simulator)["text"], last_answer(simulator)["show_alert"]) == (t("key_preview"), True)
    press(client, simulator, "w.confirm")
    [job] = all_jobs()
    assert (job.status, job.sent_count) == ("completed", 2)
    for user_id in (7001, 7002):
        [copy] = simulator.deliveries("copyMessage", user_id)
        rows = copy["reply_markup"]["inline_keyboard"]
        assert rows_of(copy) == rows_of(preview)
        assert rows[0][0]["url"] == "https://example.com/shop" and rows[2][0]["url"] == "https://example.org/blog"
        assert rows[1] == [{"text": "I'm in", "callback_data": key_press.callback_data(job.id, 3)},
                           {"text": "Hours", "callback_data": key_press.callback_data(job.id, 4)}]


def test_an_error_names_the_line_and_button_and_keeps_the_draft(client, simulator):
    create_users([7001])
    send(client, simulator, "/broadcast")
    send(client, simulator, "Big sale!")
    before = admin_state(ADMIN_ID).draft
    send(client, simulator, "Shop - https://example.com\nA - https://a.org | B - copy:" + "x" * 300)
    reason = t("key_err_at", row=2, button=2, reason=t("key_err_copy", length=300))
    assert texts_to(simulator)[-1] == t("wiz_bad_key", reason=reason)
    assert step_of() == "wiz:button" and admin_state(ADMIN_ID).draft == before
    send(client, simulator, "Shop - https://intranet", language_code="en")
    assert "row 1, button 1: the link must name a real domain" in texts_to(simulator)[-1]
    send(client, simulator, "Shop - https://example.com")
    assert step_of() == "wiz:audience"
    assert json.loads(admin_state(ADMIN_ID).draft)["keyboard"] == {
        "rows": [[{"kind": "url", "text": "Shop", "url": "https://example.com"}]]}


@pytest.mark.parametrize("keyboard, duration", [
    (None, "≈ ۱۱ ثانیه"),  # 60 sends x 5 bot-wide slots at 29/s = 10.3 s
    ("Shop - https://example.com/shop", "≈ ۱۶ ثانیه"),  # a fourth message: 60 x 7 slots = 14.5 s, and a second
])
def test_the_screen_of_an_album_counts_its_keyboard_message(client, simulator, keyboard, duration):
    create_users(list(range(7001, 7061)))
    send(client, simulator, "/broadcast")
    send_album(client, simulator, "g-kb-eta")
    if keyboard:
        send(client, simulator, keyboard)
    press(client, simulator, "w.aud:all")
    assert screen(60, duration=duration, album=3) in texts_to(simulator)[-1]


def test_an_album_takes_a_keyboard_that_follows_it_in_a_message_of_its_own(client, simulator):
    create_users([7001, 7002])
    send(client, simulator, "/broadcast")
    send_album(client, simulator, "g-kb")
    send(client, simulator, "Shop - https://example.com/shop\nnote: Tap 👇")
    assert step_of() == "wiz:audience"
    press(client, simulator, "w.aud:all")
    [preview_kb] = [d for d in simulator.deliveries("sendMessage", ADMIN_ID) if d["text"] == "Tap 👇"]
    assert rows_of(preview_kb) == [["Shop"]]
    press(client, simulator, "w.confirm")
    [job] = all_jobs()
    assert (job.content_type, job.status, job.sent_count) == ("album", "completed", 2)
    for user_id in (7001, 7002):
        assert len(simulator.deliveries("copyMessages", user_id)) == 3
        [kb] = simulator.deliveries("sendMessage", user_id)
        assert kb["text"] == "Tap 👇" and rows_of(kb) == [["Shop"]]


def test_the_wizard_refuses_a_placeholder_in_a_buttons_answer_and_keeps_the_step(client, simulator):
    create_users([7001])
    send(client, simulator, "/broadcast")
    send(client, simulator, "Big sale!")
    send(client, simulator, "Hours - menu:Hi {first_name}")
    reason = t("key_err_at", row=1, button=1, reason=t("ph_fixed_answer", placeholder="{first_name}"))
    assert texts_to(simulator, ADMIN_ID)[-1] == t("wiz_bad_key", reason=reason)
    send(client, simulator, "Join | tag:vip | {field:plan}")
    assert texts_to(simulator, ADMIN_ID)[-1] == t(
        "wiz_bad_button", reason=t("ph_fixed_tap_answer", placeholder="{field:plan}"))
    assert step_of() == "wiz:button"
