"""The wizard's draft in its admin_states JSON form: the keys stored before the Draft class still load."""
import json

import pytest

from app.models.audience import Audience
from app.services.broadcast.jobs.draft import Draft

# A draft as the wizard stored it before Draft existed (a paid screen confirmed once, then ⏰ pressed),
# with every key it knew, plus a key this version does not know.
OLD_FULL = """{"draft_id": "Ab3dE6gH", "content": {"type": "copy", "from_chat_id": 1001, "message_id": 42},
"button_text": "کانال", "button_url": "https://t.me/update_pack", "audience": "members",
"filters": {"langs": ["fa", "other"], "active_days": 30, "joined_days": null}, "silent": true, "protect": true,
"paid_ok": true, "preview_id": "Pr3v1ew0", "confirm_id": "C0nf1rm0", "sched_token": "Sch3d000", "later": [1, 2]}"""


def test_an_old_draft_with_every_key_loads_field_by_field_and_stores_back_the_same_json():
    draft = Draft.from_json(json.loads(OLD_FULL))
    assert (draft.draft_id, draft.preview_id, draft.confirm_id, draft.sched_token) == (
        "Ab3dE6gH", "Pr3v1ew0", "C0nf1rm0", "Sch3d000")
    assert draft.content == {"type": "copy", "from_chat_id": 1001, "message_id": 42}
    assert (draft.button_text, draft.button_url) == ("کانال", "https://t.me/update_pack")
    assert (draft.silent, draft.protect, draft.paid_ok) == (True, True, True)
    assert draft.target == Audience("members", ("fa", "other"), 30, None)
    assert draft.extra == {"later": [1, 2]}
    assert draft.to_json() == json.loads(OLD_FULL)


def test_missing_keys_take_the_defaults_the_wizard_read_them_as():
    draft = Draft.from_json({"draft_id": "Ab3dE6gH"})
    assert draft == Draft(draft_id="Ab3dE6gH")
    assert (draft.content, draft.button_text, draft.button_url, draft.preview_id, draft.confirm_id) == (None,) * 5
    assert (draft.silent, draft.protect, draft.paid_ok) == (False, False, False)
    assert draft.target == Audience("all")  # no audience chosen yet
    assert Draft.from_json({}) == Draft()


def test_keys_at_their_default_are_not_written():
    # Readers take a missing key as its default: the old code's None and False read back the same.
    old = {"draft_id": "Ab3dE6gH", "content": {"type": "text", "text": "x"}, "button_text": None,
           "button_url": None, "silent": False, "paid_ok": 0}
    assert Draft.from_json(old).to_json() == {"draft_id": "Ab3dE6gH", "content": {"type": "text", "text": "x"}}


def test_the_audience_is_stored_as_the_wizard_stored_it():
    draft = Draft(draft_id="d").with_target(Audience("non_members", ("en",), None, 7))
    assert draft.to_json() == {"draft_id": "d", "audience": "non_members",
                               "filters": {"langs": ["en"], "active_days": None, "joined_days": 7}}


def test_without_preview_drops_the_preview_ids_and_the_paid_confirmation_only():
    draft = Draft.from_json(json.loads(OLD_FULL)).without_preview()
    stored = draft.to_json()
    assert not {"preview_id", "confirm_id", "paid_ok"} & set(stored)
    assert stored["sched_token"] == "Sch3d000" and stored["later"] == [1, 2] and stored["silent"] is True


def test_a_stored_audience_no_audience_has_is_refused_when_used():
    draft = Draft.from_json({"audience": "everyone"})  # loads: the wizard only reads it when counting
    with pytest.raises(ValueError):
        assert draft.target is None  # never reached: reading it raises
