"""The unsubscribe button per broadcast, through the webhook and the simulator: a tap is /stop, counted once a user."""
import json

import pytest

from app.bot.callback_data import MAX_BYTES, MAX_ID, parse
from app.services.audience import tap as tap_button
from app.services.broadcast.content.methods import OPTOUT_DATA
from app.services.broadcast.jobs.status import job_status
from app.services.broadcast.reporting import unsubscribes
from app.services.settings import set_setting
from app.texts import t
from tests.bot.test_optout import LEAVES, STAYS, broadcast, start_users
from tests.bot.wizard import last_answer, press, send, tap, texts_to
from tests.broadcast.helpers import reload
from tests.conftest import ADMIN_ID
from tests.factories import get_user

pytestmark = pytest.mark.usefixtures("fast_telegram")
OTHER = 8103


def test_a_tap_opts_out_answers_and_counts_once_per_job_and_user(client, simulator):
    start_users(client, simulator, ADMIN_ID, STAYS, LEAVES, OTHER)
    set_setting("broadcast_optout_button", "on")
    job = broadcast(client, simulator, "با دکمه")
    copy = simulator.deliveries("copyMessage", LEAVES)[-1]
    data = copy["reply_markup"]["inline_keyboard"][-1][0]["callback_data"]
    assert data == unsubscribes.callback_data(job.id) and data.startswith(f"u.off:{job.id}.")
    assert len(f"u.off:{MAX_ID}.AAAAAAAA".encode()) <= MAX_BYTES
    for _ in range(2):  # a double tap: answered both times, opted out once, counted once
        assert tap(client, simulator, data, user_id=LEAVES, message_id=copy["message_id"])["outcome"] == "handled"
        assert last_answer(simulator)["text"] is None and texts_to(simulator, LEAVES)[-1] == t("optout_done")
    assert get_user(LEAVES).opted_out_at is not None
    # Back in with /subscribe, out again with the button, five times: opted out each time, counted no more.
    for _ in range(5):
        send(client, simulator, "/subscribe", user_id=LEAVES)
        tap(client, simulator, data, user_id=LEAVES, message_id=copy["message_id"])
        assert get_user(LEAVES).opted_out_at is not None and texts_to(simulator, LEAVES)[-1] == t("optout_done")
    assert reload(job.id).unsubscribed_count == 1
    # A user already out by /stop taps it: the same answer, no count (the button did not change them); once
    # back in, the button does change them: their first count on this job.
    send(client, simulator, "/stop", user_id=OTHER)
    tap(client, simulator, data, user_id=OTHER)
    assert reload(job.id).unsubscribed_count == 1
    send(client, simulator, "/subscribe", user_id=OTHER)
    tap(client, simulator, data, user_id=OTHER)
    view = job_status(reload(job.id))
    assert (view.unsubscribed, view.unsubscribe_button) == (2, True)
    assert view.as_dict()["unsubscribed"] == 2


def test_a_press_from_a_non_recipient_or_under_a_forged_mac_changes_nothing(client, simulator):
    start_users(client, simulator, ADMIN_ID, STAYS, LEAVES)
    without = broadcast(client, simulator, "بدون دکمه")
    set_setting("broadcast_optout_button", "on")
    job = broadcast(client, simulator, "با دکمه")
    data = unsubscribes.callback_data(job.id)
    # A user who started after the broadcast never got it: pressing its data, between /subscribe's, six times.
    start_users(client, simulator, OTHER)
    for _ in range(6):
        tap(client, simulator, data, user_id=OTHER)
        assert last_answer(simulator)["text"] == t("unsub_unknown_button")
        assert get_user(OTHER).opted_out_at is None
        send(client, simulator, "/subscribe", user_id=OTHER)
    # A recipient under data the bot never signed: another job's mac, the tap button's mac of this job, junk.
    other_mac = unsubscribes.callback_data(without.id).rsplit(".", 1)[1]
    tap_mac = tap_button.callback_data(job.id).rsplit(".", 1)[1]
    for forged in (f"u.off:{job.id}.{other_mac}", f"u.off:{job.id}.{tap_mac}", f"u.off:{job.id}.AAAAAAAA",
                   unsubscribes.callback_data(without.id)):  # the last: signed, but that job has no button
        tap(client, simulator, forged, user_id=STAYS)
        assert last_answer(simulator)["text"] == t("unsub_unknown_button")
        assert get_user(STAYS).opted_out_at is None
    assert (reload(job.id).unsubscribed_count, reload(without.id).unsubscribed_count) == (0, 0)
    for garbage in (f"u.off:{job.id}", f"u.off:{job.id}.short", "u.off:0.AAAAAAAA", "u.off"):
        assert parse(garbage) is None


