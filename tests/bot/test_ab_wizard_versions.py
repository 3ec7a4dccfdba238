"""The wizard's A/B versions beyond text, through the webhook: a media version, a version's own buttons, the winner
chosen by a button on the pre-send screen, and each refusal in words the admin can act on."""
import json

import pytest
from sqlalchemy import select

from app.extensions import db
from app.models import BroadcastJobItem
from app.services.broadcast.ab import report
from app.services.broadcast.reporting import clicks
from app.simulator.updates import message_update
from app.texts import t
from tests.bot.wizard import all_jobs, buttons, offered, press, send, step_of, tap, texts_to
from tests.conftest import ADMIN_ID
from tests.factories import admin_state, create_users, post_update

pytestmark = pytest.mark.usefixtures("fast_telegram")
PUBLIC = "https://bot.example.com"
USERS = range(6001, 6041)  # 40 recipients: 50 % of them is 20, 10 per version
SHARED = "بیشتر - https://example.com/more | خرید - https://example.com/buy"
OWN_B = "بیشتر - https://b.example.com/more | خرید - https://b.example.com/buy"


@pytest.fixture
def tracked(app):
    """The app with PUBLIC_URL set (clicks are tracked) and 40 users."""
    app.config["PUBLIC_URL"] = PUBLIC
    create_users(USERS)
    yield app
    app.config["PUBLIC_URL"] = None


def draft() -> dict:
    """Return the admin's stored draft."""
    return json.loads(admin_state(ADMIN_ID).draft)


def start(client, simulator, first="نسخهٔ الف") -> None:
    """Start a broadcast with a text and turn it into a test."""
    send(client, simulator, "/broadcast")
    send(client, simulator, first)
    press(client, simulator, "w.ab")


def to_screen(client, simulator, shared=SHARED) -> None:
    """End the versions, take 50 % and 2 h, the shared buttons and everyone: the pre-send screen."""
    press(client, simulator, "w.abv")
    press(client, simulator, "w.abs:50")
    press(client, simulator, "w.abw:2h")
    if shared is None:
        press(client, simulator, "w.no_button")
    else:
        send(client, simulator, shared)
    press(client, simulator, "w.aud:all")


def test_a_media_version_with_its_own_buttons_and_the_winner_by_a_button(tracked, client, simulator):
    start(client, simulator)
    photo = send(client, simulator, photo=True, caption="عکس پیشنهاد")["message"]["message_id"]
    send(client, simulator, OWN_B)  # B's own buttons
    assert texts_to(simulator)[-1] == t("ab_keys_saved", v="B", labels="بیشتر · خرید")
    to_screen(client, simulator)
    screen = simulator.deliveries("sendMessage", ADMIN_ID)[-1]
    assert t("ab_presend_row", v="B", n=10, words=t("ab_presend_media", words="عکس پیشنهاد")) in screen["text"]
    assert t("ab_presend_keys", labels="بیشتر · خرید") in screen["text"] and t("ab_presend_rule_ctr") in screen["text"]
    # The preview copied B's photo under B's own buttons.
    [preview] = [d for d in simulator.deliveries("copyMessage", ADMIN_ID) if d["source_message_id"] == photo]
    assert [b["text"] for b in preview["reply_markup"]["inline_keyboard"][0]] == ["بیشتر", "خرید"]
    goal_rows = [b for b in buttons(screen) if b.startswith("w.abg:")]
    assert [b.split(":")[1] for b in goal_rows] == ["0", "1", "2"]
    press(client, simulator, "w.abg:2")
    screen = simulator.deliveries(chat_id=ADMIN_ID)[-1]
    assert t("ab_presend_rule_button", text="خرید") in screen["text"]
    press(client, simulator, "w.confirm")
    [job] = all_jobs()
    own = json.loads(job.ab_content)
    assert own["B"]["copy"] == photo and own["A"] == {"goal": 2} and own["B"]["goal"] == 2
    assert report.summary(job)["rule"] == {"by": "button", "position": 2, "text": "خرید"}
    # The Confirm sent the test: A's recipients the text under the shared buttons, B's the photo under B's own.
    item = BroadcastJobItem
    versions = dict(db.session.execute(select(item.user_id, item.variant).where(item.job_id == job.id)).all())
    db.session.commit()
    for user, letter in versions.items():
        [copy] = simulator.deliveries(chat_id=user)
        buy = copy["reply_markup"]["inline_keyboard"][0][1]["url"]
        location = client.get(buy[len(PUBLIC):]).headers["Location"]
        if letter == "A":
            assert (copy["method"], copy["text"], location) == ("sendMessage", "نسخهٔ الف", "https://example.com/buy")
        else:
            assert (copy["method"], copy["source_message_id"], location) == ("copyMessage", photo,
                                                                             "https://b.example.com/buy")
        assert buy.startswith(PUBLIC + clicks.PATH)


def test_every_version_with_its_own_buttons_needs_no_shared_link(tracked, client, simulator):
    start(client, simulator)
    send(client, simulator, "سایت - https://a.example.com")
    send(client, simulator, "نسخهٔ ب")
    send(client, simulator, "سایت - https://b.example.com")
    to_screen(client, simulator, shared=None)
    assert step_of() == "wiz:preview"
    press(client, simulator, "w.confirm")
    [job] = all_jobs()
    assert sorted(json.loads(job.ab_content)) == ["A", "B"] and job.keyboard is None and job.button_url is None


def test_an_album_as_a_version_is_refused_saying_why(tracked, client, simulator):
    start(client, simulator)
    for i in range(2):
        post_update(client, message_update(ADMIN_ID, photo=True, media_group_id="g1", caption="x" if i == 0 else None),
                    sim=simulator)
    assert texts_to(simulator)[-1] == t("ab_album")
    assert (step_of(), draft()["ab"]) == ("wiz:ab_version", {"versions": ["نسخهٔ الف"]})


@pytest.mark.parametrize("keys,answer", [
    ("کد - copy:OFF20", ("ab_keys_need_link", {"v": "A"})),
    ("سایت - https://intranet", None),  # a URL Telegram refuses: the builder's own reason, named
])
def test_own_buttons_that_cannot_go_are_refused_and_the_draft_kept(tracked, client, simulator, keys, answer):
    start(client, simulator)
    send(client, simulator, keys)
    said = texts_to(simulator)[-1]
    if answer:
        assert said == t(answer[0], **answer[1])
    else:
        assert said.startswith(t("ab_keys_refused", v="A", reason="")[:12])
    assert "keys" not in draft()["ab"] and step_of() == "wiz:ab_version"


def test_a_forged_goal_that_is_no_offered_button_is_ctr(tracked, client, simulator):
    start(client, simulator)
    send(client, simulator, "نسخهٔ ب")
    to_screen(client, simulator)
    tap(client, simulator, f"w.abg:7:{draft()['preview_id']}")
    assert draft()["ab"]["goal"] is None
    assert offered(simulator, "w.confirm")
