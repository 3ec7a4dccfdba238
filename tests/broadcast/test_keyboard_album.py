"""An album's keyboard rides a short message after its parts: one per recipient, unsent with them, never resent."""
from __future__ import annotations

import json
import time

import pytest
from sqlalchemy import select

from app.extensions import db
from app.models import BroadcastJobItem
from app.services import telegram_factory
from app.services.broadcast.actions import unsend_edit
from app.services.broadcast.jobs import creation
from app.services.broadcast.reporting import clicks
from app.services.broadcast.sending import follow_up
from app.services.broadcast.sending.copies import Copies
from app.services.broadcast.sending.drain import pump
from app.services.broadcast.sending.pump import Pump
from app.services.budget.spans import span_for
from app.services.telegram_factory import get_client, new_outbox
from app.telegram.errors import BadRequest
from tests.broadcast.helpers import (
    BASE_ID,
    assert_consistent,
    create_users,
    engine_settings,
    expire_lease,
    recorder_for,
    reload,
)

FAST = engine_settings(broadcast_rate_per_second=28)
PUBLIC = "https://bot.example.com"
KB = {"rows": [[{"kind": "url", "text": "Shop", "url": "https://example.com/shop"},
                {"kind": "copy", "text": "Code", "copy": "SALE20"}],
               [{"kind": "menu", "text": "Hours", "answer": "9 to 17"}]], "note": "Tap below 👇"}


@pytest.fixture
def tracked(app):
    app.config["PUBLIC_URL"] = PUBLIC
    yield app
    app.config["PUBLIC_URL"] = None


def album_job(simulator, kb=KB, parts: int = 3):
    ids = [simulator.add_message(1001, photo=f"p{i}", caption="آلبوم" if i == 0 else None) for i in range(parts)]
    return creation.create_job(audience="all", created_by=1001, settings=FAST, keyboard=kb,
                               content={"type": "album", "from_chat_id": 1001, "message_ids": ids}), ids


def run(job_id: int) -> None:
    for _ in range(5):
        if pump(job_id, 60, settings=FAST).stop == "done":
            return
    raise AssertionError(f"job {job_id} did not complete")


def items(job_id: int) -> dict[int, BroadcastJobItem]:
    db.session.rollback()
    rows = db.session.execute(select(BroadcastJobItem).where(BroadcastJobItem.job_id == job_id)).scalars()
    return {item.user_id: item for item in rows}


def test_each_recipient_gets_the_album_then_exactly_one_keyboard_message(tracked, simulator):
    users = create_users(20)
    job, ids = album_job(simulator)
    run(job.id)
    assert reload(job.id).sent_count == 20 and assert_consistent(job.id) == {"sent": 20}
    stored = items(job.id)
    for user_id in users:
        parts = simulator.deliveries("copyMessages", user_id)
        [kb] = simulator.deliveries("sendMessage", user_id)
        assert [p["source_message_id"] for p in parts] == ids
        assert kb["text"] == "Tap below 👇" and kb["message_id"] > parts[-1]["message_id"]
        rows = kb["reply_markup"]["inline_keyboard"]
        assert rows[0][0]["url"].startswith(PUBLIC + clicks.PATH) and rows[0][1]["copy_text"] == {"text": "SALE20"}
        assert rows[1][0]["callback_data"].startswith(f"b.key:{job.id}.3.")
        recorded = json.loads(stored[user_id].message_ids)
        assert recorded == [p["message_id"] for p in parts] + [kb["message_id"]], "the keyboard message is a part"
        assert stored[user_id].message_id == parts[0]["message_id"], "the album's first part stays its copy"
    stats = simulator.stats()
    assert stats["429_total"] == 0 and stats["busiest_second"] <= 30, "the keyboard message took a slot of its own"


def test_the_keyboard_message_takes_a_slot_of_the_bot_wide_rate(app, simulator, monkeypatch):
    """With no chat pace to wait for, the budget alone spaces the sends: each recipient's four messages are booked."""
    simulator.configure(per_chat_limits=False)
    telegram_factory.reset_clients()
    monkeypatch.setattr(telegram_factory, "SharedChatPacer", lambda *args, **kwargs: None)
    create_users(30)
    job, _ = album_job(simulator)
    started = time.monotonic()
    run(job.id)
    elapsed = time.monotonic() - started
    telegram_factory.reset_clients()
    assert reload(job.id).sent_count == 30 and len(simulator.deliveries("sendMessage")) >= 30
    stats = simulator.stats()
    # 120 messages at 28/s: a pump counting three per recipient would put out 37 a second and meet 429s.
    assert stats["429_total"] == 0 and stats["busiest_second"] <= 30, stats
    # Each send books the span of four messages (span_for(4) = 7 slots): 29 spans after the first one at
    # most 30 slots a second. Booked as three (5 slots) they would all be out in about 5 s.
    assert elapsed >= 29 * span_for(4) / 30, elapsed


