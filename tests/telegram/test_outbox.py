"""Outbox semantics on a fake client and clock: keys, order, replace, 429, worker."""

import logging
import threading
import time

import pytest

from app.telegram import outbox as outbox_module
from app.telegram.errors import BadRequest, Forbidden, RetryAfter
from app.telegram.outbox import Outbox
from app.telegram.pacing import ChatPacer
from tests.telegram.fakes import FakeClient, FakeClock, bad_request

ADMIN = 1001


def test_three_edits_of_one_message_make_one_call_with_the_last_text(outbox, client):
    first = outbox.edit(ADMIN, 5, "10%")
    second = outbox.edit(ADMIN, 5, "20%")
    third = outbox.edit(ADMIN, 5, "30%")
    assert outbox.pending() == 1
    outbox.flush()
    assert client.methods() == ["edit_message_text"]
    assert client.calls[0][1]["text"] == "30%"
    assert first.result(0) is None and second.result(0) is None
    assert third.result(0)["text"] == "30%"


def test_coalesced_edit_keeps_its_place_in_line(outbox, client, clock):
    outbox.edit(ADMIN, 5, "a1")
    clock.advance(1)
    outbox.edit(ADMIN, 6, "b1")
    clock.advance(1)
    outbox.edit(ADMIN, 5, "a2")
    outbox.flush()
    assert [args["text"] for _, args in client.calls] == ["a2", "b1"]


def test_edits_of_different_chats_do_not_coalesce(outbox, client):
    outbox.edit(1, 5, "x")
    outbox.edit(2, 5, "y")
    outbox.flush()
    assert len(client.calls) == 2


def test_priorities_send_then_delete_then_edit(outbox, client):
    outbox.edit(ADMIN, 5, "progress")
    outbox.delete(ADMIN, 4)
    outbox.send(ADMIN, "hello")
    outbox.copy(ADMIN, -100, 9)
    outbox.flush()
    assert client.methods() == ["send_message", "copy_message", "delete_message",
                                "edit_message_text"]


def test_sends_with_the_same_key_coalesce_and_unkeyed_sends_do_not(outbox, client):
    stale = outbox.send(ADMIN, "v1", key="status")
    outbox.send(ADMIN, "v2", key="status")
    outbox.send(ADMIN, "plain")
    outbox.send(ADMIN, "plain")
    outbox.flush()
    assert [args["text"] for _, args in client.calls] == ["v2", "plain", "plain"]
    assert stale.result(0) is None


def test_replace_sends_first_then_deletes_the_progress_message(outbox, client):
    dropped = outbox.edit(ADMIN, 77, "99%")
    final = outbox.send(ADMIN, "done", replace_message_id=77)
    assert dropped.result(0) is None
    assert outbox.edit(ADMIN, 77, "late progress").result(0) is None
    outbox.flush()
    assert client.methods() == ["send_message", "delete_message"]
    assert client.calls[1][1]["message_id"] == 77
    assert final.result(0)["text"] == "done"


def test_failed_replace_keeps_the_progress_message(outbox, client):
    client.fail("send_message", BadRequest("sendMessage", "can't parse entities", 400))
    final = outbox.send(ADMIN, "<b>done", parse_mode="HTML", replace_message_id=77)
    outbox.flush()
    assert final.result(0) is None
    assert client.methods() == ["send_message"]
    outbox.edit(ADMIN, 77, "still here")
    outbox.flush()
    assert client.methods() == ["send_message", "edit_message_text"]


def test_not_modified_resolves_true(outbox, client):
    client.fail("edit_message_text", bad_request("Bad Request: message is not modified"))
    future = outbox.edit(ADMIN, 5, "same")
    outbox.flush()
    assert future.result(0) is True


def test_other_errors_are_logged_and_dropped(outbox, client, caplog):
    client.fail("send_message", Forbidden("sendMessage", "bot was blocked by the user", 403))
    caplog.set_level(logging.INFO, logger="app.telegram")
    future = outbox.send(42, "hi")
    later = outbox.send(42, "again")
    outbox.flush()
    assert future.result(0) is None
    assert later.result(0)["text"] == "again"
    assert "bot was blocked" in caplog.text


def test_unexpected_exception_does_not_strand_later_ops(outbox, client):
    client.fail("send_message", RuntimeError("bug"))
    first = outbox.send(42, "a")
    second = outbox.send(42, "b")
    outbox.flush()
    assert first.result(0) is None and second.result(0)["text"] == "b"


def test_retry_after_requeues_and_waits(outbox, client, clock):
    client.fail("edit_message_text", RetryAfter("editMessageText", 4))
    start = clock()
    future = outbox.edit(ADMIN, 5, "50%")
    outbox.flush()
    assert client.methods() == ["edit_message_text", "edit_message_text"]
    assert clock() - start == pytest.approx(4.0)
    assert future.result(0)["text"] == "50%"


def test_retry_after_yields_to_a_newer_op_with_the_same_key(outbox, client, clock):
    client.fail("edit_message_text", RetryAfter("editMessageText", 4))
    old = outbox.edit(ADMIN, 5, "50%")

    def newer_arrives(method, args):
        client.on_call = None
        outbox.edit(ADMIN, 5, "60%")

    client.on_call = newer_arrives
    outbox.flush()
    assert old.result(0) is None
    assert [args["text"] for _, args in client.calls] == ["50%", "60%"]
    # The newer op inherited the 429 wait instead of hitting the limit again.
    assert clock.sleeps == [pytest.approx(4.0)]


