"""'🗑 Delete from everyone' (two confirmations) and '✏️ Edit everywhere' from a job's view, through the webhook."""
import time

import pytest

from app.models.broadcast import KIND_EDIT, KIND_UNSEND
from app.services import audit
from app.services.broadcast.jobs import creation
from app.services.broadcast.sending.drain import pump
from app.simulator.updates import message_update
from app.texts import t
from tests.bot.test_history import trail, view_of
from tests.bot.wizard import all_jobs, buttons, last_answer, press, send, step_of, tap, texts_to
from tests.broadcast.helpers import engine_settings
from tests.conftest import ADMIN_ID
from tests.factories import create_user, post_update

pytestmark = pytest.mark.usefixtures("fast_telegram")
USERS = (7101, 7102, 7103)


def finished_job(simulator, **kw) -> int:
    """Run a text broadcast by the admin to three users; return its id."""
    for user_id in USERS:
        create_user(user_id)
    content = kw.pop("content", {"type": "text", "text": "خبر 🎉"})
    job = creation.create_job(audience="all", created_by=ADMIN_ID, content=content,
                              settings=engine_settings(), actor=audit.admin_actor(ADMIN_ID), **kw)
    assert pump(job.id, 10, settings=engine_settings()).stop == "done"
    return job.id


def left(simulator) -> dict[int, str]:
    """Return {user: text} of the broadcast copies still in the users' chats."""
    return {m["chat_id"]: m["text"] for m in simulator.bot_messages() if m["chat_id"] in USERS}


def test_unsend_needs_two_confirmations_and_deletes_every_copy(client, simulator):
    job_id = finished_job(simulator)
    tap(client, simulator, f"j.view:{job_id}")
    view = view_of(simulator, job_id)
    assert buttons(view) == [f"j.unsend:{job_id}", f"j.edit:{job_id}", f"j.pin:{job_id}", f"j.exp:{job_id}",
                             f"j.chart:{job_id}", f"j.export:{job_id}", "j.list"]

    press(client, simulator, "j.unsend", under=view)
    first = simulator.deliveries("sendMessage", ADMIN_ID)[-1]
    assert first["text"] == t("unsend_confirm1", id=job_id, total=3) and step_of() == "act:unsend1"
    press(client, simulator, "a.yes", under=first)
    second = simulator.deliveries("sendMessage", ADMIN_ID)[-1]
    assert second["text"] == t("unsend_confirm2", id=job_id)
    assert len(left(simulator)) == 3  # nothing deleted after one confirmation
    # The first question's button is stale now: pressing it again does nothing.
    press(client, simulator, "a.yes", under=first)
    assert last_answer(simulator)["text"] == t("wiz_stale") and len(all_jobs()) == 1
    press(client, simulator, "a.yes", under=second)
    [_, unsend] = all_jobs()
    assert (unsend.kind, unsend.source_job_id, unsend.status, unsend.sent_count) == (KIND_UNSEND, job_id,
                                                                                      "completed", 3)
    assert left(simulator) == {}
    assert t("act_started_unsend", id=unsend.id, source=job_id, total=3) in texts_to(simulator)
    assert trail(job_id)[-1] == (f"admin:{ADMIN_ID}", "unsent")
    press(client, simulator, "a.yes", under=second)  # a double tap creates nothing more
    assert len(all_jobs()) == 2


def test_unsend_aborted_or_too_old_changes_nothing(client, simulator):
    from datetime import timedelta

    from sqlalchemy import update

    from app.clock import utcnow
    from app.extensions import db
    from app.models import BroadcastJobItem

    job_id = finished_job(simulator)
    tap(client, simulator, f"j.view:{job_id}")
    press(client, simulator, "j.unsend", under=view_of(simulator, job_id))
    press(client, simulator, "a.no")
    assert step_of() is None and texts_to(simulator)[-1] == t("act_aborted")
    db.session.execute(update(BroadcastJobItem).values(sent_at=utcnow() - timedelta(hours=49)))
    db.session.commit()
    press(client, simulator, "j.unsend", under=view_of(simulator, job_id))
    assert last_answer(simulator)["text"] == t("act_too_old", id=job_id) and len(all_jobs()) == 1
    assert len(left(simulator)) == 3


def test_edit_everywhere_takes_the_new_text_and_changes_every_copy(client, simulator):
    job_id = finished_job(simulator, button_text="سایت", button_url="https://example.com/")
    tap(client, simulator, f"j.view:{job_id}")
    press(client, simulator, "j.edit", under=view_of(simulator, job_id))
    assert texts_to(simulator)[-1] == t("edit_ask_text", id=job_id, limit=4096)
    send(client, simulator, "خبر تازه ✏️")
    assert texts_to(simulator)[-1] == t("edit_confirm", id=job_id, text="خبر تازه ✏️")
    assert set(left(simulator).values()) == {"خبر 🎉"}
    press(client, simulator, "a.yes")
    [_, edit] = all_jobs()
    assert (edit.kind, edit.status, edit.sent_count) == (KIND_EDIT, "completed", 3)
    assert set(left(simulator).values()) == {"خبر تازه ✏️"}
    assert {m["reply_markup"]["inline_keyboard"][0][0]["url"] for m in simulator.bot_messages()
            if m["chat_id"] in USERS} == {"https://example.com/"}
    assert trail(job_id)[-1] == (f"admin:{ADMIN_ID}", "edited")


