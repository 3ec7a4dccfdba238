"""Opt-out without blocking, through the webhook and the simulator: /stop, /subscribe, their buttons, counts."""
import pytest

from app.models.broadcast import CONTENT_ALBUM, BroadcastJob
from app.services.broadcast.content.methods import action_params, message_params
from app.services.broadcast.reporting import unsubscribes
from app.services.settings import set_setting
from app.simulator.updates import my_chat_member_update
from app.texts import t
from tests.bot.wizard import all_jobs, buttons, offered, press, screen, send, tap, texts_to
from tests.conftest import ADMIN_ID
from tests.factories import get_user, post_update

pytestmark = pytest.mark.usefixtures("fast_telegram")
STAYS, LEAVES = 8101, 8102
OPTOUT_LABEL = t("btn_optout", "fa") + " · " + t("btn_optout", "en")


def start_users(client, simulator, *user_ids, language_code="fa"):
    for user_id in user_ids:
        send(client, simulator, "/start", user_id=user_id, language_code=language_code)


def broadcast(client, simulator, text: str) -> BroadcastJob:
    """Send a text to every user through the admin's wizard; return the job (run by the webhook's pumps)."""
    send(client, simulator, "/broadcast")
    send(client, simulator, text)
    press(client, simulator, "w.no_button")
    press(client, simulator, "w.aud:all")
    press(client, simulator, "w.confirm")
    return all_jobs()[-1]


def received(simulator, user_id: int, text: str) -> bool:
    """Tell whether the user got a copy of the admin's message with this text."""
    return any(d.get("text") == text for d in simulator.deliveries("copyMessage", user_id))


def test_stop_confirms_offers_to_subscribe_and_leaves_the_user_out_of_counts_and_jobs(client, simulator):
    start_users(client, simulator, ADMIN_ID, STAYS, LEAVES)
    send(client, simulator, "/stop", user_id=LEAVES, language_code="en")
    confirmation = simulator.deliveries("sendMessage", LEAVES)[-1]
    assert confirmation["text"] == t("optout_done", "en")
    assert buttons(confirmation) == ["u.sub"]
    assert get_user(LEAVES).opted_out_at is not None and not get_user(LEAVES).is_blocked

    # The audience buttons and the pre-send screen count two (the admin and STAYS), and so does the job.
    send(client, simulator, "/broadcast")
    send(client, simulator, "خبر اول")
    press(client, simulator, "w.no_button")
    audiences = offered(simulator, "w.aud:all")
    assert audiences["reply_markup"]["inline_keyboard"][0][0]["text"] == t("aud_all", count=2)
    press(client, simulator, "w.aud:all")
    assert texts_to(simulator)[-1] == screen(2)
    press(client, simulator, "w.confirm")
    [job] = all_jobs()
    assert (job.status, job.total_count, job.sent_count) == ("completed", 2, 2)
    assert received(simulator, STAYS, "خبر اول") and not received(simulator, LEAVES, "خبر اول")

    # Still a user: the bot answers them.
    send(client, simulator, "/help", user_id=LEAVES, language_code="en")
    assert texts_to(simulator, LEAVES)[-1] == t("help_user", "en")


def test_start_does_not_resubscribe_and_block_then_unblock_keeps_the_opt_out(client, simulator):
    start_users(client, simulator, ADMIN_ID, STAYS, LEAVES)
    send(client, simulator, "/stop", user_id=LEAVES)
    stopped_at = get_user(LEAVES).opted_out_at
    send(client, simulator, "/start", user_id=LEAVES)
    assert post_update(client, my_chat_member_update(LEAVES, "member", "kicked")).status_code == 200
    assert get_user(LEAVES).is_blocked
    assert post_update(client, my_chat_member_update(LEAVES, "kicked", "member")).status_code == 200
    send(client, simulator, "/start", user_id=LEAVES)
    user = get_user(LEAVES)
    assert (user.is_blocked, user.opted_out_at) == (False, stopped_at)

    job = broadcast(client, simulator, "خبر دوم")
    assert (job.total_count, job.sent_count) == (2, 2)
    assert not received(simulator, LEAVES, "خبر دوم")