def test_non_blocking_flush_runs_only_ready_chats(client, clock):
    client.chat_pacer = ChatPacer(clock=clock, sleep=clock.sleep)
    outbox = Outbox(client, clock=clock, sleep=clock.sleep)
    outbox.send(1, "a")
    outbox.send(1, "b")
    outbox.send(-100, "group")
    outbox.flush(wait=False)
    assert [args["text"] for _, args in client.calls] == ["a", "group"]
    assert outbox.pending() == 1 and clock.sleeps == []
    clock.advance(1.0)
    outbox.flush(wait=False)
    assert [args["text"] for _, args in client.calls] == ["a", "group", "b"]


def test_non_blocking_flush_leaves_retry_at_ops_pending(outbox, client, clock):
    client.fail("send_message", RetryAfter("sendMessage", 3))
    future = outbox.send(1, "a")
    outbox.flush(wait=False)
    assert outbox.pending() == 1 and not future.done()
    clock.advance(3)
    outbox.flush(wait=False)
    assert future.result(0)["text"] == "a"


def test_free_chat_counts_as_ready_on_a_clock_that_always_moves(client):
    ticks = iter(range(10_000))

    def clock():
        return 1000.0 + next(ticks) * 1e-6

    client.chat_pacer = ChatPacer(clock=clock, sleep=lambda s: None)
    outbox = Outbox(client, clock=clock, sleep=lambda s: None)
    future = outbox.send(1, "a")
    outbox.flush(wait=False)
    assert future.result(0)["text"] == "a"


def test_flush_stops_at_deadline(client, clock):
    client.chat_pacer = ChatPacer(clock=clock, sleep=clock.sleep)
    outbox = Outbox(client, clock=clock, sleep=clock.sleep)
    for text in "abcde":
        outbox.send(1, text)
    outbox.flush(deadline=clock() + 2.5)
    assert [args["text"] for _, args in client.calls] == ["a", "b", "c"]
    assert outbox.pending() == 2


def test_cancelled_ops_are_skipped(outbox, client):
    future = outbox.send(1, "never")
    assert future.cancel()
    outbox.flush()
    assert client.calls == [] and outbox.pending() == 0


def test_close_fails_what_cannot_run_before_deadline(outbox, client, clock):
    client.fail("send_message", RetryAfter("sendMessage", 30))
    future = outbox.send(1, "a")
    outbox.close(deadline=clock() + 5)
    assert future.result(0) is None and outbox.pending() == 0
    assert outbox.send(1, "after close").result(0) is None


def test_worker_runs_ops_enqueued_by_another_thread():
    client = FakeClient(FakeClock())
    outbox = Outbox(client)
    outbox.start()
    try:
        futures = []

        def pump():
            for percent in range(0, 101, 10):
                futures.append(outbox.edit(ADMIN, 5, f"{percent}%"))
                time.sleep(0.002)

        thread = threading.Thread(target=pump)
        thread.start()
        thread.join()
        final = outbox.send(ADMIN, "done", replace_message_id=5)
        assert final.result(timeout=5)["text"] == "done"
        last = futures[-1].result(timeout=5)
        assert last is None or last["text"] == "100%"
    finally:
        outbox.close(deadline=time.monotonic() + 5)
    texts = [args.get("text") for method, args in client.calls if method == "edit_message_text"]
    # Coalesced edits still arrive in the order they were written.
    assert [int(t[:-1]) for t in texts] == sorted(int(t[:-1]) for t in texts)
    assert client.methods()[-2:] == ["send_message", "delete_message"]
    assert outbox.pending() == 0


def test_close_runs_a_final_flush_then_stops_the_worker():
    client = FakeClient(FakeClock())
    outbox = Outbox(client)
    outbox.start()
    outbox.close(deadline=time.monotonic() + 5)
    future = outbox.send(1, "late")
    assert future.result(0) is None
    assert client.calls == []


def test_worker_waits_out_retry_after_then_delivers():
    client = FakeClient(FakeClock())
    client.fail("send_message", RetryAfter("sendMessage", 0.05))
    outbox = Outbox(client)
    outbox.start()
    try:
        assert outbox.send(1, "a").result(timeout=5)["text"] == "a"
    finally:
        outbox.close(deadline=time.monotonic() + 5)
    assert client.methods() == ["send_message", "send_message"]


def test_an_idle_worker_thread_ends_and_the_next_send_starts_another(monkeypatch):
    monkeypatch.setattr(outbox_module, "IDLE_EXIT_SECONDS", 0.1, raising=False)
    client = FakeClient(FakeClock())
    outbox = Outbox(client)
    outbox.start()
    try:
        assert outbox.send(1, "a").result(timeout=5)["text"] == "a"
        first = outbox._worker
        first.join(timeout=5)  # nothing queued: the thread ends (a host's NPROC counts idle threads too)
        assert not first.is_alive()
        assert outbox.send(1, "b").result(timeout=5)["text"] == "b"
        assert outbox._worker is not None and outbox._worker is not first
    finally:
        outbox.close(deadline=time.monotonic() + 5)
    assert client.methods() == ["send_message", "send_message"]
