"""Language versions in the wizard through the webhook: add an English version, see each counted and previewed,
confirm, and each recipient gets the copy of their language (the simulator's deliveries)."""
import json

import pytest

from app.services import audit
from app.services.broadcast.jobs import creation
from app.services.broadcast.sending.drain import pump
from app.texts import t
from tests.bot.wizard import all_jobs, last_answer, offered, press, send, step_of, tap, texts_to
from tests.broadcast.helpers import engine_settings
from tests.conftest import ADMIN_ID
from tests.factories import admin_state, create_user

pytestmark = pytest.mark.usefixtures("fast_telegram")
FA, EN, EN_US, NONE = 7301, 7302, 7303, 7304


@pytest.fixture
def people(app):
    """Recipients whose language codes are fa, en, en-US and none."""
    create_user(FA, first_name="سارا", language_code="fa")
    create_user(EN, first_name="Ann", language_code="en")
    create_user(EN_US, first_name="", language_code="en-US")
    create_user(NONE, first_name="Nima", language_code=None)


def draft():
    return json.loads(admin_state(ADMIN_ID).draft)


def sent_texts(simulator, users=(FA, EN, EN_US, NONE)):
    return {uid: [d["text"] for d in simulator.deliveries("sendMessage", uid)] for uid in users}


def test_an_english_version_with_greetings_reaches_each_language(client, simulator, people):
    send(client, simulator, "/broadcast")
    send(client, simulator, "سلام {first_name} 🌹")
    press(client, simulator, "w.var:en")
    assert texts_to(simulator)[-1] == t("var_ask_text", code="en", limit=4096)
    send(client, simulator, "Hello {first_name} 🌹")
    assert draft()["variants"] == {"en": "Hello {first_name} 🌹"}
    assert texts_to(simulator)[-1] == t("var_added", code="en", codes="پیش‌فرض، en")
    press(client, simulator, "w.no_button")
    press(client, simulator, "w.aud:all", first_name="مدیر")
    to_admin = texts_to(simulator)
    # The pre-send screen counts each version and previews both, in order.
    screen = to_admin[-1]
    assert "🌐 نسخه‌ها (گیرندگان هر کدام): پیش‌فرض: 2، en: 2" in screen
    assert to_admin[-4:-1] == ["سلام مدیر 🌹", t("var_preview_label", code="en"), "Hello مدیر 🌹"]
    press(client, simulator, "w.confirm")
    [job] = all_jobs()
    assert (job.status, job.sent_count) == ("completed", 4)
    assert sent_texts(simulator) == {FA: ["سلام سارا 🌹"], EN: ["Hello Ann 🌹"], EN_US: ["Hello there 🌹"],
                                     NONE: ["سلام Nima 🌹"]}


def test_a_plain_text_with_a_version_becomes_a_text_broadcast(client, simulator, people):
    send(client, simulator, "/broadcast")
    send(client, simulator, "خبر تازه")
    press(client, simulator, "w.var:en")
    send(client, simulator, "Fresh news")
    assert draft()["content"] == {"type": "text", "text": "خبر تازه", "parse_mode": "HTML"}
    send(client, simulator, "ببین | https://example.com/n")
    press(client, simulator, "w.aud:all")
    press(client, simulator, "w.confirm")
    assert sent_texts(simulator) == {FA: ["خبر تازه"], EN: ["Fresh news"], EN_US: ["Fresh news"],
                                     NONE: ["خبر تازه"]}
    [delivery] = simulator.deliveries("sendMessage", EN)
    assert delivery["reply_markup"]["inline_keyboard"][0][0]["text"] == "ببین"


def test_a_photo_with_another_language_gets_its_caption(client, simulator, people):
    create_user(7305, first_name="Omar", language_code="ar-EG")
    send(client, simulator, "/broadcast")
    send(client, simulator, photo=True, caption="عکس")
    press(client, simulator, "w.var:more")
    assert texts_to(simulator)[-1] == t("var_ask_code")
    send(client, simulator, "arabic")
    assert texts_to(simulator)[-1] == t("var_bad_code", code="arabic")
    send(client, simulator, "AR")
    assert texts_to(simulator)[-1] == t("var_ask_caption", code="ar", limit=1024)
    send(client, simulator, "صورة {first_name}")
    assert texts_to(simulator)[-1] == t("var_copy_greeting", code="ar")
    send(client, simulator, "صورة")
    press(client, simulator, "w.no_button")
    press(client, simulator, "w.aud:all")
    previews = simulator.deliveries("copyMessage", ADMIN_ID)
    assert [p.get("caption") for p in previews] == ["عکس", "صورة"]
    press(client, simulator, "w.confirm")
    assert [d["caption"] for d in simulator.deliveries("copyMessage", 7305)] == ["صورة"]
    assert [d["caption"] for d in simulator.deliveries("copyMessage", EN)] == ["عکس"]


def test_versions_that_would_be_refused_are_refused_at_once(client, simulator, people):
    send(client, simulator, "/broadcast")
    send(client, simulator, "یک متن {first_name}")
    press(client, simulator, "w.var:en")
    send(client, simulator, "یک متن {first_name}")
    assert texts_to(simulator)[-1] == t("var_same", code="en")
    send(client, simulator, "x" * 4097)
    assert texts_to(simulator)[-1] == t("edit_too_long", length=4097, limit=4096)
    send(client, simulator, photo=True)
    assert texts_to(simulator)[-1] == t("var_need_text")
    assert "variants" not in draft()
    send(client, simulator, "One text")
    assert draft()["variants"] == {"en": "One text"}