def test_the_subscribe_button_and_command_bring_the_user_back(client, simulator):
    start_users(client, simulator, ADMIN_ID, STAYS, LEAVES)
    send(client, simulator, "/stop", user_id=LEAVES)
    send(client, simulator, "/stop", user_id=LEAVES)  # twice: confirmed again, the first time kept
    press(client, simulator, "u.sub", user_id=LEAVES)
    assert texts_to(simulator, LEAVES)[-1] == t("optin_done")
    assert get_user(LEAVES).opted_out_at is None
    job = broadcast(client, simulator, "خبر سوم")
    assert job.total_count == 3 and received(simulator, LEAVES, "خبر سوم")

    send(client, simulator, "/stop", user_id=STAYS)
    send(client, simulator, "/subscribe", user_id=STAYS)
    assert texts_to(simulator, STAYS)[-1] == t("optin_done") and get_user(STAYS).opted_out_at is None


def test_the_optout_button_under_each_copy_unsubscribes_the_pressing_user(client, simulator):
    start_users(client, simulator, ADMIN_ID, STAYS, LEAVES)
    first = broadcast(client, simulator, "بدون دکمه")
    assert not first.optout_button
    assert simulator.deliveries("copyMessage", LEAVES)[-1].get("reply_markup") is None
    set_setting("broadcast_optout_button", "on")
    job = broadcast(client, simulator, "با دکمه")
    assert job.optout_button and job.sent_count == 3
    copy = simulator.deliveries("copyMessage", LEAVES)[-1]
    assert copy["text"] == "با دکمه"
    data = unsubscribes.callback_data(job.id)  # the broadcast's id, signed: its unsubscribes are counted on it
    assert data.startswith(f"u.off:{job.id}.")
    assert copy["reply_markup"] == {"inline_keyboard": [[{"text": OPTOUT_LABEL, "callback_data": data}]]}

    # A non-admin presses it: no "admins only", the same as /stop.
    answer = tap(client, simulator, data, user_id=LEAVES, message_id=copy["message_id"])
    assert answer["outcome"] == "handled"
    assert texts_to(simulator, LEAVES)[-1] == t("optout_done")
    assert get_user(LEAVES).opted_out_at is not None
    assert t("not_admin") not in texts_to(simulator, LEAVES)
    assert broadcast(client, simulator, "بعدی").total_count == 2


def test_a_copy_keeps_its_url_button_above_the_optout_row_and_albums_carry_none(app):
    job = BroadcastJob(id=42, content_type="text", text="x", button_text="ورود", button_url="https://example.org",
                       optout_button=True, silent=False, protect=False)
    _method, params = message_params(job, paid=False)
    assert params["reply_markup"]["inline_keyboard"] == [
        [{"text": "ورود", "url": "https://example.org"}],
        [{"text": OPTOUT_LABEL, "callback_data": unsubscribes.callback_data(42)}]]
    album = BroadcastJob(content_type=CONTENT_ALBUM, from_chat_id=1, source_message_ids="[5, 6]",
                         optout_button=True, silent=False, protect=False)
    method, params = message_params(album, paid=False)
    assert method == "copyMessages" and "reply_markup" not in params
    # Editing a copy everywhere keeps both rows (an edit without reply_markup would drop them).
    edit = BroadcastJob(id=43, kind="edit", source_job_id=42, content_type="text", text="y", button_text="ورود",
                        button_url="https://example.org", optout_button=True)
    assert action_params(edit)[1]["reply_markup"]["inline_keyboard"][-1] == [  # still counted on the broadcast
        {"text": OPTOUT_LABEL, "callback_data": unsubscribes.callback_data(42)}]
