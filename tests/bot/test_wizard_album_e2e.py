
"""An album through the wizard end to end: parts posted by the simulator to a served webhook, out of order."""
import json
import threading
import time

import pytest

from app.extensions import db
from app.models import AlbumPart
from app.texts import t
from tests.bot.wizard import all_jobs, buttons, offered, post, screen
from tests.conftest import ADMIN_ID
from tests.factories import admin_state, create_users

USERS = [9101, 9102, 9103, 9104]


def post_parts_concurrently(sim, updates, outcome: str = "handled") -> None:
    """POST every part at once from its own thread (Telegram may deliver them to different processes)."""
    results = []
    threads = [threading.Thread(target=lambda u=u: results.append(sim.post_update(u))) for u in updates]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert [(status, body["outcome"]) for status, body in results] == [(200, outcome)] * len(updates), results


def albums_in(deliveries) -> dict[int, list[dict]]:
    """Group copyMessages deliveries by the simulator's album number."""
    groups: dict[int, list[dict]] = {}
    for d in deliveries:
        groups.setdefault(d["album"], []).append(d)
    return groups


@pytest.mark.usefixtures("served")
def test_an_album_of_three_photos_reaches_every_user_as_one_album_exactly_once(simulator):
    sim = simulator
    create_users(USERS)
    post(sim, "message", user_id=ADMIN_ID, text="/start", first_name="مدیر")
    post(sim, "message", user_id=ADMIN_ID, text="/broadcast")
    parts = [sim.build_update("message", user_id=ADMIN_ID, photo=True, media_group_id="album-1",
                              caption="جشنواره‌ی تابستانه 🎁" if i == 0 else None) for i in range(3)]
    part_ids = [u["message"]["message_id"] for u in parts]
    assert part_ids == sorted(part_ids)
    # Out of order and concurrently, as separate updates.
    post_parts_concurrently(sim, [parts[2], parts[0], parts[1]])
    # A redelivered part (Telegram retries a webhook) adds nothing and says nothing.
    post_parts_concurrently(sim, [parts[1]], outcome="duplicate")

    to_admin = [d["text"] for d in sim.deliveries("sendMessage", ADMIN_ID)]
    assert to_admin[-1] == t("wiz_album_taken") + "\n\n" + t("wiz_choose_audience"), to_admin
    assert to_admin.count(to_admin[-1]) == 1 and t("wiz_ask_button") not in to_admin
    assert not any(text.startswith("❌") for text in to_admin), to_admin
    assert json.loads(admin_state(ADMIN_ID).draft)["content"]["type"] == "album"

    keyboard = offered(sim, "w.aud:all")
    [data] = [d for d in buttons(keyboard) if d.startswith("w.aud:all:")]
    post(sim, "callback_query", user_id=ADMIN_ID, data=data, message_chat_id=ADMIN_ID,
         message_id=keyboard["message_id"])
    [preview] = albums_in(sim.deliveries("copyMessages", ADMIN_ID)).values()
    assert [d["source_message_id"] for d in preview] == part_ids
    preview_text = offered(sim, "w.confirm")
    assert preview_text["text"] == screen(5, duration="≈ ۱ ثانیه", album=3)
    [confirm] = [data for data in buttons(preview_text) if data.startswith("w.confirm:")]
    for _ in range(2):  # a double tap
        post(sim, "callback_query", user_id=ADMIN_ID, data=confirm, message_chat_id=ADMIN_ID,
             message_id=preview_text["message_id"])

    [job] = all_jobs()
    assert (job.status, job.content_type, job.total_count, job.sent_count) == ("completed", "album", 5, 5)
    assert json.loads(job.source_message_ids) == part_ids and job.button_text is None and not job.paid
    for user_id in USERS:
        [album] = albums_in(sim.deliveries("copyMessages", user_id)).values()
        assert [d["source_message_id"] for d in album] == part_ids
        assert [d["part"] for d in album] == [0, 1, 2] and {d["parts"] for d in album} == {3}
        assert album[0]["caption"] == "جشنواره‌ی تابستانه 🎁" and all(d["photo"] for d in album)
        assert all(d["reply_markup"] is None for d in album)
        assert sim.deliveries("copyMessage", user_id) == []
    # The admin /started too: the preview album, then the broadcast's own.
    assert len(albums_in(sim.deliveries("copyMessages", ADMIN_ID))) == 2
    stats = sim.stats()
    assert stats["429_total"] == 0 and stats["calls"]["copyMessages"] == 1 + 5, stats
    db.session.expire_all()
    stored = db.session.execute(db.select(AlbumPart.message_id).where(AlbumPart.admin_id == ADMIN_ID)).scalars()
    assert sorted(stored) == [0, *part_ids]  # the parts, and the album's "answered" marker
    db.session.commit()


@pytest.mark.usefixtures("served")
def test_eight_parts_at_once_get_exactly_one_answer_at_each_step(simulator):
    sim = simulator
    create_users(USERS[:1])
    post(sim, "message", user_id=ADMIN_ID, text="/broadcast")
    for group, answer in (("burst-1", t("wiz_album_taken") + "\n\n" + t("wiz_choose_audience")),
                          ("burst-2", t("wiz_album_not_now"))):
        before = len(sim.deliveries("sendMessage", ADMIN_ID))
        parts = [sim.build_update("message", user_id=ADMIN_ID, photo=True, media_group_id=group) for _ in range(8)]
        post_parts_concurrently(sim, parts[::-1])
        assert [d["text"] for d in sim.deliveries("sendMessage", ADMIN_ID)[before:]] == [answer]
        db.session.expire_all()
        stored = db.session.execute(db.select(AlbumPart.message_id).where(AlbumPart.media_group_id == group))
        assert sorted(stored.scalars()) == [0] + [u["message"]["message_id"] for u in parts]
        db.session.commit()
    assert json.loads(admin_state(ADMIN_ID).draft)["content"]["media_group_id"] == "burst-1"


@pytest.mark.usefixtures("served")
def test_a_non_admins_album_of_ten_parts_gets_one_reply(simulator):
    sim = simulator
    stranger = USERS[0]
    create_users([stranger])
    parts = [sim.build_update("message", user_id=stranger, photo=True, media_group_id="strange-1") for _ in range(10)]
    post_parts_concurrently(sim, parts[::-1])
    assert [d["text"] for d in sim.deliveries("sendMessage", stranger)] == [t("unknown_command")]
    # The next album gets its own one reply; a plain message its own as before (each a second later:
    # a reply that cannot have its chat's 1/s slot soon is dropped, see test_busy_chat.py).
    time.sleep(1.1)
    post_parts_concurrently(sim, [sim.build_update("message", user_id=stranger, photo=True,
                                                   media_group_id="strange-2") for _ in range(3)])
    time.sleep(1.1)
    post(sim, "message", user_id=stranger, text="hello?")
    assert [d["text"] for d in sim.deliveries("sendMessage", stranger)] == [t("unknown_command")] * 3
    assert admin_state(stranger) is None and all_jobs() == []
