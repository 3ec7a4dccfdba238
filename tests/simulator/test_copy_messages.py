"""copyMessages: an album copied in order, each part counted bot-wide, parameters checked as Telegram does."""

from __future__ import annotations

import telegram

from app.simulator import updates


def album_source(sim, n: int = 3, chat_id: int = 42) -> list[int]:
    """Store n photos in a chat (the first with a caption); return their ids."""
    return [sim.add_message(chat_id, photo=f"ph-{i}", caption="آلبوم 🎁" if i == 0 else None) for i in range(n)]


def test_copy_messages_copies_the_parts_in_order_and_records_one_album(sim, bot):
    ids = album_source(sim)
    result = bot.ok("copyMessages", chat_id=77, from_chat_id=42, message_ids=ids,
                    disable_notification=True, protect_content=True)
    assert result == [{"message_id": 1}, {"message_id": 2}, {"message_id": 3}]
    assert [telegram.MessageId.de_json(r, None).message_id for r in result] == [1, 2, 3]
    parts = sim.deliveries("copyMessages", 77)
    assert [p["source_message_id"] for p in parts] == ids and [p["part"] for p in parts] == [0, 1, 2]
    assert {p["album"] for p in parts} == {1} and {p["parts"] for p in parts} == {3}
    assert [p["caption"] for p in parts] == ["آلبوم 🎁", None, None] and [p["photo"] for p in parts] == [
        "ph-0", "ph-1", "ph-2"]
    assert all(p["silent"] and p["protected"] for p in parts)
    bot.ok("copyMessages", chat_id=78, from_chat_id=42, message_ids=ids)
    assert {p["album"] for p in sim.deliveries("copyMessages", 78)} == {2}


def test_copy_messages_refuses_what_telegram_refuses(sim, bot):
    ids = album_source(sim)
    for bad in ([], [ids[1], ids[0]], [ids[0], ids[0]], list(range(1, 102)), "not json"):
        code, description, _ = bot.error("copyMessages", chat_id=77, from_chat_id=42, message_ids=bad)
        assert code == 400, (bad, description)
    code, _, _ = bot.error("copyMessages", chat_id=77, from_chat_id=42, message_ids=ids,
                           reply_markup={"inline_keyboard": []})
    assert code == 400
    code, description, _ = bot.error("copyMessages", chat_id=77, from_chat_id=42, message_ids=[ids[0], 999])
    assert (code, description) == (400, "Bad Request: messages to copy not found")
    assert sim.deliveries() == []


def test_every_part_counts_against_the_global_window_and_the_chat_once(sim, bot):
    sim.configure(global_rate=10)
    ids = album_source(sim)
    for chat_id in (101, 102, 103):  # 9 parts of the 10 allowed per second, to 3 chats
        bot.ok("copyMessages", chat_id=chat_id, from_chat_id=42, message_ids=ids)
    code, _, body = bot.error("copyMessages", chat_id=104, from_chat_id=42, message_ids=ids[:2])
    assert code == 429 and body["parameters"]["retry_after"] >= 1, "2 more parts do not fit 10/s"
    bot.ok("sendMessage", chat_id=104, text="the tenth message still fits")
    stats = sim.stats()
    assert stats["busiest_second"] == 10 and stats["429_global"] == 1
    assert sim.deliveries("copyMessages", 104) == []
    # The chat's own pacing counts the album once: one more message to that chat is a per-chat 429.
    sim.configure(global_rate=0)
    code, _, body = bot.error("sendMessage", chat_id=101, text="too soon")
    assert code == 429 and sim.stats()["429_per_chat"] == 1


def test_message_update_builds_an_album_part():
    part = updates.message_update(5, photo=True, caption="c", media_group_id="g-1", message_id=9)["message"]
    assert part["media_group_id"] == "g-1" and part["photo"] and part["caption"] == "c"
    assert telegram.Message.de_json(part, None).media_group_id == "g-1"
    assert "media_group_id" not in updates.message_update(5, photo=True)["message"]


def test_a_part_telegram_cannot_copy_is_skipped_and_the_answer_is_shorter(sim, bot):
    ids = album_source(sim)
    sim.configure(copy_skip=[[77, ids[1]]])  # the middle part, to chat 77 only
    assert bot.ok("copyMessages", chat_id=77, from_chat_id=42, message_ids=ids) == [
        {"message_id": 1}, {"message_id": 2}]
    assert [p["source_message_id"] for p in sim.deliveries("copyMessages", 77)] == [ids[0], ids[2]]
    assert len(bot.ok("copyMessages", chat_id=78, from_chat_id=42, message_ids=ids)) == 3
    code, description, _ = bot.error("copyMessages", chat_id=77, from_chat_id=42, message_ids=[ids[1]])
    assert (code, description) == (400, "Bad Request: messages to copy not found")
