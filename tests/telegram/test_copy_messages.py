"""copy_messages through the client: one request, one bot-wide slot per copied message, the chat paced once."""

from app.telegram.call_pacing import slots_for
from app.telegram.client import TelegramClient
from app.telegram.pacing import RateLimiter


class CountingLane:
    """A bot-wide budget lane that grants every slot and counts them."""

    def __init__(self):
        self.taken = 0

    def acquire(self, deadline=None, max_wait=None):
        self.taken += 1
        return True


def test_copy_messages_takes_a_budget_slot_per_part_and_keeps_the_album(simulator):
    ids = [simulator.add_message(42, photo=f"p{i}") for i in range(3)]
    lane = CountingLane()
    with TelegramClient(simulator.token, simulator.base_url) as client:
        client.budget = lane
        result = client.copy_messages(77, 42, list(reversed(ids)))
        assert [r["message_id"] for r in result] == [1, 2, 3]
        assert lane.taken == 3
        client.send_message(79, "one more")
        assert lane.taken == 4
    assert [d["source_message_id"] for d in simulator.deliveries("copyMessages", 77)] == ids


def test_a_broadcast_album_takes_its_rate_slots_too(simulator):
    ids = [simulator.add_message(42, photo=f"p{i}") for i in range(4)]
    limiter = RateLimiter(rate=1000, burst=10)
    lane = CountingLane()
    with TelegramClient(simulator.token, simulator.base_url, rate_limiter=limiter) as client:
        client.broadcast_budget = lane
        client.call("copyMessages", {"chat_id": 78, "from_chat_id": 42, "message_ids": ids}, broadcast=True)
    assert lane.taken == 4


def test_slots_for():
    assert slots_for("copyMessages", {"message_ids": [1, 2, 3]}) == 3
    assert slots_for("copyMessage", {"message_id": 1}) == 1
    assert slots_for("sendMessage", {}) == 1
