"""The wizard end to end over real HTTP: the simulator POSTs updates to a served webhook, real pacing on."""
import time

import pytest

from app.texts import t
from tests.bot.wizard import all_jobs, buttons, offered, post, screen
from tests.conftest import ADMIN_ID
from tests.factories import create_users, get_user


@pytest.mark.usefixtures("served")
def test_wizard_over_http_with_real_pacing(simulator):
    sim = simulator
    create_users([9001, 9002, 9003])
    started = time.monotonic()
    post(sim, "message", user_id=ADMIN_ID, text="/start", first_name="مدیر")
    post(sim, "message", user_id=ADMIN_ID, text="📢 پیامرسانی همگانی")
    post(sim, "message", user_id=ADMIN_ID, photo=True, caption="جشنواره 🎁")
    post(sim, "message", user_id=ADMIN_ID, text="ورود | https://example.org")
    keyboard = offered(sim, "w.aud:all")
    [data] = [d for d in buttons(keyboard) if d.startswith("w.aud:all:")]
    post(sim, "callback_query", user_id=ADMIN_ID, data=data, message_chat_id=ADMIN_ID,
         message_id=keyboard["message_id"])
    preview = offered(sim, "w.confirm")
    [confirm] = [data for data in buttons(preview) if data.startswith("w.confirm:")]
    for _ in range(2):  # a double tap
        post(sim, "callback_query", user_id=ADMIN_ID, data=confirm, message_chat_id=ADMIN_ID,
             message_id=preview["message_id"])

    [job] = all_jobs()
    assert (job.status, job.total_count, job.sent_count) == ("completed", 4, 4)  # the admin /started too
    to_admin = [d["text"] for d in sim.deliveries("sendMessage", ADMIN_ID)]
    assert to_admin[:4] == [t("welcome", name="مدیر") + "\n\n" + t("admin_menu"), t("wiz_send_message"),
                            t("wiz_ask_button"), t("wiz_choose_audience")]
    assert to_admin[4] == screen(4)
    for user_id in (9001, 9002, 9003):
        [copy] = sim.deliveries("copyMessage", user_id)
        assert copy["caption"] == "جشنواره 🎁" and copy["photo"]
        assert copy["reply_markup"] == {"inline_keyboard": [[{"text": "ورود", "url": "https://example.org"}]]}
    assert [a["text"] for a in sim.callback_answers()] == [None, t("cb_working"), t("wiz_expired")]
    # The admin started the bot, so they get the preview and then the broadcast itself: the
    # simulator's only "duplicate" content. Everyone else got exactly one copy.
    assert len(sim.deliveries("copyMessage", ADMIN_ID)) == 2
    stats = sim.stats()
    assert (stats["duplicates"], stats["429_total"]) == (1, 0), stats
    assert get_user(ADMIN_ID).first_name == "مدیر"
    assert time.monotonic() - started < 30
