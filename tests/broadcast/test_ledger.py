"""The ledger keeps each recipient's message id; retry builds a job from it; purge keeps recent items."""
import csv
import io
from datetime import timedelta

import pytest
from sqlalchemy import select, update

from app.clock import utcnow
from app.extensions import db
from app.models import BroadcastJob, BroadcastJobItem, User
from app.repository import broadcast_claims as claims
from app.repository import broadcast_ledger as ledger_repo
from app.services import audit
from app.services.broadcast.actions import retry
from app.services.broadcast.jobs import control, creation
from app.services.broadcast.jobs import purge as jobs_purge
from app.services.broadcast.reporting import export
from app.services.broadcast.sending.drain import pump
from tests.broadcast.helpers import BASE_ID, assert_consistent, create_text_job, create_users, engine_settings, reload

I = BroadcastJobItem  # noqa: E741


def ledger(job_id: int) -> dict[int, tuple[str, int | None]]:
    """Return {user id: (status, message id)} of a job's items."""
    rows = db.session.execute(select(I.user_id, I.status, I.message_id).where(I.job_id == job_id)).all()
    db.session.commit()
    return {user_id: (status, message_id) for user_id, status, message_id in rows}


def delivered_ids(simulator, method: str) -> dict[int, int]:
    """Return {chat: message id} of the simulator's deliveries of one method."""
    return {d["chat_id"]: d["message_id"] for d in simulator.deliveries(method)}


@pytest.mark.parametrize("paid", [False, True])
def test_each_sent_item_keeps_the_message_id_its_recipient_got(app, simulator, paid):
    simulator.configure(per_chat_limits=False)
    users = create_users(6)
    for chat in users[:3]:
        simulator.add_message(chat, text="earlier")  # each chat's ids differ: the bot's copy is id 2 there
    settings = engine_settings(broadcast_paid_enabled=paid)
    text_job = create_text_job(settings=settings)
    assert pump(text_job.id, 20, settings=settings).stop == "done"
    source = simulator.add_message(1001, text="منبع")
    copy_job = creation.create_job(audience="all", created_by=1001, settings=settings,
                                   content={"type": "copy", "from_chat_id": 1001, "message_id": source})
    assert pump(copy_job.id, 20, settings=settings).stop == "done"

    sent = delivered_ids(simulator, "sendMessage")
    assert ledger(text_job.id) == {u: ("sent", sent[u]) for u in users}
    assert {sent[u] for u in users[:3]} == {2} and {sent[u] for u in users[3:]} == {1}
    copied = delivered_ids(simulator, "copyMessage")
    assert ledger(copy_job.id) == {u: ("sent", copied[u]) for u in users}
    assert copied[users[0]] == 3
    assert_consistent(copy_job.id)


def test_a_replayed_plan_sets_neither_status_nor_message_id_twice(app, simulator):
    [user] = create_users(1)
    job = create_text_job()
    [(item_id, _)] = claims.next_pending(job.id, 0, 10)
    claims.mark_sending([item_id])
    assert claims.set_sent([(item_id, 77)], utcnow()) == 1
    assert claims.set_sent([(item_id, 78)], utcnow()) == 0  # no longer 'sending': the replay matches nothing
    db.session.commit()
    assert ledger(job.id) == {user: ("sent", 77)}


def run_with_failures(simulator, settings=None) -> tuple[BroadcastJob, dict[str, list[int]]]:
    """Run a job where two users' messages are refused, one blocked the bot and one outcome is lost."""
    simulator.configure(per_chat_limits=False)
    users = create_users(8)
    groups = {"ok": users[:4], "refused": users[4:6], "blocked": users[6:7], "lost": users[7:]}
    simulator.state.set_chats("refuse", groups["refused"])
    simulator.state.set_chats("block", groups["blocked"])
    simulator.state.set_chats("lose", groups["lost"])
    settings = settings or engine_settings()
    job = create_text_job(settings=settings)
    assert pump(job.id, 20, settings=settings).stop == "done"
    counts = assert_consistent(job.id)
    assert counts == {"sent": 4, "failed": 2, "skipped": 1, "unknown": 1}
    simulator.state.set_chats("restore", groups["refused"] + groups["lost"])
    return reload(job.id), groups


