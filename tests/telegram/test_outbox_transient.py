"""Outbox writes that fail without a verdict: retried later when safe, never duplicated."""

import pytest

from app.telegram.errors import NetworkError, UnknownOutcome
from app.telegram.outbox_runner import MAX_ATTEMPTS, SEND_MIN_SECONDS, TRANSIENT_RETRY_SECONDS

ADMIN = 1001


def test_every_call_is_bounded_by_the_flush_deadline(outbox, client, clock):
    outbox.edit(ADMIN, 5, "50%")
    outbox.flush(deadline=clock() + 1)
    args = client.calls[0][1]
    assert args["deadline"] == pytest.approx(clock() + 1) and args["hard_deadline"] is True


def test_send_that_was_not_sent_is_retried_later(outbox, client, clock):
    client.fail("send_message", NetworkError("sendMessage", "connection refused"))
    future = outbox.send(ADMIN, "hi")
    outbox.flush(wait=False)
    assert outbox.pending() == 1 and not future.done()
    clock.advance(TRANSIENT_RETRY_SECONDS)
    outbox.flush(wait=False)
    assert future.result(0)["text"] == "hi"


def test_send_with_unknown_outcome_is_never_sent_again(outbox, client, clock):
    client.fail("send_message", UnknownOutcome("sendMessage", "read timeout"))
    future = outbox.send(ADMIN, "hi")
    outbox.flush()
    clock.advance(60)
    outbox.flush()
    assert future.result(0) is None
    assert client.methods() == ["send_message"]


def test_edit_with_unknown_outcome_is_retried_a_few_times(outbox, client, clock):
    client.fail("edit_message_text", *[UnknownOutcome("editMessageText", "read timeout")] * 10)
    future = outbox.edit(ADMIN, 5, "50%")
    for _ in range(MAX_ATTEMPTS + 2):
        outbox.flush(wait=False)
        clock.advance(TRANSIENT_RETRY_SECONDS)
    assert future.result(0) is None
    assert client.methods() == ["edit_message_text"] * MAX_ATTEMPTS


def test_send_is_not_started_without_room_for_its_answer(outbox, client, clock):
    future = outbox.send(ADMIN, "hi")
    outbox.edit(ADMIN, 5, "50%")
    outbox.flush(deadline=clock() + SEND_MIN_SECONDS / 2)
    assert client.methods() == ["edit_message_text"]
    assert outbox.pending() == 1 and not future.done()
    outbox.flush(deadline=clock() + 5)
    assert future.result(0)["text"] == "hi"
