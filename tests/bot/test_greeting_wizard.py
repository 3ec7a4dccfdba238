"""Personal greeting in the wizard through the webhook: text with {first_name} becomes a text broadcast."""
import json

import pytest

from app.simulator.updates import message_update
from app.texts import t
from tests.bot.wizard import all_jobs, press, send, texts_to
from tests.conftest import ADMIN_ID
from tests.factories import admin_state, create_user, post_update

pytestmark = pytest.mark.usefixtures("fast_telegram")


@pytest.fixture
def named_users(app):
    create_user(7101, first_name="<b>Ali</b>", language_code="fa")
    create_user(7102, first_name="", language_code="fa")


def test_text_with_first_name_is_personalised_for_each_recipient(client, simulator, named_users):
    send(client, simulator, "/broadcast")
    # "سلام" is bold in the admin's message: the broadcast keeps it as HTML.
    update = message_update(ADMIN_ID, "سلام {first_name} <عزیز>", first_name="مدیر")
    update["message"]["entities"] = [{"type": "bold", "offset": 0, "length": 4}]
    assert post_update(client, update, sim=simulator).status_code == 200
    assert texts_to(simulator)[-2:] == [t("wiz_personal"), t("wiz_ask_button")]
    content = json.loads(admin_state(ADMIN_ID).draft)["content"]
    assert content == {"type": "text", "text": "<b>سلام</b> {first_name} &lt;عزیز&gt;", "parse_mode": "HTML"}
    press(client, simulator, "w.no_button")
    press(client, simulator, "w.aud:all", first_name="مدیر")
    # The preview is rendered for the admin, with the admin's own name; nothing is copied.
    assert simulator.deliveries("copyMessage", ADMIN_ID) == []
    preview = simulator.deliveries("sendMessage", ADMIN_ID)[-2]
    assert (preview["text"], preview["parse_mode"]) == ("<b>سلام</b> مدیر &lt;عزیز&gt;", "HTML")
    press(client, simulator, "w.confirm")
    [job] = all_jobs()
    assert (job.status, job.content_type, job.sent_count) == ("completed", "text", 2)
    assert [d["text"] for d in simulator.deliveries("sendMessage", 7101)] == [
        "<b>سلام</b> &lt;b&gt;Ali&lt;/b&gt; &lt;عزیز&gt;"]
    assert [d["text"] for d in simulator.deliveries("sendMessage", 7102)] == ["<b>سلام</b> کاربر &lt;عزیز&gt;"]


def test_a_copied_message_cannot_be_personalised_and_the_wizard_says_so(client, simulator, named_users):
    send(client, simulator, "/broadcast")
    send(client, simulator, photo=True, caption="جایزه برای {first_name}")
    assert texts_to(simulator)[-2:] == [t("wiz_cannot_personalise"), t("wiz_ask_button")]
    assert json.loads(admin_state(ADMIN_ID).draft)["content"]["type"] == "copy"


def test_a_plain_text_stays_a_copy(client, simulator, named_users):
    send(client, simulator, "/broadcast")
    send(client, simulator, "سلام به همه")
    assert texts_to(simulator)[-1] == t("wiz_ask_button")
    assert json.loads(admin_state(ADMIN_ID).draft)["content"]["type"] == "copy"


def test_a_personal_text_is_measured_with_a_name_in_place_of_the_placeholder(client, simulator, named_users):
    send(client, simulator, "/broadcast")
    # {first_name} counts as the 5-unit fallback name, as the edit flow, the CLI and the engine count it.
    send(client, simulator, "{first_name} " + "ب" * 4091)
    assert texts_to(simulator)[-1] == t("wiz_text_too_long", length=4097)
    send(client, simulator, "{first_name} " + "ب" * 4090)
    assert texts_to(simulator)[-2:] == [t("wiz_personal"), t("wiz_ask_button")]
