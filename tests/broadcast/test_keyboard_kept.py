"""The keyboard stays with a broadcast wherever it goes: language variants, a retry, an A/B test, a recurring series."""
from __future__ import annotations

from datetime import datetime, timedelta

import pytest
from sqlalchemy import update

from app.extensions import db
from app.models import RecurringBroadcast, User
from app.models.audience import Audience
from app.services import audit
from app.services.audience import key_press
from app.services.broadcast.ab import split
from app.services.broadcast.actions import retry
from app.services.broadcast.jobs import creation
from app.services.broadcast.jobs.draft import Draft
from app.services.broadcast.reporting import clicks
from app.services.broadcast.schedule import recurring, recurring_series
from app.services.broadcast.sending.drain import pump, pump_all
from tests.broadcast.helpers import BASE_ID, create_users, engine_settings
from tests.conftest import PUBLIC_URL

FAST = engine_settings(broadcast_rate_per_second=28)
PUBLIC = PUBLIC_URL
KB = {"rows": [[{"kind": "url", "text": "Shop", "url": "https://example.com/shop"}],
               [{"kind": "copy", "text": "Code", "copy": "SALE20"}, {"kind": "tap", "text": "Me", "tag": "me"}]]}


def run(job_id: int) -> None:
    for _ in range(5):
        if pump(job_id, 60, settings=FAST).stop == "done":
            return
    raise AssertionError(f"job {job_id} did not complete")


def keyboards_of(simulator, method: str = "sendMessage") -> dict[int, list]:
    """Return {recipient: their copy's inline rows}."""
    return {d["chat_id"]: d["reply_markup"]["inline_keyboard"] for d in simulator.deliveries(method)
            if d["chat_id"] >= BASE_ID}


def assert_built(rows: list, job_id: int) -> None:
    """The rows are KB's, with a tracked link and the press data of job_id."""
    assert [[b["text"] for b in row] for row in rows] == [["Shop"], ["Code", "Me"]]
    assert rows[0][0]["url"].startswith(PUBLIC + clicks.PATH)
    assert rows[1][0]["copy_text"] == {"text": "SALE20"}
    assert rows[1][1]["callback_data"] == key_press.callback_data(job_id, 3)


def test_every_language_variant_carries_the_keyboard(public_url, simulator):
    create_users(2)
    db.session.execute(update(User).where(User.id == BASE_ID).values(language_code="en"))
    db.session.commit()
    job = creation.create_job(audience="all", created_by=1, settings=FAST, keyboard=KB,
                              content={"type": "text", "text": "سلام"}, variants={"en": "Hello"})
    run(job.id)
    sent = {d["chat_id"]: d["text"] for d in simulator.deliveries("sendMessage") if d["chat_id"] >= BASE_ID}
    assert sent == {BASE_ID: "Hello", BASE_ID + 1: "سلام"}
    for rows in keyboards_of(simulator).values():
        assert_built(rows, job.id)


def test_a_retry_sends_the_keyboard_with_presses_and_links_of_its_own(public_url, simulator):
    create_users(2)
    simulator.refuse(BASE_ID)
    job = creation.create_job(audience="all", created_by=1, settings=FAST, keyboard=KB,
                              content={"type": "text", "text": "سلام"})
    run(job.id)
    simulator.restore(BASE_ID)
    again = retry.retry_job(job.id, settings=FAST)
    run(again.id)
    [copy] = [d for d in simulator.deliveries("sendMessage", BASE_ID)]
    assert_built(copy["reply_markup"]["inline_keyboard"], again.id)


def test_every_version_of_an_ab_test_carries_the_keyboard(public_url, simulator):
    create_users(20)
    test = split.create_test(audience="all", texts=["A text", "B text"], share=50, wait=timedelta(hours=2),
                             button_text=None, button_url=None, created_by=1, settings=FAST, kb=KB)
    run(test.id)
    copies = keyboards_of(simulator)
    assert len(copies) == 10
    for rows in copies.values():
        assert_built(rows, test.id)


def test_an_ab_test_needs_a_tracked_link_in_its_keyboard(public_url):
    create_users(20)
    with pytest.raises(ValueError, match="PUBLIC_URL"):
        split.create_test(audience="all", texts=["A", "B"], share=50, wait=timedelta(hours=2), button_text=None,
                          button_url=None, created_by=1, settings=FAST, kb={"rows": [KB["rows"][1]]})


def test_each_occurrence_of_a_recurring_broadcast_carries_the_keyboard(public_url, simulator):
    create_users(2)
    draft = Draft(content={"type": "text", "text": "هفتگی"}, keyboard=KB).with_target(Audience("all"))
    row = recurring_series.create(draft, "daily 10:00", until=None, count=None, if_missed="send", created_by=1,
                                  lang="en", actor=audit.ACTOR_CLI)
    at = datetime(2026, 12, 26, 6, 30)
    db.session.execute(update(RecurringBroadcast).where(RecurringBroadcast.id == row.id).values(next_at=at))
    db.session.commit()
    [job_id] = recurring.release_due(FAST, now=at + timedelta(seconds=1))
    pump_all(10, settings=FAST)
    copies = keyboards_of(simulator)
    assert len(copies) == 2
    for rows in copies.values():
        assert_built(rows, job_id)


def test_a_draft_discarded_for_an_empty_audience_leaves_no_button_rows(app):
    from app.models import BroadcastButton
    with pytest.raises(creation.EmptyAudience):
        creation.create_job(audience="all", created_by=1, settings=FAST, keyboard=KB,
                            content={"type": "text", "text": "سلام"})
    assert db.session.execute(db.select(BroadcastButton)).first() is None
