"""An admin is answered only in their own private chat: a forged update naming another chat is ignored."""
import pytest

from app.simulator.updates import callback_update, message_update
from tests.bot.wizard import texts_to
from tests.broadcast.helpers import create_text_job
from tests.conftest import ADMIN_ID
from tests.factories import create_user, post_update, processed_ids

pytestmark = pytest.mark.usefixtures("fast_telegram")
VICTIM = 8201


def outcome_of(response) -> str:
    assert response.status_code == 200, response.get_data(as_text=True)
    return response.get_json()["outcome"]


def test_an_admins_press_forged_inside_a_users_chat_shows_that_user_nothing(client, simulator):
    create_user(VICTIM)
    job_id = create_text_job(progress_chat_id=ADMIN_ID).id
    update = callback_update(ADMIN_ID, f"j.view:{job_id}", VICTIM, message_id=1, update_id=7301)
    outcome = outcome_of(post_update(client, update, sim=simulator))
    assert simulator.deliveries(chat_id=VICTIM) == [], "the user's chat was shown a job view"
    assert outcome == "ignored"
    assert simulator.deliveries(chat_id=ADMIN_ID) == []
    assert simulator.callback_answers() == []
    assert processed_ids() == set()


def test_an_admins_command_forged_inside_a_users_chat_is_ignored(client, simulator):
    create_user(VICTIM)
    create_text_job(progress_chat_id=ADMIN_ID)
    outcomes = [outcome_of(post_update(client, message_update(ADMIN_ID, text, chat_id=VICTIM, update_id=7311 + i),
                                       sim=simulator))
                for i, text in enumerate(["/jobs", "/start", "/broadcast", "/stats"])]
    assert simulator.deliveries(chat_id=VICTIM) == [], "the user's chat got an admin's reply"
    assert outcomes == ["ignored"] * 4
    assert texts_to(simulator, ADMIN_ID) == []
    assert processed_ids() == set()


def test_the_same_admin_in_their_own_chat_is_answered(client, simulator):
    create_user(VICTIM)
    job_id = create_text_job(progress_chat_id=ADMIN_ID).id
    command = message_update(ADMIN_ID, "/jobs", update_id=7321)
    assert outcome_of(post_update(client, command, sim=simulator)) == "handled"
    update = callback_update(ADMIN_ID, f"j.view:{job_id}", ADMIN_ID, message_id=1, update_id=7322)
    assert outcome_of(post_update(client, update, sim=simulator)) == "handled"
    assert len(texts_to(simulator, ADMIN_ID)) == 2
