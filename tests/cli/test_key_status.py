"""`broadcast status ID` of a broadcast with a keyboard: every button's numbers, from its counters."""
from __future__ import annotations

import json

from app.services.broadcast.actions import unsend_edit
from app.services.broadcast.content import keyboard
from tests.broadcast.helpers import create_text_job, engine_settings
from tests.broadcast.keyed_job import KB, big_keyboard, counters_of, keyed_job


def status_of(runner, job_id: int) -> dict:
    result = runner.invoke(args=["broadcast", "status", str(job_id)])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_status_lists_every_button_in_reading_order_with_the_numbers_its_kind_counts(runner):
    job_id = keyed_job()
    counted = counters_of(job_id)
    assert status_of(runner, job_id)["buttons"] == [
        {"position": 1, "text": "Shop", "kind": "url", "clicks": counted[1][0], "first_clicks": counted[1][1],
         "presses": None},
        {"position": 2, "text": "Blog", "kind": "url", "clicks": counted[2][0], "first_clicks": counted[2][1],
         "presses": None},
        # Telegram copies the text on the phone and tells the bot nothing: no number, not a zero.
        {"position": 3, "text": "Code", "kind": "copy", "clicks": None, "first_clicks": None, "presses": None},
        {"position": 4, "text": "VIP", "kind": "tap", "clicks": None, "first_clicks": None,
         "presses": counted[4][2]},
        {"position": 5, "text": "Hours", "kind": "menu", "clicks": None, "first_clicks": None,
         "presses": counted[5][2]},
    ]
    assert [b["text"] for row in KB["rows"] for b in row] == ["Shop", "Blog", "Code", "VIP", "Hours"]


def test_status_lists_all_hundred_buttons_uncut(runner):
    kb = big_keyboard()
    counters = {pos: (pos, 1, 0) if b["kind"] == "url" else (0, 0, pos) for pos, b in keyboard.buttons(kb)}
    job_id = keyed_job(kb, counters, delivered=5)
    listed = status_of(runner, job_id)["buttons"]
    counted = counters_of(job_id)
    assert [b["position"] for b in listed] == list(range(1, 101))
    assert all(len(b["text"]) == 64 for b in listed), "the shell is not Telegram: labels are whole"
    for b in listed:
        clicks, first, presses = counted[b["position"]]
        assert (b["clicks"], b["first_clicks"], b["presses"]) == {
            "url": (clicks, first, None), "copy": (None, None, None)}.get(b["kind"], (None, None, presses))


def test_a_job_without_a_keyboard_and_an_edit_of_one_have_no_buttons_of_their_own(runner):
    job_id = keyed_job()
    assert "buttons" not in status_of(runner, create_text_job().id)
    edit = unsend_edit.edit_job(job_id, "new text", settings=engine_settings())
    assert "buttons" not in status_of(runner, edit.id), "its copies' clicks and presses count for the broadcast"
