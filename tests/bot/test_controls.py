"""Buttons under the progress message: continue, cancel, pause, resume."""
import pytest

from app.services.broadcast.jobs import creation
from app.services.settings import load_settings, set_setting
from app.texts import t
from tests.bot.wizard import all_jobs, last_answer, tap
from tests.conftest import ADMIN_ID
from tests.factories import create_users

pytestmark = pytest.mark.usefixtures("fast_telegram")
RECIPIENTS = list(range(6001, 6011))


@pytest.fixture
def job_id(app, simulator):
    """A running job of ten recipients with its progress message, nothing sent yet."""
    create_users(RECIPIENTS)
    source = simulator.add_message(ADMIN_ID, text="news")
    set_setting("webhook_pump_calls", "0")  # the continue taps below pump nothing unless asked
    job = creation.create_job(audience="all", created_by=ADMIN_ID, content={
        "type": "copy", "from_chat_id": ADMIN_ID, "message_id": source}, settings=load_settings(),
        progress_chat_id=ADMIN_ID)
    return job.id


def status(job_id):
    return next(job.status for job in all_jobs() if job.id == job_id)


def test_continue_sends_and_finishes(client, simulator, job_id):
    tap(client, simulator, f"w.continue:{job_id}")
    assert last_answer(simulator)["text"] == t("cb_working")
    assert status(job_id) == "running"  # webhook_pump_calls=0: only the progress message
    progress = simulator.deliveries("sendMessage", ADMIN_ID)
    assert len(progress) == 1 and f"#{job_id}" in progress[0]["text"]
    set_setting("webhook_pump_calls", "3")
    tap(client, simulator, f"w.continue:{job_id}")
    assert status(job_id) == "completed"
    assert sorted(d["chat_id"] for d in simulator.deliveries("copyMessage")) == RECIPIENTS
    tap(client, simulator, f"w.continue:{job_id}")
    assert last_answer(simulator)["text"] == t("cb_finished")
    assert len(simulator.deliveries("copyMessage")) == len(RECIPIENTS)


def test_pause_resume_cancel_and_double_taps(client, simulator, job_id):
    tap(client, simulator, f"w.continue:{job_id}")  # creates the progress message
    progress_id = simulator.deliveries("sendMessage", ADMIN_ID)[0]["message_id"]
    tap(client, simulator, f"w.pause:{job_id}", message_id=progress_id)
    assert (last_answer(simulator)["text"], status(job_id)) == (t("cb_paused"), "paused")
    edits = simulator.deliveries("editMessageText", ADMIN_ID)
    assert edits and edits[-1]["message_id"] == progress_id
    assert [row[0]["callback_data"] for row in edits[-1]["reply_markup"]["inline_keyboard"]] == [
        f"w.resume:{job_id}", f"w.cancel_job:{job_id}"]
    tap(client, simulator, f"w.pause:{job_id}", message_id=progress_id)
    assert (last_answer(simulator)["text"], status(job_id)) == (t("cb_paused"), "paused")
    tap(client, simulator, f"w.resume:{job_id}", message_id=progress_id)
    assert (last_answer(simulator)["text"], status(job_id)) == (t("cb_resumed"), "running")
    tap(client, simulator, f"w.resume:{job_id}", message_id=progress_id)
    assert status(job_id) == "running"
    tap(client, simulator, f"w.cancel_job:{job_id}", message_id=progress_id)
    assert (last_answer(simulator)["text"], status(job_id)) == (t("cb_cancelled"), "cancelled")
    for data in ("w.cancel_job", "w.pause", "w.resume", "w.continue"):
        tap(client, simulator, f"{data}:{job_id}", message_id=progress_id)
        assert last_answer(simulator)["text"] == t("cb_finished")
    assert status(job_id) == "cancelled"
    assert simulator.deliveries("copyMessage") == []


def test_unknown_job(client, simulator, app):
    for data in ("w.continue:999999", "w.cancel_job:424242", "w.pause:5", "w.resume:2"):
        tap(client, simulator, data)
        assert last_answer(simulator)["text"] == t("cb_unknown_job")


def test_every_tap_is_answered_exactly_once(client, simulator, job_id):
    taps = [f"w.continue:{job_id}", f"w.pause:{job_id}", f"w.resume:{job_id}", f"w.cancel_job:{job_id}",
            f"w.cancel_job:{job_id}", "w.continue:77777"]
    for data in taps:
        tap(client, simulator, data)
    answers = simulator.callback_answers()
    assert len(answers) == len(taps)
    assert len({a["callback_query_id"] for a in answers}) == len(taps)