def test_without_a_keyboard_an_album_sends_no_extra_message(app, simulator):
    create_users(3)
    job, _ = album_job(simulator, kb=None)
    run(job.id)
    sent = [d for d in simulator.deliveries() if d["chat_id"] >= BASE_ID]
    assert {d["method"] for d in sent} == {"copyMessages"} and len(sent) == 9


def test_unsend_deletes_the_keyboard_message_with_the_parts(app, simulator):
    users = create_users(3)
    job, _ = album_job(simulator)
    run(job.id)
    assert len(simulator.bot_messages(users[0])) == 4
    unsend = unsend_edit.unsend_job(job.id, settings=FAST)
    run(unsend.id)
    assert [m for m in simulator.bot_messages() if m["chat_id"] in users] == []
    assert reload(unsend.id).sent_count == 3


def test_a_failed_keyboard_message_leaves_the_item_sent_with_the_albums_parts(app, simulator):
    create_users(1)
    job, _ = album_job(simulator)
    client = get_client(FAST)

    class Refusing:
        def call(self, method, params, **kw):
            if method == "sendMessage":
                raise BadRequest("Bad Request: message is too long")
            return client.call(method, params, **kw)

    method, params = Copies(reload(job.id)).calls[None]
    outcome = follow_up.deliver(Refusing(), method, params, BASE_ID)
    assert outcome.kind == "sent" and len(outcome.message_ids) == 3
    assert simulator.deliveries("sendMessage", BASE_ID) == []
    assert len(simulator.deliveries("copyMessages", BASE_ID)) == 3


class Crash(BaseException):
    """The process dies: nothing after it runs (not an Exception, so no handler in the engine catches it)."""


def test_a_crash_between_the_album_and_its_keyboard_message_never_resends(app, simulator):
    users = create_users(4)
    job, _ = album_job(simulator)
    client = get_client(FAST)
    dying = Pump(job.id, 30, FAST, client, new_outbox(client), time.monotonic, time.sleep)
    assert dying.lease.acquire()
    [claim] = recorder_for(dying, reload(job.id), window=4).step([], 1, 0).claimed

    class DiesAfterTheAlbum:
        def call(self, method, params, **kw):
            if method == "sendMessage":
                raise Crash()
            return client.call(method, params, **kw)

    method, params = Copies(reload(job.id)).call_for(claim)
    with pytest.raises(Crash):
        follow_up.deliver(DiesAfterTheAlbum(), method, params, claim.user_id)
    expire_lease(job.id)
    run(job.id)
    job = reload(job.id)
    assert (job.sent_count, job.unknown_count) == (3, 1), "the item in flight is unknown, as any send's"
    assert len(simulator.deliveries("copyMessages", claim.user_id)) == 3, "the album went once, never again"
    assert simulator.deliveries("sendMessage", claim.user_id) == []
    for user_id in set(users) - {claim.user_id}:
        assert len(simulator.deliveries("sendMessage", user_id)) == 1
    assert assert_consistent(job.id) == {"sent": 3, "unknown": 1}


def test_an_edit_keeps_the_keyboard_with_links_of_its_own(tracked, simulator):
    users = create_users(2)
    kb = {"rows": [[{"kind": "url", "text": "Shop", "url": "https://example.com/shop"}],
                   [{"kind": "tap", "text": "Me", "tag": "me"}]]}
    job = creation.create_job(audience="all", created_by=1001, settings=FAST, keyboard=kb,
                              content={"type": "text", "text": "old"})
    run(job.id)
    edit = unsend_edit.edit_job(job.id, "new", settings=FAST)
    run(edit.id)
    [edited] = simulator.deliveries("editMessageText", users[0])
    rows = edited["reply_markup"]["inline_keyboard"]
    token = rows[0][0]["url"][len(PUBLIC + clicks.PATH):]
    assert clicks.parse(token)[1] == 1 and items(edit.id)[users[0]].id == clicks.parse(token)[0]
    assert rows[1][0]["callback_data"].startswith(f"b.key:{job.id}.2."), "presses count for the broadcast"
