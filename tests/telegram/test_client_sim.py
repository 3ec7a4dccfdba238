"""Client against the simulated Bot API: verdicts, retries and pacing, counted server-side."""

import pytest

from app.repository.budget import lanes as lanes_repo
from app.services.budget.lane import SharedRateLimiter
from app.telegram.call_pacing import REPLY_CHAT_MARGIN
from app.telegram.client import TelegramClient
from app.telegram.errors import (
    BadRequest,
    Forbidden,
    RetryAfter,
    Unauthorized,
    UnknownOutcome,
    is_not_modified,
    is_recipient_error,
)
from app.telegram.pacing import ChatPacer, RateLimiter
from app.telegram.policy import MAX_RATE_LIMIT_WAITS


class Sleeps(list):
    """Record sleeps instead of sleeping; optionally run a hook on each."""

    def __init__(self, hook=None):
        super().__init__()
        self.hook = hook

    def __call__(self, seconds):
        self.append(seconds)
        if self.hook:
            self.hook()


@pytest.fixture
def sleeps():
    return Sleeps()


@pytest.fixture
def tg(simulator, sleeps):
    with TelegramClient(simulator.token, simulator.base_url, read_timeout=2.0,
                        sleep=sleeps) as client:
        yield client


def calls(simulator, method):
    return simulator.stats()["calls"].get(method, 0)


def test_send_returns_the_message(simulator, tg):
    message = tg.send_message(42, "hello")
    assert message["text"] == "hello" and message["chat"]["id"] == 42
    assert [d["text"] for d in simulator.deliveries(chat_id=42)] == ["hello"]


@pytest.mark.parametrize("setup, cls", [
    (lambda sim: sim.block(42), Forbidden),
    (lambda sim: sim.deactivate(42), Forbidden),
    (lambda sim: sim.forget(42), BadRequest),
])
def test_recipient_verdicts_are_not_retried(simulator, tg, sleeps, setup, cls):
    setup(simulator)
    with pytest.raises(cls) as caught:
        tg.send_message(42, "hello", retry_unknown=True)
    assert is_recipient_error(caught.value)
    assert calls(simulator, "sendMessage") == 1 and sleeps == []


def test_missing_copy_source_is_not_a_recipient_error(simulator, tg):
    with pytest.raises(BadRequest) as caught:
        tg.copy_message(42, -1001234, 999999)
    assert not is_recipient_error(caught.value)
    assert calls(simulator, "copyMessage") == 1


def test_copy_message_copies_a_stored_message(simulator, tg):
    source = simulator.add_message(-1001234, text="announcement")
    assert "message_id" in tg.copy_message(42, -1001234, source)
    assert simulator.deliveries(method="copyMessage", chat_id=42)


def test_revoked_token_is_unauthorized(simulator, tg):
    simulator.revoke_token()
    with pytest.raises(Unauthorized):
        tg.get_me()
    assert calls(simulator, "getMe") <= 1


def test_unknown_method_is_unauthorized_404(tg):
    with pytest.raises(Unauthorized) as caught:
        tg.call("noSuchMethod")
    assert caught.value.error_code == 404


def test_not_modified_edit_is_recognised(tg):
    message = tg.send_message(42, "same")
    with pytest.raises(BadRequest) as caught:
        tg.edit_message_text(42, message["message_id"], "same")
    assert is_not_modified(caught.value)


def test_429_is_waited_when_it_fits_the_deadline(simulator, tg):
    simulator.configure(fail_429_ratio=1.0, retry_after_range=(2, 2))
    waits = Sleeps(hook=lambda: simulator.configure(fail_429_ratio=0.0))
    tg = TelegramClient(simulator.token, simulator.base_url, sleep=waits)
    message = tg.send_message(42, "hi", deadline=tg.clock() + 10)
    assert message["text"] == "hi"
    assert waits == [2.0] and calls(simulator, "sendMessage") == 2


def test_429_propagates_when_the_wait_passes_the_deadline(simulator, tg, sleeps):
    simulator.configure(fail_429_ratio=1.0, retry_after_range=(3, 3))
    with pytest.raises(RetryAfter) as caught:
        tg.send_message(42, "hi", deadline=tg.clock() + 1)
    assert caught.value.retry_after == 3.0 and caught.value.error_code == 429
    assert sleeps == [] and calls(simulator, "sendMessage") == 1