def view_buttons(client, simulator, job_id: int) -> list[str]:
    """Open a job's view and return its buttons."""
    tap(client, simulator, f"j.view:{job_id}")
    return buttons(simulator.deliveries("sendMessage", ADMIN_ID)[-1])


def test_the_view_offers_only_the_actions_that_would_act(client, simulator):
    from datetime import timedelta

    from sqlalchemy import update

    from app.clock import utcnow
    from app.extensions import db
    from app.models import BroadcastJobItem

    job_id = finished_job(simulator)
    db.session.execute(update(BroadcastJobItem).values(sent_at=utcnow() - timedelta(hours=49)))
    db.session.commit()
    # Past 48 hours: Telegram would refuse every delete, so no unsend; an edit still works.
    assert view_buttons(client, simulator, job_id) == [f"j.edit:{job_id}", f"j.pin:{job_id}", f"j.exp:{job_id}",
                                                       f"j.chart:{job_id}", f"j.export:{job_id}", "j.list"]
    db.session.execute(update(BroadcastJobItem).values(sent_at=utcnow()))
    db.session.commit()
    assert f"j.unsend:{job_id}" in view_buttons(client, simulator, job_id)
    press(client, simulator, "j.unsend", under=view_of(simulator, job_id))
    press(client, simulator, "a.yes")
    press(client, simulator, "a.yes")
    [_, unsend] = all_jobs()
    assert left(simulator) == {}
    # Every copy is deleted: neither a second unsend nor an edit would act on anything.
    # (an auto-delete can still be set: it would find nothing and end at its first pass)
    assert view_buttons(client, simulator, job_id) == [f"j.exp:{job_id}", f"j.chart:{job_id}", f"j.export:{job_id}",
                                                       "j.list"]
    # The unsend job is shown as what it is: deletions, not a broadcast that "sent" 3.
    shown = simulator.deliveries("sendMessage", ADMIN_ID)
    view_buttons(client, simulator, unsend.id)
    text = simulator.deliveries("sendMessage", ADMIN_ID)[-1]["text"]
    assert len(simulator.deliveries("sendMessage", ADMIN_ID)) == len(shown) + 1
    assert text.startswith(t("action_title_unsend", id=unsend.id, source=job_id))
    assert "🗑 حذف‌شده: 3" in text and "✅ ارسال‌شده" not in text and "📢" not in text
    tap(client, simulator, "j.list")
    rows = [b["text"] for row in simulator.deliveries("sendMessage", ADMIN_ID)[-1]["reply_markup"]["inline_keyboard"]
            for b in row]
    assert rows[:2] == [t("job_row_unsend", id=unsend.id, source=job_id, status=t("status_completed"), done=3,
                          total=3),
                        t("job_row_send", id=job_id, status=t("status_completed"), done=3, total=3)]


def test_unsend_from_the_bot_is_refused_with_the_reason_while_a_retry_runs(client, simulator):
    from app.services.broadcast.actions import retry

    for user_id in USERS:
        create_user(user_id)
    simulator.state.set_chats("refuse", [USERS[0]])
    job = creation.create_job(audience="all", created_by=ADMIN_ID, content={"type": "text", "text": "خبر"},
                              settings=engine_settings())
    assert pump(job.id, 10, settings=engine_settings()).stop == "done"
    simulator.state.set_chats("restore", [USERS[0]])
    again = retry.retry_job(job.id, settings=engine_settings())  # queued, not yet pumped
    tap(client, simulator, f"j.view:{job.id}")
    view = view_of(simulator, job.id)
    assert f"j.unsend:{job.id}" not in buttons(view)  # not offered while the retry is open
    tap(client, simulator, f"j.unsend:{job.id}", message_id=view["message_id"])  # an old view's button
    assert last_answer(simulator)["text"] == t("act_retry_busy", id=job.id, retry=again.id)
    assert len(all_jobs()) == 2


def ask_edit(client, simulator, job_id: int) -> None:
    """Open the job's view and press '✏️ Edit everywhere'."""
    tap(client, simulator, f"j.view:{job_id}")
    press(client, simulator, "j.edit", under=view_of(simulator, job_id))


def shown_to_admin(simulator) -> list[str]:
    """Return the admin's messages as Telegram shows them (after parsing their HTML), oldest first."""
    return [m["text"] for m in simulator.bot_messages(ADMIN_ID)]