def copies(simulator) -> dict[int, int]:
    """Return how many sendMessage copies each recipient got (admins' summaries left out)."""
    got: dict[int, int] = {}
    for d in simulator.deliveries("sendMessage"):
        if d["chat_id"] < BASE_ID:
            continue
        got[d["chat_id"]] = got.get(d["chat_id"], 0) + 1
    return got


def test_retry_reaches_exactly_the_failed_users_and_unknown_only_when_asked(app, simulator):
    job, groups = run_with_failures(simulator)
    settings = engine_settings()
    again = retry.retry_job(job.id, actor=audit.ACTOR_CLI, settings=settings)
    assert (again.retry_of, again.total_count, again.text, again.content_type) == (job.id, 2, job.text, "text")
    assert pump(again.id, 20, settings=settings).stop == "done"
    got = copies(simulator)
    assert {u: got.get(u, 0) for u in sum(groups.values(), [])} == {
        **{u: 1 for u in groups["ok"] + groups["refused"] + groups["lost"]}, **{u: 0 for u in groups["blocked"]}}

    # The refused users are held by the first retry: the second only adds the unknown one, who gets a second copy.
    with pytest.raises(retry.NothingToRetry):
        retry.retry_job(job.id, actor=audit.ACTOR_CLI, settings=settings)
    third = retry.retry_job(job.id, include_unknown=True, actor=audit.ACTOR_CLI, settings=settings)
    assert set(ledger(third.id)) == set(groups["lost"])
    assert pump(third.id, 20, settings=settings).stop == "done"
    assert copies(simulator)[groups["lost"][0]] == 2
    assert [(e["action"], e["job_id"]) for e in audit.entries() if e["action"] == "retried"] == [
        ("retried", third.id), ("retried", job.id), ("retried", again.id), ("retried", job.id)]


def test_retry_copies_content_audience_and_options(app, simulator):
    create_users(2)
    settings = engine_settings()
    job = creation.create_job(audience="all", created_by=1001, content={"type": "text", "text": "<i>x</i>"},
                              button_text="کانال", button_url="https://t.me/x", silent=True, protect=True,
                              settings=settings)
    assert control.cancel_job(job.id)
    again = retry.retry_job(job.id, settings=settings, created_by=42)
    for name in retry.COPIED:
        assert getattr(again, name) == getattr(job, name), name
    assert (again.status, again.total_count, again.created_by, again.retry_of) == ("running", 2, 42, job.id)


def test_a_paused_job_is_cancelled_by_its_retry_and_cannot_be_resumed(app, simulator):
    users = create_users(3)
    job = create_text_job()
    assert control.pause_job(job.id, actor=audit.ACTOR_CLI)
    again = retry.retry_job(job.id, actor=audit.ACTOR_CLI)
    assert (reload(job.id).status, set(ledger(again.id))) == ("cancelled", set(users))
    assert control.resume_job(job.id) is None
    assert pump(again.id, 20, settings=engine_settings()).stop == "done"
    assert pump(job.id, 20, settings=engine_settings()).stop == "not_running"
    assert copies(simulator) == {u: 1 for u in users}
    assert [e["action"] for e in audit.entries(job.id)] == ["paused", "cancelled", "retried"]


def test_retry_of_a_cancelled_job_leaves_out_items_still_sending(app, simulator):
    users = create_users(4)
    job = create_text_job()
    in_flight = [item_id for item_id, _ in claims.next_pending(job.id, 0, 2)]
    claims.mark_sending(in_flight)  # a pump claimed two and is still waiting for Telegram's answer
    db.session.commit()
    assert control.cancel_job(job.id)
    again = retry.retry_job(job.id, actor=audit.ACTOR_CLI)
    assert set(ledger(again.id)) == set(users[2:]), "an in-flight item could be sent twice"
    # The in-flight sends end failed: a second retry of the same job picks them up, once.
    assert claims.set_final(in_flight, "failed", utcnow(), "Bad Request: refused") == 2
    db.session.commit()
    assert set(ledger(retry.retry_job(job.id, actor=audit.ACTOR_CLI).id)) == set(users[:2])


