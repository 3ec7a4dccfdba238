"""The outbox over real HTTP never holds its caller past the deadline, whatever Telegram does."""

import threading
import time

import pytest

from app.telegram.client import TelegramClient
from app.telegram.errors import UnknownOutcome
from app.telegram.outbox import DEFAULT_FLUSH_SECONDS, Outbox

ADMIN = 1001
# Scheduling slack on a shared, busy test machine.
EPSILON = 0.3


@pytest.fixture
def client(simulator):
    # Generous timeouts, as in production: only the outbox's deadline may cut a call short.
    with TelegramClient(simulator.token, simulator.base_url, connect_timeout=3.0,
                        read_timeout=10.0, sleep=time.sleep) as client:
        yield client


@pytest.fixture
def message_id(simulator, client):
    """A progress message to edit, sent before any fault is switched on."""
    return client.send_message(ADMIN, "0%")["message_id"]


def timed(fn, limit: float) -> float:
    """Run fn in a thread; fail (without hanging the suite) if it is still running after limit + 5 s."""
    thread = threading.Thread(target=fn, daemon=True)
    started = time.monotonic()
    thread.start()
    thread.join(limit + 5)
    assert not thread.is_alive(), f"still blocked after {limit + 5:.0f} s"
    return time.monotonic() - started


def test_429_that_does_not_fit_is_requeued_not_slept(simulator, client, message_id):
    simulator.configure(fail_429_ratio=1.0, retry_after_range=(30, 30), fault_methods=["editMessageText"])
    outbox = Outbox(client)
    future = outbox.edit(ADMIN, message_id, "50%")
    assert timed(lambda: outbox.flush(deadline=time.monotonic() + 1), 1) < 1 + EPSILON
    assert outbox.pending() == 1 and not future.done()
    assert simulator.stats()["429_injected"] == 1


@pytest.mark.parametrize("wait", [False, True])
def test_flush_without_a_deadline_is_bounded_too(simulator, client, message_id, wait):
    """The pump's old `flush(wait=False)` slept through two 30 s retry_afters."""
    simulator.configure(fail_429_ratio=1.0, retry_after_range=(30, 30), fault_methods=["editMessageText"])
    outbox = Outbox(client)
    outbox.edit(ADMIN, message_id, "50%")
    assert timed(lambda: outbox.flush(wait=wait), DEFAULT_FLUSH_SECONDS) < DEFAULT_FLUSH_SECONDS + EPSILON
    assert outbox.pending() == 1


def test_hanging_edit_returns_by_the_deadline_and_is_retried_later(simulator, client, message_id):
    simulator.configure(hang_after_delivery_ratio=1.0, hang_seconds=4, fault_methods=["editMessageText"])
    outbox = Outbox(client)
    future = outbox.edit(ADMIN, message_id, "50%")
    assert timed(lambda: outbox.flush(deadline=time.monotonic() + 1), 1) < 1 + EPSILON
    # An edit is idempotent: its unknown outcome is tried again by a later flush.
    assert outbox.pending() == 1 and not future.done()
    simulator.configure(hang_after_delivery_ratio=0.0)
    time.sleep(1.1)
    outbox.flush(deadline=time.monotonic() + 5)
    # Delivered by the hung call already, so the retry may find the text unchanged (True).
    assert future.result(0)
    assert simulator.deliveries(method="editMessageText")[-1]["text"] == "50%"


def test_hanging_reply_returns_by_the_deadline_and_is_never_resent(simulator, client):
    simulator.configure(hang_after_delivery_ratio=1.0, hang_seconds=4, fault_methods=["sendMessage"])
    outbox = Outbox(client)
    future = outbox.send(ADMIN, "your reply")
    assert timed(lambda: outbox.flush(deadline=time.monotonic() + 1.5), 1.5) < 1.5 + EPSILON
    simulator.configure(hang_after_delivery_ratio=0.0)
    outbox.flush(deadline=time.monotonic() + 3)
    # The reply may have arrived: resending it could show the user a duplicate.
    assert future.result(0) is None and outbox.pending() == 0
    assert len(simulator.deliveries(method="sendMessage", chat_id=ADMIN)) == 1


def test_close_is_bounded_while_the_worker_is_stuck(simulator, client, message_id):
    simulator.configure(hang_after_delivery_ratio=1.0, hang_seconds=4, fault_methods=["editMessageText"])
    outbox = Outbox(client)
    outbox.start()
    future = outbox.edit(ADMIN, message_id, "50%")
    time.sleep(0.2)
    assert timed(lambda: outbox.close(deadline=time.monotonic() + 1), 1) < 1 + EPSILON
    assert future.result(timeout=3) is None


def test_close_without_a_deadline_is_bounded(simulator, client, message_id):
    simulator.configure(fail_429_ratio=1.0, retry_after_range=(30, 30), fault_methods=["editMessageText"])
    outbox = Outbox(client)
    future = outbox.edit(ADMIN, message_id, "50%")
    assert timed(outbox.close, DEFAULT_FLUSH_SECONDS) < DEFAULT_FLUSH_SECONDS + EPSILON
    assert future.result(0) is None


def test_client_hard_deadline_cuts_a_hanging_call(simulator, client, message_id):
    simulator.configure(hang_after_delivery_ratio=1.0, hang_seconds=4, fault_methods=["editMessageText"])
    deadline = time.monotonic() + 1
    with pytest.raises(UnknownOutcome):
        client.edit_message_text(ADMIN, message_id, "50%", deadline=deadline, hard_deadline=True)
    assert time.monotonic() < deadline + EPSILON
