"""Album previews while a broadcast runs, parts that arrive after the audience tap, the admin's chat pacing."""
import threading

import pytest

from app.services.broadcast.sending import drain
from app.simulator.updates import message_update
from app.texts import t
from tests.bot.test_wizard_album_e2e import albums_in
from tests.bot.wizard import all_jobs, buttons, offered, post, press, screen, send
from tests.broadcast.helpers import create_text_job, create_users
from tests.conftest import ADMIN_ID
from tests.factories import post_update
from tests.reliability.helpers import wait_until

CAPTION = "جشنواره‌ی تابستانه 🎁"


def post_album(sim, group: str, n: int) -> list[int]:
    """Have the simulator POST an album's n parts, the first with the caption; return their ids."""
    parts = [sim.build_update("message", user_id=ADMIN_ID, photo=True, media_group_id=group,
                              caption=CAPTION if i == 0 else None) for i in range(n)]
    for part in parts:
        assert sim.post_update(part)[0] == 200
    return [u["message"]["message_id"] for u in parts]


def confirms(sim) -> list[dict]:
    """Return every message to the admin that carries a Confirm button."""
    return [d for d in sim.deliveries(chat_id=ADMIN_ID) if any(b.startswith("w.confirm:") for b in buttons(d))]


def failed_screens(sim) -> list[dict]:
    """Return the admin's 'the preview did not reach you' screens."""
    return [d for d in sim.deliveries("sendMessage", ADMIN_ID) if d["text"] == t("wiz_preview_failed")]


def tap_audience(sim, keyboard: dict) -> None:
    """Tap "all users" under the album's audience keyboard."""
    [data] = [d for d in buttons(keyboard) if d.startswith("w.aud:all:")]
    post(sim, "callback_query", user_id=ADMIN_ID, data=data, message_chat_id=ADMIN_ID,
         message_id=keyboard["message_id"])


@pytest.mark.usefixtures("served")
def test_album_previews_during_a_broadcast_cost_no_429_and_a_failed_preview_offers_no_confirm(app, simulator):
    sim = simulator
    users = create_users(250)
    post(sim, "message", user_id=ADMIN_ID, text="/broadcast")
    part_ids = post_album(sim, "busy-1", 3)
    keyboard = offered(sim, "w.aud:all")
    job = create_text_job()  # 250 users at the real 30/s cap: about 9 s of sending
    done = []

    def run_broadcast() -> None:
        with app.app_context():
            done.append(drain.pump(job.id, 40).stop)

    worker = threading.Thread(target=run_broadcast)
    worker.start()
    try:
        for _ in range(3):
            tap_audience(sim, keyboard)
        assert len(albums_in(sim.deliveries("copyMessages", ADMIN_ID))) == 3, "every preview was delivered"
        assert len(confirms(sim)) == 3 and all(d["text"].startswith(t("wiz_preview")[:10]) for d in confirms(sim))
        # The source of one part is gone: the preview fails, and its screen says so with no Confirm.
        assert sim.delete_message_source(ADMIN_ID, part_ids[1])
        tap_audience(sim, keyboard)
        # The admin's chat may still be busy with the last screen (1 s a message): the answer then
        # comes from the late outbox a moment later, never lost.
        assert wait_until(lambda: failed_screens(sim), 10), "the failed preview was never answered"
        [last] = failed_screens(sim)
        assert last["text"] == t("wiz_preview_failed")
        assert [b for b in buttons(last) if b.startswith("w.aud:")] and not any(b.startswith("w.confirm")
                                                                              for b in buttons(last))
        assert len(confirms(sim)) == 3 and len(albums_in(sim.deliveries("copyMessages", ADMIN_ID))) == 3
    finally:
        worker.join(60)
    assert done == ["done"]
    [broadcast] = all_jobs()
    assert (broadcast.status, broadcast.sent_count) == ("completed", len(users))
    assert sim.stats()["429_total"] == 0, sim.stats()