def test_a_running_job_or_an_empty_retry_changes_nothing(app, simulator):
    create_users(2)
    job = create_text_job()
    with pytest.raises(retry.NotRetryable):
        retry.retry_job(job.id)
    with pytest.raises(retry.NotRetryable):
        retry.retry_job(999_999)
    assert control.pause_job(job.id)
    db.session.execute(update(User).values(is_blocked=True))  # everyone blocked the bot since
    db.session.commit()
    with pytest.raises(retry.NothingToRetry):
        retry.retry_job(job.id)
    assert reload(job.id).status == "paused"  # the failed retry did not cancel it
    assert [j.id for j in control.list_jobs()] == [job.id]


def test_a_retry_leaves_out_users_who_opted_out_since_and_keeps_the_opt_out_button(app, simulator):
    ids = create_users(3)
    settings = engine_settings(broadcast_optout_button=True)
    job = creation.create_job(audience="all", created_by=1001, content={"type": "text", "text": "x"}, settings=settings)
    assert job.optout_button and control.cancel_job(job.id)
    db.session.execute(update(User).where(User.id == ids[0]).values(opted_out_at=utcnow()))
    db.session.commit()
    # The cancelled job's ledger keeps the item it populated; the retry's INSERT ... SELECT leaves the user out.
    assert set(ledger(job.id)) == set(ids)
    again = retry.retry_job(job.id, settings=engine_settings())
    assert (again.total_count, again.optout_button) == (2, True)
    assert set(ledger(again.id)) == set(ids[1:])


def test_purge_keeps_items_younger_than_48_hours_and_every_job_row(app, simulator):
    create_users(3)
    now = utcnow()
    old, recent, late = create_text_job(), create_text_job(), create_text_job()
    for job_id, finished in ((old.id, now - timedelta(days=10)), (recent.id, now - timedelta(hours=47)),
                             (late.id, now - timedelta(days=3))):
        db.session.execute(update(BroadcastJob).where(BroadcastJob.id == job_id).values(
            status="completed", active_slot=None, finished_at=finished))
        db.session.execute(update(I).where(I.job_id == job_id).values(status="sent", sent_at=finished))
    # A send recorded after its (cancelled) job ended: it is only an hour old.
    late_item = db.session.execute(select(I.id).where(I.job_id == late.id).limit(1)).scalar()
    db.session.execute(update(I).where(I.id == late_item).values(sent_at=now - timedelta(hours=1)))
    db.session.commit()

    result = jobs_purge.purge_items(0)
    assert (result["items"], result["jobs"]) == (5, {old.id: 3, late.id: 2})
    assert (len(ledger(old.id)), len(ledger(recent.id)), len(ledger(late.id))) == (0, 3, 1)
    assert len(db.session.execute(select(BroadcastJob.id)).all()) == 3
    db.session.commit()


@pytest.mark.parametrize("page_rows", [1, 2])
def test_an_export_in_small_pages_yields_every_item_once(app, simulator, page_rows):
    users = create_users(5)
    create_text_job()  # another job's items around this one's
    job = create_text_job()
    got = []
    for pages, (chunk, rows) in enumerate(export.csv_chunks(job.id, page_rows=page_rows)):
        assert pages <= len(users), f"page {pages} of {len(users)} rows in pages of {page_rows}: paging is stuck"
        lines = list(csv.reader(io.StringIO(chunk.decode("utf-8-sig"), newline="")))
        assert len(lines) == rows + (pages == 0)  # the first chunk is the header alone
        got += [int(line[0]) for line in lines if pages]
    assert got == users


def test_ledger_pages_hold_only_the_job_s_own_items_in_id_order(app, simulator):
    users = create_users(3)
    first, second = create_text_job(), create_text_job()
    last = ledger_repo.last_item_id(second.id)
    assert ledger_repo.last_item_id(first.id) < last and ledger_repo.last_item_id(424242) == 0
    page = ledger_repo.ledger_page(first.id, 0, last, 100)
    assert [row[1] for row in page] == users and [row[3] for row in page] == ["pending"] * 3
    assert [row[1] for row in ledger_repo.ledger_page(second.id, page[0][0], last, 2)] == users[:2]
    db.session.commit()