def test_429_waits_are_bounded_even_without_a_deadline(simulator, tg, sleeps):
    simulator.configure(fail_429_ratio=1.0, retry_after_range=(1, 1))
    with pytest.raises(RetryAfter):
        tg.send_message(42, "hi")
    assert sleeps == [1.0] * 2, "max_retries (2) waits when the caller gave no deadline"
    assert calls(simulator, "sendMessage") == 3


def test_429_waits_with_a_deadline_stop_at_the_cap(simulator, tg, sleeps):
    simulator.configure(fail_429_ratio=1.0, retry_after_range=(1, 1))
    with pytest.raises(RetryAfter):
        tg.send_message(42, "hi", deadline=tg.clock() + 10_000)
    assert sleeps == [1.0] * MAX_RATE_LIMIT_WAITS
    assert calls(simulator, "sendMessage") == MAX_RATE_LIMIT_WAITS + 1


def test_429_longer_than_the_cap_is_not_waited_without_a_deadline(simulator, tg, sleeps):
    simulator.configure(fail_429_ratio=1.0, retry_after_range=(61, 61))
    with pytest.raises(RetryAfter):
        tg.send_message(42, "hi")
    assert sleeps == [] and calls(simulator, "sendMessage") == 1


def test_429_blocks_the_pacers_for_other_threads(simulator, sleeps):
    limiter = RateLimiter(rate=1000)
    pacer = ChatPacer()
    tg = TelegramClient(simulator.token, simulator.base_url, max_retries=0, sleep=sleeps,
                        rate_limiter=limiter, chat_pacer=pacer)
    simulator.configure(fail_429_ratio=1.0, retry_after_range=(4, 4))
    with pytest.raises(RetryAfter):
        tg.send_message(42, "hi", broadcast=True, deadline=tg.clock() + 1)
    assert 3.5 < limiter.next_slot_in() <= 4.0
    assert 3.5 < pacer.ready_at(42) - tg.clock() <= 4.0


def test_interactive_429_holds_the_whole_bot_too(simulator, sleeps):
    limiter = RateLimiter(rate=1000)
    pacer = ChatPacer()
    tg = TelegramClient(simulator.token, simulator.base_url, max_retries=0, sleep=sleeps,
                        rate_limiter=limiter, chat_pacer=pacer)
    simulator.configure(fail_429_ratio=1.0, retry_after_range=(4, 4))
    with pytest.raises(RetryAfter):
        tg.send_message(42, "hi", deadline=tg.clock() + 1)
    # Telegram's retry_after applies to the bot: calling again early is what gets bots limited longer.
    assert 3.5 < limiter.next_slot_in() <= 4.0
    assert pacer.ready_at(42) - tg.clock() > 3.5


def test_real_per_chat_limit_is_respected_with_a_pacer(simulator):
    simulator.configure(private_chat_interval=0.3)
    unpaced = TelegramClient(simulator.token, simulator.base_url, max_retries=0)
    unpaced.send_message(7, "one")
    with pytest.raises(RetryAfter):
        unpaced.send_message(7, "two", deadline=unpaced.clock() + 0.1)
    paced = TelegramClient(simulator.token, simulator.base_url, max_retries=0,
                           chat_pacer=ChatPacer(private_interval=0.3))
    for text in ("a", "b", "c"):
        paced.send_message(8, text)
    assert [d["text"] for d in simulator.deliveries(chat_id=8)] == ["a", "b", "c"]


def test_refused_global_slot_raises_without_sending(simulator, sleeps):
    limiter = RateLimiter(rate=0.5)
    tg = TelegramClient(simulator.token, simulator.base_url, rate_limiter=limiter, sleep=sleeps)
    tg.send_message(1, "first", broadcast=True)
    with pytest.raises(RetryAfter) as caught:
        tg.send_message(2, "second", broadcast=True, deadline=tg.clock() + 0.5)
    assert caught.value.error_code is None and 1.0 < caught.value.retry_after <= 2.0
    assert calls(simulator, "sendMessage") == 1


def test_a_low_priority_call_never_waits_for_a_busy_broadcast_lane(simulator, budget):
    lane = SharedRateLimiter(budget, 10)
    tg = TelegramClient(simulator.token, simulator.base_url, max_retries=0)
    tg.budget = tg.broadcast_budget = lane  # a free broadcast draws from the bot-wide lane itself
    progress = tg.send_message(42, "0%")
    assert len(lane.acquire_many(20)) == 20  # a broadcast booked the next 2 s of the lane
    booked = lanes_repo.read_lane(budget, "free")[0]
    with pytest.raises(RetryAfter) as caught:
        tg.call("editMessageText", {"chat_id": 42, "message_id": progress["message_id"], "text": "5%"},
                priority="low", deadline=tg.clock() + 30)
    assert caught.value.error_code is None and calls(simulator, "editMessageText") == 0
    assert lanes_repo.read_lane(budget, "free")[0] == booked, "the refused edit took a slot"
    tg.close()


