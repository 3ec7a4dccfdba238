"""Every wizard button belongs to one draft (and confirm/abort to one preview): old buttons expire."""
import pytest

from app.bot.callback_data import MAX_BYTES
from app.clock import utcnow
from app.extensions import db
from app.models.admin_state import AdminState
from app.texts import t
from tests.bot.wizard import all_jobs, buttons, last_answer, offered, press, send, step_of, tap, texts_to
from tests.conftest import ADMIN_ID
from tests.factories import create_user, create_users

pytestmark = pytest.mark.usefixtures("fast_telegram")
USERS = [6001, 6002, 6003]


@pytest.fixture
def audience(app):
    """Three reachable users, one of them a channel member."""
    create_users(USERS[:2])
    create_user(USERS[2], main_channel_status="member")
    return USERS


def to_preview(client, sim, text: str, audience: str = "all") -> tuple[int, dict]:
    """Walk a new draft to its preview; return (its message id, the preview question with confirm/abort)."""
    send(client, sim, "/broadcast")
    source = send(client, sim, text)["message"]["message_id"]
    press(client, sim, "w.no_button")
    press(client, sim, "w.aud:" + audience)
    return source, offered(sim, "w.confirm")


def copies_to_users(sim) -> dict[int, list[int]]:
    """Return, per user, the source message ids of the copies they received."""
    return {uid: [d["source_message_id"] for d in sim.deliveries("copyMessage", uid)] for uid in USERS}


def assert_stale(sim):
    answer = last_answer(sim)
    assert (answer["text"], answer["show_alert"]) == (t("wiz_stale"), True)


def test_confirm_under_an_old_preview_never_sends_the_newer_draft(client, simulator, audience):
    """The issue's reproduction: X to preview, /broadcast again with Y, Confirm under X."""
    x_source, x_preview = to_preview(client, simulator, "draft X")
    y_source, y_preview = to_preview(client, simulator, "draft Y")

    press(client, simulator, "w.confirm", under=x_preview)
    assert_stale(simulator)
    assert all_jobs() == []
    assert copies_to_users(simulator) == {uid: [] for uid in USERS}
    assert step_of() == "wiz:preview"  # Y is untouched and still confirmable

    press(client, simulator, "w.confirm", under=y_preview)
    assert last_answer(simulator)["text"] == t("cb_working")
    [job] = all_jobs()
    assert (job.source_message_id, job.status, job.sent_count) == (y_source, "completed", 3)
    assert copies_to_users(simulator) == {uid: [y_source] for uid in USERS}
    assert x_source not in [d["source_message_id"] for d in simulator.deliveries("copyMessage")
                            if d["chat_id"] != ADMIN_ID]


def test_confirm_under_x_while_y_is_earlier_in_the_wizard(client, simulator, audience):
    _x, x_preview = to_preview(client, simulator, "draft X")
    send(client, simulator, "/broadcast")
    send(client, simulator, "draft Y")
    press(client, simulator, "w.confirm", under=x_preview)
    assert all_jobs() == [] and step_of() == "wiz:button"


def test_old_audience_buttons_expire(client, simulator, audience):
    send(client, simulator, "/broadcast")
    send(client, simulator, "draft X")
    press(client, simulator, "w.no_button")
    x_audiences = offered(simulator, "w.aud:all")
    send(client, simulator, "/broadcast")
    send(client, simulator, "draft Y")
    press(client, simulator, "w.no_button")
    copies_before = len(simulator.deliveries("copyMessage"))

    press(client, simulator, "w.aud:members", under=x_audiences)
    assert_stale(simulator)
    assert step_of() == "wiz:audience"
    assert len(simulator.deliveries("copyMessage")) == copies_before  # no preview of anything


def test_old_no_button_expires(client, simulator, audience):
    send(client, simulator, "/broadcast")
    send(client, simulator, "draft X")
    x_ask = offered(simulator, "w.no_button")
    send(client, simulator, "/broadcast")
    send(client, simulator, "draft Y")
    press(client, simulator, "w.no_button", under=x_ask)
    assert_stale(simulator)
    assert step_of() == "wiz:button"
    assert texts_to(simulator)[-1] == t("wiz_ask_button")


def test_old_abort_does_not_drop_the_new_draft(client, simulator, audience):
    _x, x_preview = to_preview(client, simulator, "draft X")
    y_source, _y = to_preview(client, simulator, "draft Y")
    press(client, simulator, "w.abort", under=x_preview)
    assert_stale(simulator)
    assert step_of() == "wiz:preview"
    press(client, simulator, "w.confirm")
    [job] = all_jobs()
    assert job.source_message_id == y_source