def finished_variant_job(simulator) -> int:
    """A finished broadcast with an English version, delivered to the four people."""
    job = creation.create_job(audience="all", created_by=ADMIN_ID, content={"type": "text", "text": "خبر {first_name}"},
                              variants={"en": "News {first_name}"}, settings=engine_settings(),
                              actor=audit.admin_actor(ADMIN_ID))
    assert pump(job.id, 10, settings=engine_settings()).stop == "done"
    return job.id


def chats(simulator) -> dict[int, str]:
    return {m["chat_id"]: m["text"] for m in simulator.bot_messages() if m["chat_id"] in (FA, EN, EN_US, NONE)}


def test_edit_everywhere_asks_which_version_and_changes_only_its_copies(client, simulator, people):
    job_id = finished_variant_job(simulator)
    tap(client, simulator, f"j.edit:{job_id}")
    pick = simulator.deliveries("sendMessage", ADMIN_ID)[-1]
    assert pick["text"] == t("edit_pick_variant", id=job_id)
    assert [b["text"] for row in pick["reply_markup"]["inline_keyboard"] for b in row][:2] == [
        t("btn_edit_variant", name="پیش‌فرض", n=2), t("btn_edit_variant", name="en", n=2)]
    press(client, simulator, "a.ev:en", under=pick)
    assert texts_to(simulator)[-1] == t("edit_ask_variant", id=job_id, name="en", n=2, limit=4096)
    send(client, simulator, "Update for {first_name}")
    assert texts_to(simulator)[-1] == t("edit_confirm_variant", id=job_id, name="en")
    press(client, simulator, "a.yes")
    assert chats(simulator) == {FA: "خبر سارا", EN: "Update for Ann", EN_US: "Update for there", NONE: "خبر Nima"}
    # Then the default version, with its own Persian text: the English copies stay English.
    tap(client, simulator, f"j.edit:{job_id}")
    press(client, simulator, "a.ev:default")
    send(client, simulator, "خبر تازه برای {first_name}")
    press(client, simulator, "a.yes")
    assert chats(simulator) == {FA: "خبر تازه برای سارا", EN: "Update for Ann", EN_US: "Update for there",
                                NONE: "خبر تازه برای Nima"}


def test_unsend_from_the_bot_deletes_every_versions_copies(client, simulator, people):
    job_id = finished_variant_job(simulator)
    tap(client, simulator, f"j.unsend:{job_id}")
    press(client, simulator, "a.yes")
    press(client, simulator, "a.yes")
    assert chats(simulator) == {}


def test_a_version_button_of_an_older_draft_or_step_changes_nothing(client, simulator, people):
    send(client, simulator, "/broadcast")
    send(client, simulator, "اول")
    old = offered(simulator, "w.var")
    send(client, simulator, "/broadcast")
    send(client, simulator, "دوم")
    press(client, simulator, "w.var:en", under=old)
    assert last_answer(simulator)["text"] == t("wiz_stale") and step_of() == "wiz:button"
    press(client, simulator, "w.no_button")
    press(client, simulator, "w.var:en")  # the current draft, but the button step is over
    assert last_answer(simulator)["text"] == t("wiz_expired") and step_of() == "wiz:audience"


def test_at_most_eight_versions(client, simulator, people):
    send(client, simulator, "/broadcast")
    send(client, simulator, "متن")
    for code in ("en", "ar", "ru", "de", "fr", "es", "tr", "it"):
        press(client, simulator, "w.var:more")
        send(client, simulator, code)
        send(client, simulator, f"text {code}")
    assert len(draft()["variants"]) == 8
    press(client, simulator, "w.var:more")
    assert last_answer(simulator)["text"] == t("var_too_many", max=8) and step_of() == "wiz:button"
    press(client, simulator, "w.var:en")  # replacing an existing version is still allowed
    send(client, simulator, "text en, again")
    assert draft()["variants"]["en"] == "text en, again" and len(draft()["variants"]) == 8


def test_a_copy_with_versions_not_known_as_media_is_refused_at_confirm(client, simulator, people):
    """A draft whose copy lacks the media mark (saved before the wizard set it) is refused, never sent wrong."""
    from app.extensions import db

    send(client, simulator, "/broadcast")
    send(client, simulator, photo=True, caption="عکس")
    press(client, simulator, "w.var:more")
    send(client, simulator, "en")
    send(client, simulator, "Photo")
    press(client, simulator, "w.no_button")
    press(client, simulator, "w.aud:all")
    state = admin_state(ADMIN_ID)
    saved = json.loads(state.draft)
    assert saved["content"].pop("media") is True
    state.draft = json.dumps(saved)
    db.session.commit()
    press(client, simulator, "w.confirm")
    assert texts_to(simulator)[-1] == t("var_copy_unknown")
    assert all_jobs() == []
    assert [d for d in simulator.deliveries("copyMessage") if d["chat_id"] != ADMIN_ID] == []
