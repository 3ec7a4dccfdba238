"""The whole admin wizard through the webhook, with real update JSON and the simulator's record."""
import json
import threading

import pytest

from app.extensions import db
from app.models.user import CHANNEL_MEMBER
from app.services.settings import set_setting
from app.simulator.updates import message_update
from app.texts import t
from tests.bot.wizard import all_jobs, last_answer, press, screen, send, step_of, tap, texts_to
from tests.conftest import ADMIN_ID
from tests.factories import admin_state, create_user, create_users, get_user, post_update

pytestmark = pytest.mark.usefixtures("fast_telegram")
URL = "https://example.com/dl?v=2"


@pytest.fixture
def audience(app):
    """Four reachable users (one channel member) and one blocked user."""
    create_users([5001, 5002, 5003])
    create_user(5004, main_channel_status=CHANNEL_MEMBER)
    create_user(5005, is_blocked=True)
    return [5001, 5002, 5003, 5004]


def keyboard_of(delivery) -> list[list[dict]]:
    return delivery["reply_markup"]["inline_keyboard"]


def test_text_message_with_button_to_everyone(client, simulator, audience):
    send(client, simulator, "/broadcast")
    assert texts_to(simulator) == [t("wiz_send_message")]
    assert step_of() == "wiz:message"

    message = send(client, simulator, "📢 خبر مهم: نسخه‌ی ۲ منتشر شد 🎉")
    source_id = message["message"]["message_id"]
    assert step_of() == "wiz:button"
    draft = json.loads(admin_state(ADMIN_ID).draft)
    assert draft["content"] == {"type": "copy", "from_chat_id": ADMIN_ID, "message_id": source_id}
    draft_id = draft["draft_id"]
    ask = simulator.deliveries("sendMessage", ADMIN_ID)[-1]
    assert ask["text"] == t("wiz_ask_button")
    assert keyboard_of(ask) == [[{"text": t("btn_no_button"), "callback_data": f"w.no_button:{draft_id}"}],
                                [{"text": t("btn_add_english"), "callback_data": f"w.var:en:{draft_id}"},
                                 {"text": t("btn_add_variant"), "callback_data": f"w.var:more:{draft_id}"}]]

    send(client, simulator, f"دانلود نسخه‌ی جدید | {URL}")
    choose = simulator.deliveries("sendMessage", ADMIN_ID)[-1]
    assert choose["text"] == t("wiz_choose_audience")
    assert keyboard_of(choose) == [
        [{"text": t("aud_all", count=4), "callback_data": f"w.aud:all:{draft_id}"}],
        [{"text": t("aud_non_members", count=3), "callback_data": f"w.aud:non_members:{draft_id}"}],
        [{"text": t("aud_members", count=1), "callback_data": f"w.aud:members:{draft_id}"}],
    ]

    press(client, simulator, "w.aud:all")
    assert last_answer(simulator)["text"] is None
    [preview_copy] = simulator.deliveries("copyMessage", ADMIN_ID)
    assert (preview_copy["from_chat_id"], preview_copy["source_message_id"]) == (ADMIN_ID, source_id)
    assert preview_copy["text"] == "📢 خبر مهم: نسخه‌ی ۲ منتشر شد 🎉"
    assert keyboard_of(preview_copy) == [[{"text": "دانلود نسخه‌ی جدید", "url": URL}]]
    question = simulator.deliveries("sendMessage", ADMIN_ID)[-1]
    assert question["text"] == screen(4)
    preview_id = json.loads(admin_state(ADMIN_ID).draft)["preview_id"]
    confirm_id = json.loads(admin_state(ADMIN_ID).draft)["confirm_id"]
    assert len({preview_id, confirm_id, draft_id}) == 3
    assert [b["callback_data"] for b in keyboard_of(question)[-1]] == [f"w.confirm:{confirm_id}",
                                                                       f"w.abort:{preview_id}"]
    assert step_of() == "wiz:preview"
    assert all_jobs() == []

    press(client, simulator, "w.confirm")
    assert last_answer(simulator)["text"] == t("cb_working")
    [job] = all_jobs()
    assert (job.audience, job.created_by, job.content_type) == ("all", ADMIN_ID, "copy")
    assert (job.from_chat_id, job.source_message_id) == (ADMIN_ID, source_id)
    assert (job.button_text, job.button_url, job.total_count) == ("دانلود نسخه‌ی جدید", URL, 4)
    assert step_of() is None
    # Four users: the request's bounded pumps finish the job right there.
    assert (job.status, job.sent_count) == ("completed", 4)
    for user_id in audience:
        [copy] = simulator.deliveries("copyMessage", user_id)
        assert copy["source_message_id"] == source_id
        assert keyboard_of(copy) == [[{"text": "دانلود نسخه‌ی جدید", "url": URL}]]
    assert simulator.deliveries(chat_id=5005) == []
    assert simulator.stats()["duplicates"] == 0

    # A replayed (new update_id) confirm finds no draft: no second job.
    press(client, simulator, "w.confirm")
    assert last_answer(simulator)["text"] == t("wiz_expired")
    assert len(all_jobs()) == 1


