"""Pin / unpin everywhere: action jobs over a finished broadcast's ledger, run by the pump (simulated Telegram)."""
from __future__ import annotations

import pytest
from sqlalchemy import select, update

from app.extensions import db
from app.models import BroadcastJobItem
from app.models.broadcast import COMPLETED, KIND_PIN, KIND_UNPIN
from app.repository import broadcast_jobs as jobs_repo
from app.services import audit
from app.services.broadcast.actions import pin, unsend_edit
from app.services.broadcast.sending.drain import pump
from tests.broadcast.helpers import assert_consistent, create_text_job, create_users, engine_settings, reload
from tests.broadcast.test_actions import album_source, counters, run, sent_job

I = BroadcastJobItem  # noqa: E741


def pins(simulator, users, method="pinChatMessage") -> dict[int, list[dict]]:
    """Return {chat: its pin (or unpin) requests} for the given users' chats."""
    out: dict[int, list[dict]] = {}
    for a in simulator.pin_attempts():
        if a["chat_id"] in users and a["method"] == method:
            out.setdefault(a["chat_id"], []).append(a)
    return out


@pytest.mark.parametrize("notify", [False, True])
def test_pin_pins_every_delivered_copy_once_with_the_chosen_notification(app, simulator, notify):
    settings = engine_settings()
    users, source = sent_job(simulator, 40, settings)
    job = pin.pin_job(source, notify=notify, actor=audit.ACTOR_CLI, settings=settings)
    assert (job.kind, job.source_job_id, job.total_count, job.silent) == (KIND_PIN, source, 40, not notify)
    run(job.id, settings)
    attempts = pins(simulator, users)
    assert sorted(attempts) == sorted(users) and all(len(a) == 1 for a in attempts.values())  # each once
    assert {a[0]["silent"] for a in attempts.values()} == {not notify}
    for user in users:  # the copy the broadcast delivered is the one pinned
        assert simulator.pinned(user) == [simulator.bot_messages(user)[-1]["message_id"]]
    assert counters(job.id) == dict(total=40, sent=40, gone=0, too_old=0, skipped=0, failed=0, unknown=0, pending=0)
    assert reload(job.id).status == COMPLETED
    assert_consistent(job.id)
    assert [e["action"] for e in audit.entries(source)][-1] == audit.PINNED


def test_pin_counts_gone_and_blocked_copies_and_unpin_counts_unsent_ones_gone(app, simulator):
    settings = engine_settings()
    users, source = sent_job(simulator, 10, settings)
    simulator.delete_message_source(users[0], simulator.bot_messages(users[0])[-1]["message_id"])
    simulator.block(users[1])
    job = pin.pin_job(source, settings=settings)
    run(job.id, settings)
    assert counters(job.id) == dict(total=10, sent=8, gone=1, too_old=0, skipped=1, failed=0, unknown=0, pending=0)
    with pytest.raises(unsend_edit.NotActionable) as refused:
        pin.pin_job(source, settings=settings)
    assert refused.value.key == "pin_already"
    # An unsend after the pin deletes some of the pinned copies (the others: Telegram refused it, say).
    unsend = unsend_edit.unsend_job(source, settings=settings)
    kept = users[2:5]
    db.session.execute(update(I).where(I.job_id == unsend.id, I.user_id.in_(kept)).values(status="failed"))
    jobs_repo.add_counts(unsend.id, failed=len(kept))
    db.session.commit()
    run(unsend.id, settings)
    before = len(simulator.pin_attempts())
    unpin = pin.unpin_job(source, settings=settings)
    assert unpin.kind == KIND_UNPIN
    run(unpin.id, settings)
    # The unsent copies count gone without a call; the pinned copies still there are unpinned.
    assert counters(unpin.id) == dict(total=8, sent=3, gone=5, too_old=0, skipped=0, failed=0, unknown=0, pending=0)
    assert sorted(a["chat_id"] for a in simulator.pin_attempts()[before:]) == sorted(kept)
    assert all(simulator.pinned(u) == [] for u in kept)
    assert_consistent(unpin.id)


def test_unpin_only_after_a_pin_and_then_pin_again(app, simulator):
    settings = engine_settings()
    users, source = sent_job(simulator, 6, settings)
    with pytest.raises(unsend_edit.NotActionable) as refused:
        pin.unpin_job(source, settings=settings)
    assert refused.value.key == "unpin_nothing"
    run(pin.pin_job(source, settings=settings).id, settings)
    unpin = pin.unpin_job(source, settings=settings)
    run(unpin.id, settings)
    assert counters(unpin.id)["sent"] == 6
    assert all(simulator.pinned(u) == [] for u in users)
    assert len(pins(simulator, users, "unpinChatMessage")) == 6
    again = pin.pin_job(source, settings=settings)  # unpinned: it may be pinned again
    run(again.id, settings)
    assert all(len(simulator.pinned(u)) == 1 for u in users)


def test_pinning_an_album_pins_its_first_part(app, simulator):
    settings = engine_settings()
    create_users(4)
    source = album_source(simulator, settings)
    run(pin.pin_job(source, settings=settings).id, settings)
    firsts = db.session.execute(select(I.user_id, I.message_id).where(I.job_id == source)).all()
    db.session.commit()
    assert {u: simulator.pinned(u) for u, _ in firsts} == {u: [m] for u, m in firsts}


def test_pin_refused_while_the_broadcast_still_sends(app, simulator):
    settings = engine_settings()
    create_users(3)
    job = create_text_job(settings=settings)
    with pytest.raises(unsend_edit.NotActionable) as refused:
        pin.pin_job(job.id, settings=settings)
    assert refused.value.key == "act_not_finished"


def test_a_pin_whose_answer_is_lost_is_unknown_and_never_pinned_again(app, simulator):
    """The pin lands but its answer is lost (a 502 after it): a second pin would post a second notice, so none."""
    settings = engine_settings()
    users, source = sent_job(simulator, 3, settings)
    lost_chat = users[1]
    simulator.lose(lost_chat)  # the simulated Bot API pins in this chat, then answers 502
    job = pin.pin_job(source, notify=True, settings=settings)
    run(job.id, settings)
    for _ in range(2):  # later pumps and cron passes find nothing to repeat
        pump(job.id, 5, settings=settings)
    assert [a["result"] for a in simulator.state.pin_attempts if a["chat_id"] == lost_chat] == ["pinned"]
    assert simulator.stats()["5xx_after_delivery"] == 1
    assert {chat: len(requests) for chat, requests in pins(simulator, users).items()} == {u: 1 for u in users}
    assert counters(job.id) == dict(total=3, sent=2, gone=0, too_old=0, skipped=0, failed=0, unknown=1, pending=0)
    assert simulator.pinned(lost_chat) == [simulator.bot_messages(lost_chat)[-1]["message_id"]]
    assert_consistent(job.id)
