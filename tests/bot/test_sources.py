"""Where users came from: /start <payload> through the webhook, /stats, and the pre-send screen's source filter."""
import logging

import pytest

from app.simulator.updates import message_update
from app.texts import t
from tests.bot.wizard import all_jobs, offered, press, screen, send, texts_to
from tests.conftest import ADMIN_ID
from tests.factories import get_user, post_update

pytestmark = pytest.mark.usefixtures("fast_telegram")
AD, CHANNEL = "ad_winter-1", "channel"


def start(client, simulator, user_id: int, payload: str | None = None, **kwargs) -> None:
    """Send /start (with a payload, as a deep link does) and check the user was welcomed."""
    text = "/start" if payload is None else f"/start {payload}"
    response = post_update(client, message_update(user_id, text, **kwargs))
    assert response.status_code == 200 and response.get_json()["outcome"] == "handled"
    assert texts_to(simulator, user_id)[-1].startswith(t("welcome", name="User"))


def test_the_first_payload_is_kept_and_later_ones_do_not_overwrite_it(client, simulator):
    start(client, simulator, 9101, AD)
    start(client, simulator, 9101, CHANNEL)
    start(client, simulator, 9101)
    assert get_user(9101).start_source == AD
    # Started without one: the first payload brought later is recorded, and then kept.
    start(client, simulator, 9102)
    assert get_user(9102).start_source is None
    start(client, simulator, 9102, CHANNEL)
    start(client, simulator, 9102, AD)
    assert get_user(9102).start_source == CHANNEL
    # The longest payload Telegram allows is stored whole.
    start(client, simulator, 9103, "x" * 64)
    assert get_user(9103).start_source == "x" * 64


@pytest.mark.parametrize("payload", ["x" * 65, "bad.chars", "سلام", "a b", "<script>", "a%20b", "ab\u200c"])
def test_an_invalid_payload_is_ignored_and_the_user_still_welcomed(client, simulator, caplog, payload):
    caplog.set_level(logging.INFO, logger="app.bot.start")
    start(client, simulator, 9201, payload)
    user = get_user(9201)
    assert user is not None and user.start_source is None
    assert any("/start payload ignored" in r.getMessage() for r in caplog.records)
    # A valid one later is recorded as the first source.
    start(client, simulator, 9201, AD)
    assert get_user(9201).start_source == AD


def test_stats_list_users_per_source(client, simulator):
    for user_id in (9301, 9302, 9303):
        start(client, simulator, user_id, AD)
    start(client, simulator, 9304, CHANNEL)
    start(client, simulator, 9305)
    send(client, simulator, "/stop", user_id=9302)
    start(client, simulator, ADMIN_ID)
    send(client, simulator, "/stats")
    text = texts_to(simulator)[-1]
    assert text.endswith(t("stats_sources")
                         + t("stats_source_line", source=AD, users=3, joined_7d=3, joined_30d=3, subscribed=2)
                         + t("stats_source_line", source=CHANNEL, users=1, joined_7d=1, joined_30d=1, subscribed=1))


def test_the_pre_send_screen_filters_by_source(client, simulator):
    for user_id in (9401, 9402):
        start(client, simulator, user_id, AD)
    start(client, simulator, 9403, CHANNEL)
    start(client, simulator, 9404, "y" * 60)  # too long for a button: only the CLI filters by it
    start(client, simulator, ADMIN_ID)
    send(client, simulator, "/broadcast")
    send(client, simulator, "hello")
    press(client, simulator, "w.no_button")
    press(client, simulator, "w.aud:all")
    shown = offered(simulator, "w.src")
    labels = [b["text"] for row in shown["reply_markup"]["inline_keyboard"] for b in row
              if b.get("callback_data", "").startswith("w.src:")]
    assert labels == [f"🔗 {AD}", f"🔗 {CHANNEL}"]
    press(client, simulator, f"w.src:{AD}")
    edited = offered(simulator, "w.confirm")
    assert edited["text"] == screen(2, filters=f" (از منبع {AD})")
    assert f"🔗 {AD} ✅" in [b["text"] for row in edited["reply_markup"]["inline_keyboard"] for b in row]
    press(client, simulator, "w.confirm")
    [job] = all_jobs()
    assert (job.audience_sources, job.total_count, job.sent_count) == (AD, 2, 2)
    assert sorted(d["chat_id"] for d in simulator.deliveries("copyMessage") if d["chat_id"] != ADMIN_ID) == [
        9401, 9402]