def test_photo_with_caption_no_button_paid_preview(client, simulator, audience):
    set_setting("broadcast_paid_enabled", "on")
    send(client, simulator, t("menu_broadcast", "en"), language_code="en")
    assert texts_to(simulator) == [t("wiz_send_message", "en")]
    photo = send(client, simulator, photo=True, caption="عکس روز 📷", language_code="en")
    press(client, simulator, "w.no_button", language_code="en")
    assert texts_to(simulator)[-1] == t("wiz_choose_audience", "en")
    press(client, simulator, "w.aud:non_members", language_code="en")
    [preview] = simulator.deliveries("copyMessage", ADMIN_ID)
    assert preview["photo"] == photo["message"]["photo"][-1]["file_id"]
    assert (preview["caption"], preview["reply_markup"]) == ("عکس روز 📷", None)
    paid = t("wiz_paid_line", "en", stars="0.3", cap=10000) + t("wiz_balance_line", "en", balance="1000")
    assert texts_to(simulator)[-1] == screen(3, "non_members", "en", duration="≈ 1 s",
                                             paid=t("wiz_paid_at_start", "en") + paid)
    press(client, simulator, "w.confirm", language_code="en")  # paid: a second confirmation first
    assert all_jobs() == []
    assert texts_to(simulator)[-1] == (t("wiz_paid_confirm", "en", count=3) + paid + t("wiz_paid_ask", "en"))
    press(client, simulator, "w.confirm", language_code="en")
    [job] = all_jobs()
    assert (job.audience, job.total_count, job.paid, job.button_text) == ("non_members", 3, True, None)
    assert sorted(d["chat_id"] for d in simulator.deliveries("copyMessage") if d["chat_id"] != ADMIN_ID) == [
        5001, 5002, 5003]


@pytest.mark.parametrize("kwargs, key, values", [
    ({"text": "   "}, "wiz_empty", {}),
    ({"text": "x" * 4097}, "wiz_text_too_long", {"length": 4097}),
    ({"photo": True, "caption": "c" * 1025}, "wiz_caption_too_long", {"length": 1025}),
])
def test_bad_messages_keep_the_step(client, simulator, app, kwargs, key, values):
    send(client, simulator, "/broadcast")
    send(client, simulator, **kwargs)
    assert texts_to(simulator)[-1] == t(key, **values)
    assert step_of() == "wiz:message"


def test_unsupported_message_keeps_the_step(client, simulator, app):
    send(client, simulator, "/broadcast")
    update = message_update(ADMIN_ID)
    update["message"]["location"] = {"latitude": 35.7, "longitude": 51.4}
    post_update(client, update)
    assert texts_to(simulator)[-1] == t("wiz_unsupported")
    assert step_of() == "wiz:message"


@pytest.mark.parametrize("text, reason", [
    ("just text", t("btn_err_format")),
    ("text |", t("btn_err_format")),
    ("t" * 65 + " | https://e.com", t("btn_err_text_long", length=65)),
    ("t | ftp://e.com", t("btn_err_url")),
    ("t | https://e.com/a b", t("btn_err_url")),
    ("t | https://e.com/" + "a" * 600, t("btn_err_url_long", length=614)),
    ("t | https://intranet", t("btn_err_url_host")),
    ("t | https://a/b", t("btn_err_url_host")),
    ("t | https://10.0.0.1/x", t("btn_err_url_host")),
], ids=["no-pipe", "no-url", "long-text", "ftp", "space", "long-url", "no-domain", "one-letter-host", "ip"])
def test_bad_buttons_keep_the_step(client, simulator, app, text, reason):
    send(client, simulator, "/broadcast")
    send(client, simulator, "hello")
    send(client, simulator, text)
    assert texts_to(simulator)[-1] == t("wiz_bad_button", reason=reason)
    assert step_of() == "wiz:button"


def test_photo_at_the_button_step_is_refused(client, simulator, app):
    send(client, simulator, "/broadcast")
    send(client, simulator, "hello")
    send(client, simulator, photo=True)
    assert texts_to(simulator)[-1] == t("wiz_bad_button", reason=t("btn_err_format"))