def test_edit_confirmation_shows_the_new_text_rendered_above_the_question(client, simulator):
    job_id = finished_job(simulator, button_text="سایت", button_url="https://example.com/")
    ask_edit(client, simulator, job_id)
    update = message_update(ADMIN_ID, "نو & تازه")
    update["message"]["entities"] = [{"type": "bold", "offset": 0, "length": 2}]
    assert post_update(client, update, sim=simulator).status_code == 200
    *_, preview, question = simulator.deliveries("sendMessage", ADMIN_ID)
    assert (preview["text"], preview["parse_mode"]) == ("<b>نو</b> &amp; تازه", "HTML")
    assert preview["reply_markup"]["inline_keyboard"][0][0]["url"] == "https://example.com/"
    assert question["text"] == t("edit_confirm", id=job_id) and buttons(question)[0].startswith("a.yes:")
    assert shown_to_admin(simulator)[-2] == "نو & تازه"  # no raw <b> or &amp; on the admin's screen
    press(client, simulator, "a.yes", under=question)
    assert set(left(simulator).values()) == {"نو & تازه"}


def test_a_new_text_near_the_limit_is_answered_never_dropped(client, simulator):
    job_id = finished_job(simulator)
    ask_edit(client, simulator, job_id)
    send(client, simulator, "ب" * 4097)
    assert texts_to(simulator)[-1] == t("edit_too_long", length=4097, limit=4096)
    send(client, simulator, "ب" * 4070)  # the question and the text together would not fit one message
    assert texts_to(simulator)[-2:] == ["ب" * 4070, t("edit_confirm", id=job_id)]


def test_a_caption_is_measured_as_telegram_shows_it_by_the_bot_and_the_service_alike(client, simulator):
    from app.services.broadcast.actions import unsend_edit

    photo = simulator.add_message(ADMIN_ID, caption="قدیم", photo=True)
    job_id = finished_job(simulator, content={"type": "copy", "from_chat_id": ADMIN_ID, "message_id": photo})
    over = "&" + "x" * 1024  # 1025 units once "&amp;" is parsed back to "&"
    ask_edit(client, simulator, job_id)
    assert texts_to(simulator)[-1] == t("edit_ask_caption", id=job_id, limit=1024)
    send(client, simulator, photo=True, caption=over)
    assert texts_to(simulator)[-1] == t("edit_too_long", length=1025, limit=1024)
    with pytest.raises(ValueError, match="1025 characters.*at most 1024"):  # the service says the same
        unsend_edit.edit_job(job_id, "&amp;" + "x" * 1024, settings=engine_settings())

    send(client, simulator, photo=True, caption=over[:-1])  # exactly 1024 visible units
    assert texts_to(simulator)[-2:] == ["&amp;" + "x" * 1023, t("edit_confirm", id=job_id)]
    press(client, simulator, "a.yes")
    [_, edit] = all_jobs()
    assert (edit.kind, edit.status, edit.sent_count) == (KIND_EDIT, "completed", 3)
    assert {m["caption"] for m in simulator.bot_messages() if m["chat_id"] in USERS} == {over[:-1]}


def test_a_personal_edit_shows_the_admin_their_own_name_and_allows_for_names(client, simulator):
    job_id = finished_job(simulator)
    ask_edit(client, simulator, job_id)
    # {first_name} is measured as the 5-unit fallback name: 4096 - 5 units of text around it fit.
    fits = "{first_name} " + "ب" * 4090
    send(client, simulator, fits + "ب", first_name="مدیر")
    assert texts_to(simulator)[-1] == t("edit_too_long", length=4097, limit=4096)
    send(client, simulator, fits, first_name="مدیر")
    *_, sample, question = simulator.deliveries("sendMessage", ADMIN_ID)
    assert (sample["text"], sample["parse_mode"]) == ("مدیر " + "ب" * 4090, "HTML")
    assert question["text"] == t("edit_confirm_personal", id=job_id)


def test_unsend_from_the_bot_names_the_copies_it_cannot_reach_before_and_after_the_yes(
        client, simulator, monkeypatch):
    from datetime import timedelta

    from app.services.broadcast.sending import landing

    monkeypatch.setattr(landing, "LANDING_WINDOW", timedelta(seconds=1))
    simulator.lose(USERS[0])  # delivered, answered 502: no message id
    job_id = finished_job(simulator)
    time.sleep(1.2)  # past the (shortened) window: the lost copy can no longer be recorded
    tap(client, simulator, f"j.view:{job_id}")
    view = view_of(simulator, job_id)
    press(client, simulator, "j.unsend", under=view)
    first = simulator.deliveries("sendMessage", ADMIN_ID)[-1]
    note = t("act_unreachable", n=1)
    assert first["text"] == t("unsend_confirm1", id=job_id, total=2) + note
    press(client, simulator, "a.yes", under=first)
    second = simulator.deliveries("sendMessage", ADMIN_ID)[-1]
    assert second["text"] == t("unsend_confirm2", id=job_id)
    press(client, simulator, "a.yes", under=second)
    [_, unsend] = all_jobs()
    assert t("act_started_unsend", id=unsend.id, source=job_id, total=2) + note in texts_to(simulator)
    assert set(left(simulator)) == {USERS[0]}  # the unknown copy did arrive, and nothing can reach it