def test_confirm_under_an_older_preview_of_the_same_draft_expires(client, simulator, audience):
    """Changing the audience makes a new preview; the old one (another audience on screen) expires."""
    _source, all_preview = to_preview(client, simulator, "hello", audience="all")
    press(client, simulator, "w.aud:members")  # the audience buttons still work at the preview step
    members_preview = offered(simulator, "w.confirm")
    assert members_preview["message_id"] != all_preview["message_id"]
    press(client, simulator, "w.confirm", under=all_preview)
    assert_stale(simulator)
    assert all_jobs() == []
    press(client, simulator, "w.confirm", under=members_preview)
    [job] = all_jobs()
    assert (job.audience, job.total_count) == ("members", 1)


def test_double_tap_on_confirm_creates_one_job(client, simulator, audience):
    _source, preview = to_preview(client, simulator, "hello")
    press(client, simulator, "w.confirm", under=preview)
    press(client, simulator, "w.confirm", under=preview)
    assert len(all_jobs()) == 1
    assert [a["text"] for a in simulator.callback_answers()[-2:]] == [t("cb_working"), t("wiz_expired")]


def test_forged_draft_ids_are_refused(client, simulator, audience):
    _source, preview = to_preview(client, simulator, "hello")
    [confirm] = [data for data in buttons(preview) if data.startswith("w.confirm:")]
    assert any(data.startswith("w.sched:") for data in buttons(preview)), "the schedule button is offered"
    prefix, _sep, token = confirm.rpartition(":")
    for data in (prefix, f"{prefix}:{token[::-1]}", f"{prefix}:{token}x", f"{prefix}:AAAAAAAA"):
        tap(client, simulator, data, message_id=preview["message_id"])
        assert last_answer(simulator)["text"] in (t("wiz_stale"), t("wiz_expired"))
    assert all_jobs() == [] and step_of() == "wiz:preview"


def test_every_wizard_button_names_its_draft_within_64_bytes(client, simulator, audience):
    _source, preview = to_preview(client, simulator, "hello", audience="non_members")
    data = [d for delivery in simulator.deliveries(chat_id=ADMIN_ID) for d in buttons(delivery)]
    wizard = [d for d in data if d.startswith("w.")]
    assert wizard and all(d.count(":") >= 1 for d in wizard)
    assert max(len(d.encode()) for d in data) <= MAX_BYTES


# A pre-send screen's draft exactly as the wizard stored it before the Draft class: the keys must keep loading.
OLD_PREVIEW = ('{"draft_id": "Ab3dE6gH", "content": {"type": "text", "text": "<b>خبر</b> {first_name}", '
               '"parse_mode": "HTML"}, "button_text": "کانال", "button_url": "https://t.me/update_pack", '
               '"audience": "all", "filters": {"langs": ["fa"], "active_days": null, "joined_days": null}, '
               '"silent": true, "protect": false, "preview_id": "Pr3v1ew0", "confirm_id": "C0nf1rm0"}')


def store(step: str, raw: str) -> None:
    """Put the admin on step with the draft's JSON text as stored."""
    db.session.add(AdminState(admin_id=ADMIN_ID, step=step, draft=raw, updated_at=utcnow()))
    db.session.commit()


def assert_job_of_old_draft(job) -> None:
    assert (job.content_type, job.text, job.parse_mode) == ("text", "<b>خبر</b> {first_name}", "HTML")
    assert (job.button_text, job.button_url) == ("کانال", "https://t.me/update_pack")
    assert (job.audience, job.audience_langs, job.silent, job.protect) == ("all", "fa", True, False)
    assert job.total_count == 3, "the three Persian users, not the English one"


def test_a_draft_stored_before_the_draft_class_is_confirmed_as_it_was(client, simulator, audience):
    create_user(6004, language_code="en")
    store("wiz:preview", OLD_PREVIEW)
    tap(client, simulator, "w.confirm:C0nf1rm0")
    assert last_answer(simulator)["text"] == t("cb_working")
    [job] = all_jobs()
    assert_job_of_old_draft(job)
    assert job.created_by == ADMIN_ID and step_of() is None


def test_a_draft_stored_before_the_draft_class_is_scheduled_as_it_was(client, simulator, audience):
    create_user(6004, language_code="en")
    store("sched:new", OLD_PREVIEW[:-1] + ', "sched_token": "Sch3d000"}')
    tap(client, simulator, "w.at:tomorrow:Sch3d000")
    [job] = all_jobs()
    assert job.status == "scheduled"
    assert_job_of_old_draft(job)
