"""A reply the bot-wide wait held past its chat slot never lands under an interval before the chat's next one."""
from __future__ import annotations

import pytest

from app.telegram.call_pacing import REPLY_CHAT_MARGIN
from app.telegram.client import TelegramClient
from app.telegram.errors import ChatBusy, RetryAfter
from app.telegram.pacing import ChatPacer
from tests.telegram.fakes import FakeClock
from tests.telegram.stub_server import StubServer

TOKEN = "654321:STUB-token-zyxwvutsrqponm"
CHAT = 4242
HELD = 0.2  # seconds the bot-wide budget keeps the call waiting after its chat slot


class SlowBudget:
    """A bot-wide lane whose slot comes HELD seconds late; meanwhile, maybe, another worker books the chat."""

    def __init__(self, clock: FakeClock, pacer: ChatPacer, rival_books: bool):
        self.clock, self.pacer, self.rival_books = clock, pacer, rival_books
        self.rival_slot: float | None = None

    def acquire(self, deadline=None, max_wait=None) -> bool:
        if self.rival_books:  # a second reply to the same chat, in another worker, takes the next slot
            self.rival_slot = self.pacer.ready_at(CHAT)
            self.pacer.acquire(CHAT)
        self.clock.advance(HELD)
        return True

    def next_slot_in(self) -> float:
        return 0.0


@pytest.fixture
def stub():
    server = StubServer().start()
    yield server
    server.stop()


def client_for(stub, rival_books: bool) -> tuple[TelegramClient, SlowBudget, FakeClock]:
    clock = FakeClock()
    pacer = ChatPacer(clock=clock, sleep=lambda s: None)  # the rival's sleep is its own, not this thread's
    client = TelegramClient(TOKEN, stub.base_url, chat_pacer=pacer, clock=clock, sleep=clock.sleep)
    client.budget = SlowBudget(clock, pacer, rival_books)
    return client, client.budget, clock


def test_a_held_reply_is_refused_when_the_chats_next_slot_was_booked_meanwhile(stub):
    client, budget, clock = client_for(stub, rival_books=True)
    with client, pytest.raises(ChatBusy) as refused:
        client.send_message(CHAT, "hi", chat_wait=0.5)
    assert stub.requests == [], "sent now, it would reach the chat 0.8 s before the rival's reply"
    assert refused.value.retry_after == pytest.approx(budget.rival_slot + 1.0 - clock())


def test_without_a_chat_wait_the_refusal_is_a_retry_after(stub):
    client, _, _ = client_for(stub, rival_books=True)
    with client, pytest.raises(RetryAfter) as refused:
        client.send_message(CHAT, "hi")
    assert not isinstance(refused.value, ChatBusy) and stub.requests == []


def test_a_held_reply_nobody_followed_goes_out_and_moves_the_chats_next_slot(stub):
    client, _, clock = client_for(stub, rival_books=False)
    with client:
        assert client.send_message(CHAT, "hi", chat_wait=0.5) is True
    assert [method for method, _ in stub.requests] == ["sendMessage"]
    # Sent HELD late, so the chat's next message waits a whole second (and a reply's margin) from the send.
    assert client.chat_pacer.ready_at(CHAT) == pytest.approx(clock() + 1.0 + REPLY_CHAT_MARGIN, abs=0.01)


OVERSLEPT = 0.3  # how late the reply's thread wakes from its wait for the chat's slot (a busy machine)


def test_a_reply_that_woke_late_from_its_chat_wait_is_refused_when_the_next_slot_was_booked(stub):
    # The chat is busy: the reply's slot is a second away. Its thread wakes OVERSLEPT late, and meanwhile
    # a rival reply (another worker) booked the slot after it. Sent now, the two would reach the chat
    # 0.7 s apart; the lateness counts from the booked slot, so the reply is refused instead.
    clock = FakeClock()
    rival = {}

    def late_sleep(seconds: float) -> None:
        clock.advance(seconds + OVERSLEPT)
        if not rival:  # the rival's own wait is its thread's, not this one's
            rival["slot"] = pacer.ready_at(CHAT)
            pacer.acquire(CHAT)

    pacer = ChatPacer(clock=clock, sleep=late_sleep)
    assert pacer.acquire(CHAT)  # the chat's previous message: the next slot is a second away
    client = TelegramClient(TOKEN, stub.base_url, chat_pacer=pacer, clock=clock, sleep=clock.sleep)
    with client, pytest.raises(ChatBusy) as refused:
        client.send_message(CHAT, "hi", chat_wait=1.5)
    assert stub.requests == []
    assert refused.value.retry_after == pytest.approx(rival["slot"] + 1.0 - clock())


def test_a_reply_that_woke_late_with_nobody_after_it_goes_out_and_moves_the_next_slot(stub):
    clock = FakeClock()
    pacer = ChatPacer(clock=clock, sleep=lambda s: clock.advance(s + OVERSLEPT))
    assert pacer.acquire(CHAT)
    client = TelegramClient(TOKEN, stub.base_url, chat_pacer=pacer, clock=clock, sleep=clock.sleep)
    with client:
        assert client.send_message(CHAT, "hi", chat_wait=1.5) is True
    assert [method for method, _ in stub.requests] == ["sendMessage"]
    assert pacer.ready_at(CHAT) == pytest.approx(clock() + 1.0 + REPLY_CHAT_MARGIN, abs=0.01)