@pytest.mark.parallel  # no pacing (fast_telegram): judged by the screens alone
def test_a_single_message_preview_that_fails_shows_no_confirm(client, simulator, fast_telegram):
    create_users(2)
    send(client, simulator, "/broadcast")
    message = send(client, simulator, photo=True, caption="one photo")
    press(client, simulator, "w.no_button")
    assert simulator.delete_message_source(ADMIN_ID, message["message"]["message_id"])
    press(client, simulator, "w.aud:all")
    last = simulator.deliveries("sendMessage", ADMIN_ID)[-1]
    assert last["text"] == t("wiz_preview_failed") and simulator.deliveries("copyMessage", ADMIN_ID) == []
    assert confirms(simulator) == []
    # The audience buttons under the refusal try again: the source is still gone, so still no Confirm.
    press(client, simulator, "w.aud:all", under=last)
    assert simulator.deliveries("sendMessage", ADMIN_ID)[-1]["text"] == t("wiz_preview_failed")
    assert confirms(simulator) == [] and all_jobs() == []


@pytest.mark.parallel  # no pacing (fast_telegram): judged by the screens alone
def test_a_part_after_the_audience_tap_renews_the_preview_and_the_old_confirm_is_refused(client, simulator,
                                                                                       fast_telegram):
    users = create_users(4)
    send(client, simulator, "/broadcast")
    parts = [message_update(ADMIN_ID, photo=True, media_group_id="late-1", caption=CAPTION if i == 0 else None)
             for i in range(3)]
    ids = [u["message"]["message_id"] for u in parts]
    for part in parts[1:]:  # the part with the caption comes last, after the tap
        assert post_update(client, part, sim=simulator).status_code == 200
    press(client, simulator, "w.aud:all")
    old = offered(simulator, "w.confirm")
    assert old["text"] == screen(4, album=2)
    assert post_update(client, parts[0], sim=simulator).status_code == 200
    new = offered(simulator, "w.confirm")
    assert new["message_id"] != old["message_id"] and new["text"] == screen(4, album=3)
    assert t("wiz_album_late").format(n=3) in [d["text"] for d in simulator.deliveries("sendMessage", ADMIN_ID)]
    previews = list(albums_in(simulator.deliveries("copyMessages", ADMIN_ID)).values())
    assert [[d["source_message_id"] for d in album] for album in previews] == [ids[1:], ids]
    press(client, simulator, "w.confirm", under=old)
    assert simulator.callback_answers()[-1]["text"] == t("wiz_stale") and all_jobs() == []
    press(client, simulator, "w.confirm", under=new)
    [job] = all_jobs()
    assert (job.status, job.sent_count) == ("completed", 4)
    for user_id in users:
        [album] = albums_in(simulator.deliveries("copyMessages", user_id)).values()
        assert [d["source_message_id"] for d in album] == ids and album[0]["caption"] == CAPTION


@pytest.mark.usefixtures("served")
def test_the_summary_after_a_long_album_to_the_admin_keeps_the_chat_pacing(simulator):
    # The admin is the only recipient: its album waits for its chat (the progress message just went),
    # misses its bot-wide slot and takes a later one; the summary must still come a whole second after it.
    sim = simulator
    post(sim, "message", user_id=ADMIN_ID, text="/start", first_name="مدیر")
    post(sim, "message", user_id=ADMIN_ID, text="/broadcast")
    ids = post_album(sim, "long-1", 10)
    tap_audience(sim, offered(sim, "w.aud:all"))
    preview = offered(sim, "w.confirm")
    [data] = [d for d in buttons(preview) if d.startswith("w.confirm:")]
    post(sim, "callback_query", user_id=ADMIN_ID, data=data, message_chat_id=ADMIN_ID,
         message_id=preview["message_id"])
    [job] = all_jobs()
    assert (job.status, job.sent_count) == ("completed", 1)
    albums = list(albums_in(sim.deliveries("copyMessages", ADMIN_ID)).values())
    assert [[d["source_message_id"] for d in album] for album in albums] == [ids, ids]
    assert sim.stats()["429_total"] == 0, sim.stats()