def test_the_older_unsigned_data_still_opts_out_and_never_counts(client, simulator):
    start_users(client, simulator, ADMIN_ID, STAYS, LEAVES)
    without = broadcast(client, simulator, "بدون دکمه")
    set_setting("broadcast_optout_button", "on")
    job = broadcast(client, simulator, "با دکمه")
    # Copies sent before the button was signed carry the job's bare id: it opts the presser out, uncounted.
    for _ in range(3):
        tap(client, simulator, f"u.out:{job.id}", user_id=LEAVES)
        assert get_user(LEAVES).opted_out_at is not None and texts_to(simulator, LEAVES)[-1] == t("optout_done")
        send(client, simulator, "/subscribe", user_id=LEAVES)
    assert reload(job.id).unsubscribed_count == 0
    for forged in (f"u.out:{without.id}", f"u.out:{MAX_ID}"):  # a job without the button; no such job
        tap(client, simulator, forged, user_id=STAYS)
        assert last_answer(simulator)["text"] == t("unsub_unknown_button")
        assert get_user(STAYS).opted_out_at is None
    for garbage in ("u.out:0", "u.out:-1", "u.out:12a", "u.out"):  # never a handler's input
        assert parse(garbage) is None
    # Copies sent before buttons named their job carry the fixed data: it still opts the user out.
    tap(client, simulator, OPTOUT_DATA, user_id=LEAVES)
    assert get_user(LEAVES).opted_out_at is not None and texts_to(simulator, LEAVES)[-1] == t("optout_done")
    assert reload(job.id).unsubscribed_count == 0


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
    tap(client, simulator, unsubscribes.callback_data(job.id), user_id=STAYS, message_id=copy["message_id"])
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


def test_a_recipient_of_any_job_of_the_retry_family_is_accepted_and_counted_on_the_pressed_job_once(
        client, simulator):
    from app.services.broadcast.actions import retry
    from app.services.broadcast.jobs import creation
    from app.services.broadcast.sending.drain import pump
    from tests.broadcast.helpers import create_users, engine_settings

    got_first, got_retry = create_users(2)
    settings = engine_settings()
    job = creation.create_job(audience="all", created_by=None, content={"type": "text", "text": "خبر"},
                              optout_button=True, settings=settings)
    simulator.refuse(got_retry)
    assert pump(job.id, 20, settings=settings).stop == "done"
    simulator.restore(got_retry)
    again = retry.retry_job(job.id, settings=settings)
    assert pump(again.id, 20, settings=settings).stop == "done"
    [copy] = simulator.deliveries("sendMessage", got_retry)
    assert copy["reply_markup"]["inline_keyboard"][-1][0]["callback_data"] == unsubscribes.callback_data(again.id)
    # The retry's recipient: counted on the retry, once however often they come back and press again.
    for _ in range(2):
        tap(client, simulator, unsubscribes.callback_data(again.id), user_id=got_retry)
        assert get_user(got_retry).opted_out_at is not None
        send(client, simulator, "/subscribe", user_id=got_retry)
    # The broadcast's recipient pressing the retry's data: one of the family, so opted out; but they hold no
    # copy of the retry, so nothing is counted on it.
    tap(client, simulator, unsubscribes.callback_data(again.id), user_id=got_first)
    assert get_user(got_first).opted_out_at is not None and texts_to(simulator, got_first)[-1] == t("optout_done")
    assert (reload(job.id).unsubscribed_count, reload(again.id).unsubscribed_count) == (0, 1)
    # A user of no job of the family is refused.
    [stranger] = create_users(1, start=got_retry + 100)
    tap(client, simulator, unsubscribes.callback_data(again.id), user_id=stranger)
    assert last_answer(simulator)["text"] == t("unsub_unknown_button") and get_user(stranger).opted_out_at is None
