"""Bad input from an admin: random button data and random text at every wizard and settings step.

An admin may change jobs, but nothing they send may break the engine's
invariants (counters equal tallies, nothing stranded 'sending', terminal
states final, one running job), answer 500, leak a secret, or create a job
from typed text alone (only the confirm button creates one). Every reply the
bot sends an admin must be one Telegram accepts, or the admin is left with
silence.
"""
from __future__ import annotations

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from app.bot.broadcast_wizard import STEP_AUDIENCE, STEP_BUTTON, STEP_MESSAGE, STEP_PREVIEW
from app.extensions import db
from app.services import admins
from app.settings_schema import DEFS
from app.simulator.updates import callback_update, message_update
from tests.conftest import ADMIN_ID
from tests.reliability.fuzzing import (
    assert_jobs_sane,
    assert_replies_clean,
    broadcast_copies,
    check_http,
    fuzz,
    post_update,
    tally,
)
from tests.reliability.helpers import job_count
from tests.reliability.strategies import callback_data, hostile_text

REFUSALS = ("message is too long", "can't parse entities", "text is empty", "text must be non-empty")



@pytest.fixture
def terminal_seen() -> dict[int, str]:
    """Jobs seen in a terminal state so far in this property's run (the database persists across examples)."""
    return {}


def draft_for(step: str, key: str, source_id: int) -> dict:
    """A plausible draft for a wizard or settings step."""
    content = {"type": "copy", "from_chat_id": ADMIN_ID, "message_id": source_id}
    return {
        STEP_MESSAGE: {},
        STEP_BUTTON: {"content": content},
        STEP_AUDIENCE: {"content": content, "button_text": None, "button_url": None},
        STEP_PREVIEW: {"content": content, "button_text": "کانال", "button_url": "https://t.me/x", "audience": "all"},
        "settings": {"key": key},
    }[step]


def refused_replies(simulator, before: dict) -> dict:
    """Return Telegram's refusals of bot messages (too long, broken HTML, empty) since the `before` stats."""
    now = simulator.stats()["4xx"]
    return {k: v - before.get(k, 0) for k, v in now.items()
            if any(r in k for r in REFUSALS) and v - before.get(k, 0)}


@fuzz(120)
@given(data=st.data())
def test_admin_button_presses_keep_every_job_sane(client, fast_bot, job_ids, figures, data, terminal_seen):
    press = data.draw(callback_data(job_ids))
    response = post_update(client, fast_bot, callback_update(ADMIN_ID, press, ADMIN_ID, 1))
    tally(figures, "callbacks_admin", response)
    assert check_http(response, "a webhook answer") and response.status_code == 200
    assert_jobs_sane(terminal_seen)
    copies = broadcast_copies(fast_bot)
    assert len(copies) == len(set(copies)), "a recipient got the same broadcast twice"
    assert_replies_clean(fast_bot, 0)


@fuzz(120)
@given(step=st.sampled_from([STEP_MESSAGE, STEP_BUTTON, STEP_AUDIENCE, STEP_PREVIEW, "settings"]),
       key=st.one_of(st.sampled_from(sorted(DEFS)), st.text(max_size=20)), text=hostile_text(max_size=5000))
@example(step="settings", key="broadcast_batch_size", text="9" * 5000)
@example(step=STEP_BUTTON, key="", text="<b>متن</b> | " + "https://x.y/" + "a" * 5000)
def test_admin_text_at_any_step_is_answered_and_creates_nothing(client, fast_bot, job_ids, figures, step, key, text):
    source_id = fast_bot.add_message(ADMIN_ID, text="پیام مدیر")
    admins.set_state(ADMIN_ID, step, draft_for(step, key, source_id))
    db.session.commit()
    jobs_before, stats_before, since = job_count(), fast_bot.stats()["4xx"], len(fast_bot.deliveries())
    response = post_update(client, fast_bot, message_update(ADMIN_ID, text))
    tally(figures, "wizard_and_settings_input_admin", response)
    assert check_http(response, "a webhook answer") and response.status_code == 200
    assert response.get_json()["outcome"] == "handled"
    assert job_count() == jobs_before, "typed text alone created a job"
    assert_replies_clean(fast_bot, since)
    assert refused_replies(fast_bot, stats_before) == {}, "Telegram refused the bot's answer to the admin"
    assert len(fast_bot.deliveries()) > since, "the admin got no answer at all"
