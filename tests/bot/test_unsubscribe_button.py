"""The unsubscribe button per broadcast, through the webhook and the simulator: a tap is /stop, counted once."""
import json

import pytest

from app.bot.callback_data import MAX_BYTES, MAX_ID, parse
from app.services.broadcast.content.methods import OPTOUT_DATA
from app.services.broadcast.jobs.status import job_status
from app.services.settings import set_setting
from app.texts import t
from tests.bot.test_optout import LEAVES, STAYS, broadcast, start_users
from tests.bot.wizard import last_answer, press, send, tap, texts_to
from tests.broadcast.helpers import reload
from tests.conftest import ADMIN_ID
from tests.factories import get_user

pytestmark = pytest.mark.usefixtures("fast_telegram")
OTHER = 8103


def test_a_tap_opts_out_answers_and_counts_once_per_job(client, simulator):
    start_users(client, simulator, ADMIN_ID, STAYS, LEAVES, OTHER)
    set_setting("broadcast_optout_button", "on")
    job = broadcast(client, simulator, "با دکمه")
    copy = simulator.deliveries("copyMessage", LEAVES)[-1]
    data = copy["reply_markup"]["inline_keyboard"][-1][0]["callback_data"]
    assert data == f"u.out:{job.id}"
    for _ in range(2):  # a double tap: answered both times, opted out once, counted once
        assert tap(client, simulator, data, user_id=LEAVES, message_id=copy["message_id"])["outcome"] == "handled"
        assert last_answer(simulator)["text"] is None and texts_to(simulator, LEAVES)[-1] == t("optout_done")
    assert get_user(LEAVES).opted_out_at is not None
    # Back in with /subscribe, out again with the button: a real change, counted again.
    send(client, simulator, "/subscribe", user_id=LEAVES)
    tap(client, simulator, data, user_id=LEAVES, message_id=copy["message_id"])
    # A user already out by /stop taps it: the same answer, no count (the button did not change them).
    send(client, simulator, "/stop", user_id=OTHER)
    tap(client, simulator, data, user_id=OTHER)
    view = job_status(reload(job.id))
    assert (view.unsubscribed, view.unsubscribe_button) == (2, True)
    assert view.as_dict()["unsubscribed"] == 2


def test_a_forged_job_id_is_refused_and_the_old_fixed_button_still_works(client, simulator):
    start_users(client, simulator, ADMIN_ID, STAYS, LEAVES)
    without = broadcast(client, simulator, "بدون دکمه")
    for forged in (f"u.out:{without.id}", f"u.out:{MAX_ID}"):  # a job without the button; no such job
        tap(client, simulator, forged, user_id=STAYS)
        assert last_answer(simulator)["text"] == t("unsub_unknown_button")
        assert get_user(STAYS).opted_out_at is None
    assert reload(without.id).unsubscribed_count == 0
    for garbage in ("u.out:0", "u.out:-1", "u.out:12a", "u.out"):  # never a handler's input
        assert parse(garbage) is None
    # Copies sent before buttons named their job carry the fixed data: it still opts the user out.
    tap(client, simulator, OPTOUT_DATA, user_id=LEAVES)
    assert get_user(LEAVES).opted_out_at is not None and texts_to(simulator, LEAVES)[-1] == t("optout_done")
    assert len(f"u.out:{MAX_ID}".encode()) <= MAX_BYTES


def test_the_presend_toggle_overrides_the_setting_and_the_job_view_shows_the_count(client, simulator):
    start_users(client, simulator, ADMIN_ID, STAYS)
    send(client, simulator, "/broadcast")
    send(client, simulator, "خبر")
    press(client, simulator, "w.no_button")
    press(client, simulator, "w.aud:all")
    press(client, simulator, "w.opt:unsub")  # the setting is off: the toggle puts the button on this one
    screen = [d for d in simulator.deliveries(chat_id=ADMIN_ID) if "w.confirm" in json.dumps(d.get("reply_markup"))]
    assert t("wiz_unsub_on", "fa").strip() in screen[-1]["text"]
    press(client, simulator, "w.confirm")
    from tests.bot.wizard import all_jobs

    job = all_jobs()[-1]
    assert job.optout_button
    copy = simulator.deliveries("copyMessage", STAYS)[-1]
    tap(client, simulator, f"u.out:{job.id}", user_id=STAYS, message_id=copy["message_id"])
    tap(client, simulator, f"j.view:{job.id}")
    view = [d["text"] for d in simulator.deliveries(chat_id=ADMIN_ID) if d.get("text")][-1]
    assert "🚫 لغو عضویت: 1" in view


def test_the_cli_flags_and_an_album_refused(runner, simulator):
    from app.models import BroadcastJob
    from tests.broadcast.helpers import create_users
    from tests.cli.test_broadcast_cmd import count, create

    create_users(2)
    refused = create(runner, "--audience", "all", "--copy-from", "-100", "--message-ids", "5,6", "--unsubscribe-button")
    assert refused.exit_code == 2 and "album carries no button" in refused.stderr and count(BroadcastJob) == 0
    made = create(runner, "--audience", "all", "--text", "x", "--unsubscribe-button", "--urgent")
    job = reload(int(made.stdout))
    assert (job.optout_button, job.urgent) == (True, True)
    set_setting("broadcast_optout_button", "on")
    off = reload(int(create(runner, "--audience", "all", "--text", "y", "--no-unsubscribe-button").stdout))
    assert off.optout_button is False