def test_empty_audience_keeps_the_audience_step(client, simulator, audience):
    send(client, simulator, "/broadcast")
    send(client, simulator, "hello")
    press(client, simulator, "w.no_button")
    block(5004)  # the only member: "members" is now empty
    press(client, simulator, "w.aud:members")
    answer = last_answer(simulator)
    assert (answer["text"], answer["show_alert"]) == (t("wiz_empty_audience"), True)
    assert step_of() == "wiz:audience"
    assert simulator.deliveries("copyMessage") == []


def block(user_id):
    get_user(user_id).is_blocked = True
    db.session.commit()


def test_changing_the_audience_at_preview(client, simulator, audience):
    send(client, simulator, "/broadcast")
    send(client, simulator, "hello")
    press(client, simulator, "w.no_button")
    press(client, simulator, "w.aud:all")
    press(client, simulator, "w.aud:members")
    assert texts_to(simulator)[-1] == screen(1, "members")
    press(client, simulator, "w.confirm")
    [job] = all_jobs()
    assert (job.audience, job.total_count) == ("members", 1)


def test_input_at_button_steps_gets_a_hint(client, simulator, audience):
    send(client, simulator, "/broadcast")
    send(client, simulator, "hello")
    press(client, simulator, "w.no_button")
    send(client, simulator, "all please")
    assert texts_to(simulator)[-1] == t("wiz_choose_audience")
    press(client, simulator, "w.aud:all")
    send(client, simulator, "go")
    assert texts_to(simulator)[-1] == t("wiz_use_buttons")
    assert step_of() == "wiz:preview"


@pytest.mark.parametrize("steps", [0, 1, 2, 3])
def test_cancel_at_any_step(client, simulator, audience, steps):
    send(client, simulator, "/broadcast")
    actions = [lambda: send(client, simulator, "hello"), lambda: press(client, simulator, "w.no_button"),
               lambda: press(client, simulator, "w.aud:all")]
    for action in actions[:steps]:
        action()
    send(client, simulator, "/cancel")
    assert texts_to(simulator)[-1] == t("cancelled")
    assert step_of() is None
    tap(client, simulator, "w.confirm")
    assert last_answer(simulator)["text"] == t("wiz_expired")
    assert all_jobs() == []


def test_abort_button(client, simulator, audience):
    send(client, simulator, "/broadcast")
    send(client, simulator, "hello")
    press(client, simulator, "w.no_button")
    press(client, simulator, "w.aud:all")
    press(client, simulator, "w.abort")
    assert texts_to(simulator)[-1] == t("wiz_aborted")
    assert step_of() is None
    press(client, simulator, "w.abort")
    assert last_answer(simulator)["text"] == t("wiz_expired")
    send(client, simulator, "/cancel")
    assert texts_to(simulator)[-1] == t("nothing_to_cancel")


def test_stale_buttons_expire(client, simulator, audience):
    for data in ("w.no_button", "w.aud:all", "w.confirm", "w.no_button:1", "garbage"):
        tap(client, simulator, data)
        assert last_answer(simulator)["text"] == t("wiz_expired")
    assert all_jobs() == [] and step_of() is None


def test_concurrent_confirms_create_one_job(app, client, simulator, audience):
    send(client, simulator, "/broadcast")
    send(client, simulator, "hello")
    press(client, simulator, "w.no_button")
    press(client, simulator, "w.aud:all")
    barrier = threading.Barrier(2)

    def confirm():
        barrier.wait(5)
        press(app.test_client(), simulator, "w.confirm")

    threads = [threading.Thread(target=confirm) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert len(all_jobs()) == 1
    assert sorted(a["text"] for a in simulator.callback_answers()[-2:]) == sorted(
        [t("cb_working"), t("wiz_expired")])
    assert simulator.stats()["duplicates"] == 0


def test_audience_gone_at_confirm_returns_to_the_audience_step(client, simulator, audience):
    send(client, simulator, "/broadcast")
    send(client, simulator, "hello")
    press(client, simulator, "w.no_button")
    press(client, simulator, "w.aud:members")
    block(5004)
    press(client, simulator, "w.confirm")
    assert last_answer(simulator)["text"] == t("cb_working")
    assert all_jobs() == []
    assert texts_to(simulator)[-1] == t("wiz_empty_audience")
    assert step_of() == "wiz:audience"


def test_start_drops_an_unfinished_wizard(client, simulator, app):
    send(client, simulator, "/broadcast")
    send(client, simulator, "/start")
    assert step_of() is None