def test_refused_chat_slot_raises_without_sending(simulator):
    tg = TelegramClient(simulator.token, simulator.base_url, chat_pacer=ChatPacer())
    first = tg.send_message(5, "first")
    with pytest.raises(RetryAfter) as caught:
        tg.send_message(5, "second", deadline=tg.clock() + 0.2)
    # A reply holds a user's chat a second and REPLY_CHAT_MARGIN of it.
    assert 0.5 < caught.value.retry_after <= 1.0 + REPLY_CHAT_MARGIN
    assert calls(simulator, "sendMessage") == 1
    # Deletes are not message-producing, so the chat's pacing does not hold them back.
    assert tg.delete_message(5, first["message_id"], deadline=tg.clock()) is True


def test_5xx_before_delivery_is_unknown_for_sends_and_retried_for_edits(simulator, tg, sleeps):
    message = tg.send_message(42, "v1")
    simulator.configure(fail_5xx_ratio=1.0)
    with pytest.raises(UnknownOutcome) as caught:
        tg.send_message(42, "v2")
    assert caught.value.error_code == 500
    assert calls(simulator, "sendMessage") == 2
    with pytest.raises(UnknownOutcome):
        tg.edit_message_text(42, message["message_id"], "v3")
    assert calls(simulator, "editMessageText") == 3 and sleeps == [0.5, 1.0]


def test_5xx_after_delivery_is_unknown_and_not_resent(simulator, tg):
    simulator.configure(fail_5xx_after_delivery_ratio=1.0)
    with pytest.raises(UnknownOutcome) as caught:
        tg.send_message(42, "maybe")
    assert caught.value.error_code == 502
    assert len(simulator.deliveries(chat_id=42)) == 1
    assert calls(simulator, "sendMessage") == 1


def test_read_timeout_after_delivery_is_unknown_and_not_resent(simulator, sleeps):
    simulator.configure(hang_after_delivery_ratio=1.0, hang_seconds=1.0)
    tg = TelegramClient(simulator.token, simulator.base_url, read_timeout=0.3, sleep=sleeps)
    with pytest.raises(UnknownOutcome) as caught:
        tg.send_message(42, "maybe")
    assert caught.value.description == "read timeout"
    assert len(simulator.deliveries(chat_id=42)) == 1 and sleeps == []


def test_read_timeout_on_an_edit_is_retried(simulator, sleeps):
    tg = TelegramClient(simulator.token, simulator.base_url, read_timeout=0.3, sleep=sleeps)
    message = tg.send_message(42, "v1")
    simulator.configure(hang_after_delivery_ratio=1.0, hang_seconds=1.0)
    sleeps.hook = lambda: simulator.configure(hang_after_delivery_ratio=0.0)
    # The hung edit was applied, so the retry finds nothing to change: the outbox
    # counts "not modified" as success.
    with pytest.raises(BadRequest) as caught:
        tg.edit_message_text(42, message["message_id"], "v2")
    assert is_not_modified(caught.value) and sleeps == [0.5]
    assert calls(simulator, "editMessageText") == 2


def test_a_hard_deadline_too_short_for_a_typical_call_sends_nothing(simulator):
    # An edit started with less time than calls take would go out and end as an
    # unknown outcome (the warning a pump's last progress edit used to log):
    # with too little time left for a typical call, it is not sent at all.
    import time

    from app.telegram.errors import NetworkError

    simulator.configure(latency_ms=120)
    with TelegramClient(simulator.token, simulator.base_url) as client:
        sent = client.send_message(7, "progress")  # calls here take 120 ms
        calls = simulator.stats()["calls_total"]
        with pytest.raises(NetworkError, match="no time left"):
            client.edit_message_text(7, sent["message_id"], "progress 2",
                                     deadline=time.monotonic() + 0.09, hard_deadline=True)
        assert simulator.stats()["calls_total"] == calls, "an attempt doomed to time out was sent"
        client.edit_message_text(7, sent["message_id"], "progress 2",
                                 deadline=time.monotonic() + 1.0, hard_deadline=True)
