"""The wizard's saved segments end to end through the webhook: choose one, leave others out, confirm, deletions."""
from __future__ import annotations

import json

import pytest
from sqlalchemy import select

from app.extensions import db
from app.models import BroadcastJobItem
from app.models.segment_rule import FieldTest, Rule
from app.services.audience import segments
from app.texts import t
from tests.audience.population import JOB, RETRY, seed, uid
from tests.bot.wizard import all_jobs, buttons, last_answer, offered, press, send, step_of
from tests.conftest import ADMIN_ID
from tests.factories import admin_state

pytestmark = pytest.mark.usefixtures("fast_telegram")


def saved(name: str, rule: Rule) -> int:
    """Save a segment; return its id."""
    return segments.save(name, rule).segment.id


def draft() -> dict:
    """Return the admin's stored draft."""
    return json.loads(admin_state(ADMIN_ID).draft)


def latest_text(sim) -> str:
    """Return the newest text the admin's chat shows (a sent message or an edited one)."""
    return [d for d in sim.deliveries(chat_id=ADMIN_ID) if d.get("text")][-1]["text"]


def new_jobs() -> list:
    """Return the jobs the wizard created (the seeded history jobs left out)."""
    return [job for job in all_jobs() if job.id not in (JOB, RETRY)]


def to_audience(client, sim) -> None:
    send(client, sim, "/broadcast")
    send(client, sim, "hello")
    press(client, sim, "w.no_button")


def test_choose_a_segment_leave_one_out_and_confirm(client, simulator, app):
    seed()
    vip, gold = saved("vip", Rule(tags_any=("vip",))), saved("gold", Rule(fields=(FieldTest("plan", "=", ("gold",)),)))
    to_audience(client, simulator)
    press(client, simulator, "w.segs")
    listing = offered(simulator, "w.seg")
    assert [b["text"] for row in listing["reply_markup"]["inline_keyboard"] for b in row] == ["gold", "vip"]
    press(client, simulator, f"w.seg:{vip}", under=listing)
    screen = offered(simulator, "w.abort")
    assert t("seg_line", "fa", name="vip") in screen["text"] and "— 2 نفر" in screen["text"]
    # A segment brings its own filters: only silent / protect stay, then "leave out a segment".
    data = buttons(screen)
    assert not any(d.startswith(("w.opt:fa", "w.opt:a7", "w.src")) for d in data)
    assert any(d.startswith("w.xsegs:1:") for d in data)
    press(client, simulator, "w.xsegs", under=screen)
    excl = offered(simulator, "w.xseg")
    assert [b["text"] for row in excl["reply_markup"]["inline_keyboard"] for b in row] == ["gold"]  # not vip itself
    press(client, simulator, f"w.xseg:{gold}", under=excl)
    assert t("seg_excluded_line", "fa", names="gold", count=1, whole=2) in latest_text(simulator)
    assert draft()["exclude_ids"] == [gold]
    press(client, simulator, "w.confirm")
    [job] = new_jobs()
    ids = set(db.session.execute(select(BroadcastJobItem.user_id).where(BroadcastJobItem.job_id == job.id)).scalars())
    db.session.commit()
    assert ids == {uid(2)}
    assert (json.loads(job.audience_rule)["segment"], json.loads(job.audience_rule)["exclude"][0]["segment"]) == \
        ("vip", "gold")


def test_a_deleted_segment_answers_in_words_and_confirm_creates_nothing(client, simulator, app):
    seed()
    vip, gold = saved("vip", Rule(tags_any=("vip",))), saved("gold", Rule(fields=(FieldTest("plan", "=", ("gold",)),)))
    to_audience(client, simulator)
    press(client, simulator, "w.segs")
    listing = offered(simulator, "w.seg")
    press(client, simulator, f"w.seg:{vip}", under=listing)
    press(client, simulator, "w.xsegs")
    press(client, simulator, f"w.xseg:{gold}")
    segments.delete("gold")
    # The old list's button for the deleted segment: an alert the admin can act on, and the list again.
    press(client, simulator, f"w.seg:{gold}", under=listing)
    assert last_answer(simulator)["text"] == t("seg_gone", "fa") and last_answer(simulator)["show_alert"]
    assert [b["text"] for row in offered(simulator, "w.seg")["reply_markup"]["inline_keyboard"] for b in row] == \
        ["vip"]
    # Confirm with the deleted segment still left out: nothing is created, the admin chooses again.
    press(client, simulator, "w.confirm")
    assert new_jobs() == []
    assert t("seg_gone_draft", "fa") in [d["text"] for d in simulator.deliveries("sendMessage", ADMIN_ID)]
    assert step_of() == "wiz:audience"


def test_no_segments_no_button_and_an_empty_segment_is_refused(client, simulator, app):
    seed()
    to_audience(client, simulator)
    assert not any(d.startswith("w.segs") for d in buttons(offered(simulator, "w.aud:all")))
    nobody = saved("nobody", Rule(tags_any=("nobody_has_it",)))
    to_audience(client, simulator)
    press(client, simulator, "w.segs")
    press(client, simulator, f"w.seg:{nobody}")
    assert last_answer(simulator)["text"] == t("wiz_empty_audience", "fa")
    assert new_jobs() == [] and step_of() == "wiz:audience"
