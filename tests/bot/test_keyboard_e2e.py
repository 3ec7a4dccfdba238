"""A keyboard built with `broadcast create --key` reaches each copy as built: tracked per button, answered inside."""
from __future__ import annotations

import json

import pytest
from sqlalchemy import select

from app.extensions import db
from app.models import BroadcastButton, BroadcastJob, BroadcastJobItem
from app.services.audience import key_press
from app.services.broadcast.reporting import clicks, results
from app.texts import t
from tests.audience.helpers import all_tags, ok, refused, tags_of
from tests.bot.wizard import last_answer
from tests.bot.wizard import tap as press_data
from tests.factories import create_users

pytestmark = pytest.mark.usefixtures("fast_telegram")
PUBLIC = "https://bot.example.com"
KEYS = ("--key", "url:🛒 Shop|https://example.com/shop", "--key", "url:Blog|https://example.org/blog",
        "--key", "---", "--key", "copy:Code|SALE20", "--key", "tap:I'm in|VIP|Noted 🎉",
        "--key", "---", "--key", "menu:Hours|Sat–Wed, 9 to 17")


@pytest.fixture
def tracked(app):
    """A deployment that tracks clicks (PUBLIC_URL set)."""
    app.config["PUBLIC_URL"] = PUBLIC
    yield app
    app.config["PUBLIC_URL"] = None


def keyboard_job(runner, *keys: str, text: str = "Offer!") -> int:
    """Create and pump a text broadcast with a keyboard; return its id."""
    job_id = int(ok(runner, "broadcast", "create", "--audience", "all", "--text", text, *keys).strip())
    ok(runner, "broadcast", "pump", "--seconds", "5")
    return job_id


def markup_of(simulator, user_id: int, text: str = "Offer!") -> tuple[int, list]:
    """Return (message id, inline rows) of the user's copy."""
    [copy] = [d for d in simulator.deliveries("sendMessage", user_id) if d["text"] == text]
    return copy["message_id"], copy["reply_markup"]["inline_keyboard"]


def counters(job_id: int) -> dict[int, tuple[int, int, int]]:
    db.session.rollback()
    rows = db.session.execute(select(BroadcastButton.position, BroadcastButton.clicks, BroadcastButton.first_clicks,
                                     BroadcastButton.presses).where(BroadcastButton.job_id == job_id))
    return {pos: (c, f, p) for pos, c, f, p in rows}


def test_a_multi_row_keyboard_reaches_each_copy_exactly_as_built(tracked, runner, simulator):
    create_users([901, 902])
    job_id = keyboard_job(runner, *KEYS)
    _, rows = markup_of(simulator, 901)
    assert [[b["text"] for b in row] for row in rows] == [["🛒 Shop", "Blog"], ["Code", "I'm in"], ["Hours"]]
    assert [b["url"][:len(PUBLIC + clicks.PATH)] for b in rows[0]] == [PUBLIC + clicks.PATH] * 2
    assert rows[1][0] == {"text": "Code", "copy_text": {"text": "SALE20"}}
    assert rows[1][1]["callback_data"] == key_press.callback_data(job_id, 4)
    assert rows[2][0]["callback_data"] == key_press.callback_data(job_id, 5)
    assert all(len(b["callback_data"].encode()) <= 64 for row in rows for b in row if "callback_data" in b)
    _, other = markup_of(simulator, 902)
    assert other[0][0]["url"] != rows[0][0]["url"], "each copy's link is its own"
    assert counters(job_id) == {pos: (0, 0, 0) for pos in range(1, 6)}


def test_each_url_button_redirects_to_its_own_url_and_counts_on_its_own(tracked, runner, simulator, client):
    create_users([901, 902])
    job_id = keyboard_job(runner, *KEYS)
    _, rows = markup_of(simulator, 901)
    shop, blog = (b["url"][len(PUBLIC):] for b in rows[0])
    assert client.get(blog).headers["Location"] == "https://example.org/blog"
    assert client.get(shop).headers["Location"] == "https://example.com/shop"
    assert client.get(shop).status_code == 302
    _, rows2 = markup_of(simulator, 902)
    client.get(rows2[0][0]["url"][len(PUBLIC):])
    assert counters(job_id)[1][:2] == (3, 1) and counters(job_id)[2][:2] == (1, 1), "first clicks: 902 shop, 901 blog"
    job = db.session.get(BroadcastJob, job_id)
    assert (job.clicks_total, job.clicks_unique) == (4, 2)
    item = db.session.execute(select(BroadcastJobItem).where(BroadcastJobItem.user_id == 901)).scalar_one()
    assert item.clicked_at is not None
    report = json.loads(ok(runner, "broadcast", "report", str(job_id), "--json"))
    assert [(b["text"], b["unique"], b["total"]) for b in report["buttons"]] == [("🛒 Shop", 1, 3), ("Blog", 1, 1)]
    assert report["ctr"] == 1.0 and results.compute(job_id).unique_clicks == 2
    assert clicks.latest_with_button().id == job_id, "/stats reports the keyboard's clicks"


