"""Tag on tap: a broadcast's button tags whoever presses it, answers them and counts; forged presses change nothing."""
import json

import pytest

from app.services.audience import tap
from app.texts import t
from tests.audience.helpers import all_tags, ok, tags_of
from tests.bot.wizard import all_jobs, last_answer, press, send
from tests.bot.wizard import tap as press_data
from tests.factories import create_users

pytestmark = pytest.mark.usefixtures("fast_telegram")


def tap_job(runner, *extra) -> int:
    """Create and pump a text broadcast with a tap button; return its id."""
    job_id = int(ok(runner, "broadcast", "create", "--audience", "all", "--text", "جشنواره!",
                    "--tap-button", "🎁 می‌خواهم", "--tap-tag", "Festival", *extra).strip())
    ok(runner, "broadcast", "pump", "--seconds", "5")
    return job_id


def button_of(simulator, user_id: int) -> tuple[int, str]:
    """Return (message id, callback data) of the tap button under the user's copy."""
    [copy] = [d for d in simulator.deliveries("sendMessage", user_id) if d["text"] == "جشنواره!"]
    [[button]] = copy["reply_markup"]["inline_keyboard"]
    assert button["text"] == "🎁 می‌خواهم"
    return copy["message_id"], button["callback_data"]


def status(runner, job_id: int) -> dict:
    return json.loads(ok(runner, "broadcast", "status", str(job_id)))


def test_a_press_tags_the_user_answers_and_counts_once_per_user(client, simulator, runner):
    create_users([901, 902])
    job_id = tap_job(runner, "--tap-answer", "ثبت شد؛ خبرتان می‌کنیم 🎉")
    message_id, data = button_of(simulator, 901)
    assert len(data.encode()) <= 64 and data == tap.callback_data(job_id)
    press_data(client, simulator, data, user_id=901, message_id=message_id)
    assert last_answer(simulator)["text"] == "ثبت شد؛ خبرتان می‌کنیم 🎉"
    press_data(client, simulator, data, user_id=901, message_id=message_id)  # a second press: no second tag
    assert tags_of(901) == {"festival"} and tags_of(902) == set()
    assert status(runner, job_id)["tap"] == {"tag": "festival", "presses": 2, "tagged": 1}
    assert json.loads(ok(runner, "users", "show", "901", "--json"))["tags"][0]["origin"] == "button"


def test_without_an_answer_the_press_is_thanked_in_the_users_language(client, simulator, runner):
    create_users([903], language_code="en")
    job_id = tap_job(runner)
    message_id, data = button_of(simulator, 903)
    press_data(client, simulator, data, user_id=903, message_id=message_id, language_code="en")
    assert last_answer(simulator)["text"] == t("tap_done", "en")
    assert status(runner, job_id)["tap"]["tagged"] == 1


def test_forged_presses_answer_a_neutral_line_and_change_nothing(client, simulator, runner):
    create_users([904, 905])
    job_id = tap_job(runner)
    message_id, data = button_of(simulator, 904)
    plain = int(ok(runner, "broadcast", "create", "--audience", "all", "--text", "بدون دکمه").strip())
    create_users([906])  # not a recipient of the job
    forged = [
        f"b.tap:{job_id + 1}.{data.rsplit('.', 1)[1]}",  # another job id under this job's mac
        tap.callback_data(plain),  # a genuine mac of a job without a tap button
        data[:-1] + ("A" if data[-1] != "A" else "B"),  # an altered mac
    ]
    for bad in forged:
        press_data(client, simulator, bad, user_id=904, message_id=message_id)
        assert last_answer(simulator)["text"] == t("tap_refused", "fa"), bad
    press_data(client, simulator, data, user_id=906, message_id=message_id)
    assert last_answer(simulator)["text"] == t("tap_refused", "fa")
    assert all_tags() == set()
    assert status(runner, job_id)["tap"] == {"tag": "festival", "presses": 0, "tagged": 0}


@pytest.mark.parametrize("args, words", [
    (["--tap-button", "x"], "give --tap-button and --tap-tag together"),
    (["--tap-button", "x", "--tap-tag", "a b"], "contains a space"),
    (["--tap-button", "x", "--tap-tag", "a", "--tap-answer", "y" * 201], "at most 200"),
    (["--copy-from", "-100", "--message-ids", "1,2", "--tap-button", "x", "--tap-tag", "a"], "an album carries no"),
])
def test_bad_tap_buttons_are_refused_in_one_line(app, runner, args, words):
    create_users([907])
    text = [] if "--copy-from" in args else ["--text", "سلام"]
    result = runner.invoke(args=["broadcast", "create", "--audience", "all", *text, *args])
    assert result.exit_code == 2 and words in result.output, result.output
    assert all_jobs() == []


def test_the_wizard_takes_a_tap_button(client, simulator):
    send(client, simulator, "/start", user_id=908)
    send(client, simulator, "/broadcast")
    send(client, simulator, "خبر")
    send(client, simulator, "ثبت‌نام | tag:VIP | ممنون!")
    press(client, simulator, "w.aud:all")
    press(client, simulator, "w.confirm")
    [job] = all_jobs()
    assert (job.tap_text, job.tap_tag, job.tap_answer) == ("ثبت‌نام", "vip", "ممنون!")
    copy = [d for d in simulator.deliveries("copyMessage", 908)][-1]
    press_data(client, simulator, copy["reply_markup"]["inline_keyboard"][0][0]["callback_data"], user_id=908,
               message_id=copy["message_id"])
    assert last_answer(simulator)["text"] == "ممنون!" and tags_of(908) == {"vip"}


def test_the_wizard_refuses_a_bad_tap_tag_and_stays_on_the_step(client, simulator):
    send(client, simulator, "/broadcast")
    send(client, simulator, "خبر")
    send(client, simulator, "ثبت‌نام | tag:a,b")
    assert "contains a comma" in simulator.deliveries("sendMessage", 1001)[-1]["text"]
