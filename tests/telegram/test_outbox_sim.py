"""Outbox over real HTTP: a progress message edited, then replaced by the final one."""

import time

from app.telegram.client import TelegramClient
from app.telegram.outbox import Outbox
from app.telegram.pacing import ChatPacer

ADMIN = 1001


def test_progress_edits_coalesce_and_the_final_send_replaces_the_message(simulator):
    simulator.configure(private_chat_interval=0.2)
    client = TelegramClient(simulator.token, simulator.base_url,
                            chat_pacer=ChatPacer(private_interval=0.2))
    outbox = Outbox(client)
    progress = outbox.send(ADMIN, "0%")
    outbox.flush()
    message_id = progress.result(0)["message_id"]
    outbox.start()
    try:
        for percent in range(10, 101, 10):
            outbox.edit(ADMIN, message_id, f"{percent}%")
            time.sleep(0.04)  # the edits outlast the chat's interval (0.2 s and a reply's margin)
        final = outbox.send(ADMIN, "Broadcast finished", replace_message_id=message_id)
        assert final.result(timeout=10)["text"] == "Broadcast finished"
    finally:
        outbox.close(deadline=time.monotonic() + 10)
    edits = simulator.deliveries(method="editMessageText", chat_id=ADMIN)
    assert 1 <= len(edits) < 10
    texts = [e["text"] for e in edits]
    assert texts == sorted(texts, key=lambda t: int(t[:-1]))
    assert simulator.stats()["429_total"] == 0
    assert simulator.stats()["calls"].get("deleteMessage") == 1


def test_unchanged_edit_resolves_true_and_blocked_user_none(simulator):
    client = TelegramClient(simulator.token, simulator.base_url, chat_pacer=ChatPacer())
    outbox = Outbox(client)
    sent = outbox.send(ADMIN, "same")
    outbox.flush()
    unchanged = outbox.edit(ADMIN, sent.result(0)["message_id"], "same")
    simulator.block(77)
    blocked = outbox.send(77, "hello")
    outbox.flush()
    assert unchanged.result(0) is True
    assert blocked.result(0) is None