def test_an_altered_button_position_redirects_nowhere(tracked, runner, simulator, client):
    create_users([901])
    job_id = keyboard_job(runner, *KEYS)
    _, rows = markup_of(simulator, 901)
    token = rows[0][1]["url"][len(PUBLIC + clicks.PATH):]
    item_id, position = clicks.parse(token)
    assert position == 2
    moved = clicks._b64(clicks._KEY_ID.pack(item_id, 1)) + token[clicks._KEY_ID_CHARS:]
    missing = clicks._b64(clicks._KEY_ID.pack(item_id, 3)) + token[clicks._KEY_ID_CHARS:]
    for bad in (moved, missing, token[:-1] + ("A" if token[-1] != "A" else "B")):
        assert client.get(clicks.PATH + bad).status_code == 404, bad
    assert counters(job_id)[1] == (0, 0, 0) and db.session.get(BroadcastJob, job_id).clicks_total == 0


def test_tap_and_menu_buttons_answer_inside_the_bot_and_count_per_button(tracked, runner, simulator, client):
    create_users([901, 902])
    job_id = keyboard_job(runner, *KEYS)
    message_id, rows = markup_of(simulator, 901)
    tap_data, menu_data = rows[1][1]["callback_data"], rows[2][0]["callback_data"]
    press_data(client, simulator, tap_data, user_id=901, message_id=message_id)
    assert (last_answer(simulator)["text"], last_answer(simulator)["show_alert"]) == ("Noted 🎉", False)
    press_data(client, simulator, menu_data, user_id=901, message_id=message_id)
    assert (last_answer(simulator)["text"], last_answer(simulator)["show_alert"]) == ("Sat–Wed, 9 to 17", True)
    press_data(client, simulator, tap_data, user_id=901, message_id=message_id)
    assert tags_of(901) == {"vip"} and tags_of(902) == set()
    assert counters(job_id)[4][2] == 2 and counters(job_id)[5][2] == 1
    report = json.loads(ok(runner, "broadcast", "report", str(job_id), "--json"))
    pressed = [(p["text"], p["kind"], p["presses"]) for p in report["presses"]]
    assert pressed == [("I'm in", "tap", 2), ("Hours", "menu", 1)]
    job = db.session.get(BroadcastJob, job_id)
    assert (job.tap_presses, job.tap_tagged) == (3, 1)
    assert not any("callback_data" in m for m in simulator.deliveries("sendMessage", 901)[1:]), "no message added"


def test_forged_or_stale_presses_change_nothing(tracked, runner, simulator, client):
    create_users([901])
    job_id = keyboard_job(runner, *KEYS)
    message_id, rows = markup_of(simulator, 901)
    tap_data = rows[1][1]["callback_data"]
    plain = keyboard_job(runner, text="plain")
    create_users([903])  # not a recipient of the job
    mac = tap_data.rsplit(".", 1)[1]
    forged = [f"b.key:{job_id}.5.{mac}",  # another button under this button's mac
              key_press.callback_data(job_id, 3),  # a genuine mac of the copy button (no press)
              key_press.callback_data(job_id, 9),  # a button the job does not have
              key_press.callback_data(plain, 1),  # a job without a keyboard
              tap_data[:-1] + ("A" if tap_data[-1] != "A" else "B")]
    for bad in forged:
        press_data(client, simulator, bad, user_id=901, message_id=message_id)
        assert last_answer(simulator)["text"] == t("key_refused", "fa"), bad
    press_data(client, simulator, tap_data, user_id=903, message_id=message_id)
    assert last_answer(simulator)["text"] == t("key_refused", "fa")
    assert all_tags() == set() and all(c == (0, 0, 0) for c in counters(job_id).values())
    assert db.session.get(BroadcastJob, job_id).tap_presses == 0


@pytest.mark.parametrize("keys, words", [
    (["url:A|https://a.org", "---", "---", "url:B|https://b.org"], "--key: row 2 is empty"),
    (["url:A|https://a.org", "copy:C|" + "x" * 257], "--key: row 1, button 2: the text to copy is 257 characters"),
    (["url:" + "x" * 65 + "|https://a.org"], "--key: row 1, button 1: the button's label is 65 characters"),
    (["url:A|https://intranet"], "--key: row 1, button 1: the link must name a real domain"),
    ([f"url:B{i}|https://a.org" for i in range(9)], "--key: row 1, button 9: this row has 9 buttons"),
    (["menu:Hours|"], "--key: row 1, button 1: the button's answer is 0 characters"),
    (["link:A|https://a.org"], "--key: row 1, button 1: the button's form is not understood"),
])
def test_a_bad_spec_is_one_line_exit_2_and_creates_nothing(runner, keys, words):
    create_users([901])
    args = [arg for key in keys for arg in ("--key", key)]
    line = refused(runner, "broadcast", "create", "--audience", "all", "--text", "x", *args)
    assert line.startswith("Error: " + words), line
    assert db.session.execute(select(BroadcastJob)).first() is None


def test_the_old_link_and_tap_options_become_the_keyboards_first_rows(tracked, runner, simulator):
    create_users([901])
    job_id = keyboard_job(runner, "--button-text", "Site", "--button-url", "https://example.com",
                          "--tap-button", "Me", "--tap-tag", "me", "--key", "copy:Code|X1")
    _, rows = markup_of(simulator, 901)
    assert [[b["text"] for b in row] for row in rows] == [["Site"], ["Me"], ["Code"]]
    assert rows[1][0]["callback_data"] == key_press.callback_data(job_id, 2)
    job = db.session.get(BroadcastJob, job_id)
    assert (job.button_url, job.tap_text) == (None, None) and json.loads(job.keyboard)["rows"][0][0]["kind"] == "url"
