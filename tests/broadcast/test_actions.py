"""Unsend and edit everywhere: action jobs over a finished broadcast's ledger, run by the pump (simulated Telegram)."""
from __future__ import annotations

import time
from datetime import timedelta

import pytest
from sqlalchemy import func, select, update

from app.clock import utcnow
from app.extensions import db
from app.models import BroadcastJob, BroadcastJobItem
from app.models.broadcast import COMPLETED, KIND_EDIT, KIND_UNSEND
from app.services import audit
from app.services.broadcast.actions import retry, unsend_edit
from app.services.broadcast.jobs import control, creation
from app.services.broadcast.jobs.status import job_status
from app.services.broadcast.reporting.progress import summary_text
from app.services.broadcast.sending.drain import pump
from tests.broadcast.helpers import (
    assert_consistent,
    create_text_job,
    create_users,
    engine_settings,
    recorder_for,
    reload,
)

I = BroadcastJobItem  # noqa: E741


def copies(simulator, users) -> dict[int, dict]:
    """Return {chat: the bot's newest message there} for the given users' chats that still hold one."""
    wanted = set(users)
    return {m["chat_id"]: m for m in simulator.bot_messages() if m["chat_id"] in wanted}


def run(job_id: int, settings: dict) -> None:
    """Pump the job until it completes (a few calls at most)."""
    for _ in range(5):
        if pump(job_id, 60, settings=settings).stop == "done":
            return
    raise AssertionError(f"job {job_id} did not complete: {reload(job_id).status}")


def sent_job(simulator, n: int, settings: dict, **kw):
    """Send a text broadcast to n new users; return (users, job id)."""
    users = create_users(n)
    job = create_text_job(settings=settings, **kw)
    run(job.id, settings)
    assert len(copies(simulator, users)) == n
    return users, job.id


def counters(job_id: int) -> dict:
    """Return the job's counters by name."""
    s = job_status(reload(job_id))
    db.session.commit()
    return {k: getattr(s, k) for k in ("total", "sent", "gone", "too_old", "skipped", "failed", "unknown", "pending")}


@pytest.mark.slow  # 300 sends and 300 deletes at the cap: handed out first in the parallel phase
def test_unsend_of_a_300_user_job_deletes_every_delivered_copy(app, simulator, capsys):
    settings = engine_settings()
    users, source = sent_job(simulator, 300, settings)
    started = time.monotonic()
    job = unsend_edit.unsend_job(source, actor=audit.ACTOR_CLI, settings=settings)
    assert (job.kind, job.source_job_id, job.total_count) == (KIND_UNSEND, source, 300)
    run(job.id, settings)
    seconds = time.monotonic() - started
    assert copies(simulator, users) == {}  # the simulator's record: none left
    assert counters(job.id) == dict(total=300, sent=300, gone=0, too_old=0, skipped=0, failed=0, unknown=0, pending=0)
    assert reload(job.id).status == COMPLETED
    assert simulator.stats()["calls"]["deleteMessage"] == 300  # each copy deleted once
    # Each item keeps the id of the copy it deleted: the source's.
    rows = db.session.execute(select(I.user_id, I.message_id, I.job_id).where(I.job_id.in_((source, job.id)))).all()
    db.session.commit()
    by_job = {j: {u: m for u, m, jj in rows if jj == j} for j in (source, job.id)}
    assert by_job[source] == by_job[job.id]
    assert [e["action"] for e in audit.entries(source)][-1] == audit.UNSENT
    assert [e["action"] for e in audit.entries(job.id)][0] == audit.UNSENT
    with capsys.disabled():
        print(f"\nunsend of 300 copies: {seconds:.1f} s, {300 / seconds:.1f} deletes/s")


def test_unsend_counts_copies_already_gone_honestly(app, simulator):
    settings = engine_settings()
    users, source = sent_job(simulator, 5, settings)
    gone = copies(simulator, users)[users[0]]
    simulator.delete_message_source(users[0], gone["message_id"])  # the user deleted it themselves
    first = unsend_edit.unsend_job(source, settings=settings)
    run(first.id, settings)
    assert counters(first.id) == dict(total=5, sent=4, gone=1, too_old=0, skipped=0, failed=0, unknown=0, pending=0)
    summary = summary_text(job_status(reload(first.id)), "fa")
    assert "از قبل حذف شده بود: 1" in summary and f"#{source}" in summary
    # Nothing is left to act on: a second unsend, or an edit, is refused and makes no job.
    jobs_before = db.session.execute(select(func.count()).select_from(BroadcastJob)).scalar()
    for act in (lambda: unsend_edit.unsend_job(source, settings=settings),
                lambda: unsend_edit.edit_job(source, "new text", settings=settings)):
        with pytest.raises(unsend_edit.NotActionable, match=f"already deleted \\(job {first.id}\\)"):
            act()
    assert db.session.execute(select(func.count()).select_from(BroadcastJob)).scalar() == jobs_before


def test_copies_older_than_48_hours_are_counted_too_old_and_stay(app, simulator):
    settings = engine_settings()
    users, source = sent_job(simulator, 4, settings)
    simulator.configure(message_age_offset=49 * 3600)  # Telegram's clock 49 h later
    job = unsend_edit.unsend_job(source, settings=settings)
    run(job.id, settings)
    assert counters(job.id) == dict(total=4, sent=0, gone=0, too_old=4, skipped=0, failed=0, unknown=0, pending=0)
    assert len(copies(simulator, users)) == 4
    assert "Older than 48 h (cannot delete): 4" in summary_text(job_status(reload(job.id)), "en")


def test_unsend_is_refused_while_the_source_runs_and_after_48_hours(app, simulator):
    settings = engine_settings()
    create_users(3)
    running = create_text_job(settings=settings)
    assert reload(running.id).status == "running"
    with pytest.raises(unsend_edit.NotActionable, match="only a completed or cancelled job"):
        unsend_edit.unsend_job(running.id, settings=settings)
    run(running.id, settings)
    db.session.execute(update(I).where(I.job_id == running.id).values(sent_at=utcnow() - timedelta(hours=49)))
    db.session.commit()
    with pytest.raises(unsend_edit.NotActionable, match="older than 48 hours"):
        unsend_edit.unsend_job(running.id, settings=settings)
    unsend_edit.edit_job(running.id, "still editable", settings=settings)  # edits have no 48 h limit
    with pytest.raises(unsend_edit.NotActionable, match="no broadcast job"):
        unsend_edit.unsend_job(999_999, settings=settings)


def test_an_action_job_is_neither_unsent_nor_retried_as_a_send(app, simulator):
    settings = engine_settings()
    _, source = sent_job(simulator, 2, settings)
    job = unsend_edit.unsend_job(source, settings=settings)
    run(job.id, settings)
    with pytest.raises(unsend_edit.NotActionable, match="itself an unsend job"):
        unsend_edit.unsend_job(job.id, settings=settings)
    with pytest.raises(retry.NotRetryable):
        retry.retry_job(job.id, settings=settings)


def test_edit_changes_every_text_copy_and_keeps_the_button(app, simulator):
    settings = engine_settings()
    users, source = sent_job(simulator, 20, settings, button_text="سایت", button_url="https://example.com/a")
    job = unsend_edit.edit_job(source, "<b>متن تازه</b> ✏️", actor=audit.ACTOR_CLI, settings=settings)
    assert job.kind == KIND_EDIT
    run(job.id, settings)
    now = copies(simulator, users)
    assert {m["text"] for m in now.values()} == {"متن تازه ✏️"} and len(now) == 20
    assert {m["reply_markup"]["inline_keyboard"][0][0]["url"] for m in now.values()} == {"https://example.com/a"}
    assert counters(job.id)["sent"] == 20
    again = unsend_edit.edit_job(source, "<b>متن تازه</b> ✏️", settings=settings)  # not modified: already so
    run(again.id, settings)
    assert counters(again.id) == dict(total=20, sent=20, gone=0, too_old=0, skipped=0, failed=0, unknown=0, pending=0)
    assert_consistent(again.id)


def test_edit_of_copies_edits_text_or_caption_as_the_source_had(app, simulator):
    settings = engine_settings()
    users = create_users(3)
    for field, source_message in (("text", simulator.add_message(1001, text="t")),
                                  ("caption", simulator.add_message(1001, caption="c", photo=True))):
        source = creation.create_job(audience="all", created_by=1001, settings=settings,
                                     content={"type": "copy", "from_chat_id": 1001, "message_id": source_message})
        run(source.id, settings)
        job = unsend_edit.edit_job(source.id, f"تازه {field}", settings=settings)
        run(job.id, settings)
        assert counters(job.id)["sent"] == 3
        rows = db.session.execute(select(I.user_id, I.message_id).where(I.job_id == source.id)).all()
        db.session.commit()
        msgs = {(m["chat_id"], m["message_id"]): m for m in simulator.bot_messages()}
        assert {msgs[(u, m)][field] for u, m in rows} == {f"تازه {field}"}
        assert {u for u, _ in rows} == set(users)


def test_album_unsend_deletes_every_part_and_edit_changes_the_first_caption(app, simulator):
    settings = engine_settings()
    users = create_users(3)
    parts = [simulator.add_message(1001, caption="یک", photo=True), simulator.add_message(1001, photo=True)]
    source = creation.create_job(audience="all", created_by=1001, settings=settings,
                                 content={"type": "album", "from_chat_id": 1001, "message_ids": parts})
    run(source.id, settings)
    assert len(simulator.bot_messages(users[0])) == 2
    edit = unsend_edit.edit_job(source.id, "عنوان تازه", settings=settings)
    run(edit.id, settings)
    assert [m["caption"] for m in simulator.bot_messages(users[1])] == ["عنوان تازه", None]
    unsend = unsend_edit.unsend_job(source.id, settings=settings)
    run(unsend.id, settings)
    assert copies(simulator, users) == {}
    assert counters(unsend.id)["sent"] == 3 and simulator.stats()["calls"]["deleteMessages"] == 3


def test_edit_text_is_checked_like_the_wizard(app, simulator):
    settings = engine_settings()
    _, source = sent_job(simulator, 1, settings)
    with pytest.raises(ValueError, match="empty"):
        unsend_edit.edit_job(source, "   ", settings=settings)
    with pytest.raises(ValueError, match="4097 characters as Telegram counts them.*at most 4096"):
        unsend_edit.edit_job(source, "x" * 4097, settings=settings)


def test_an_unsend_job_pauses_resumes_and_cancels_like_a_send(app, simulator):
    settings = engine_settings()
    users, source = sent_job(simulator, 6, settings)
    job = unsend_edit.unsend_job(source, settings=settings)
    assert control.pause_job(job.id, actor=audit.ACTOR_CLI)
    assert pump(job.id, 5, settings=settings).stop == "not_running"
    assert len(copies(simulator, users)) == 6  # paused: nothing deleted
    assert control.resume_job(job.id) == "running"
    run(job.id, settings)
    assert copies(simulator, users) == {}
    everyone = users + create_users(4, start=users[-1] + 1)
    second = create_text_job(settings=settings).id
    run(second, settings)
    cancelled = unsend_edit.unsend_job(second, settings=settings)
    assert control.cancel_job(cancelled.id)
    assert pump(cancelled.id, 5, settings=settings).stop == "not_running"
    assert counters(cancelled.id)["gone"] == 0 and job_status(reload(cancelled.id)).not_sent == 10
    # The cancelled unsend deleted nothing: a new one covers every copy.
    again = unsend_edit.unsend_job(second, settings=settings)
    assert reload(again.id).total_count == 10
    run(again.id, settings)
    assert copies(simulator, everyone) == {}


def test_classify_action_maps_telegrams_answers_to_honest_outcomes():
    from app.services.broadcast.sending import outcomes as oc
    from app.telegram.errors import BadRequest, Forbidden, UnknownOutcome

    assert oc.classify_action(BadRequest("deleteMessage", "Bad Request: message to delete not found")).kind == oc.GONE
    assert oc.classify_action(BadRequest("deleteMessage", "Bad Request: message to edit not found")).kind == oc.GONE
    assert oc.classify_action(BadRequest("deleteMessage", "Bad Request: message can't be deleted")).kind == oc.TOO_OLD
    assert oc.classify_action(BadRequest("deleteMessage", "Bad Request: message is not modified: same")).kind == oc.SENT
    # An unknown outcome is safe to repeat: back to pending, done again later.
    assert oc.classify_action(UnknownOutcome("deleteMessage", "timed out")).kind.status is None
    assert oc.classify_action(Forbidden("deleteMessage", "Forbidden: bot was blocked by the user")).kind == oc.SKIPPED
    assert oc.classify_action(BadRequest("deleteMessage", "Bad Request: something else")).kind == oc.FAILED


def album_source(simulator, settings: dict, skip: tuple[tuple[int, int], ...] = ()) -> int:
    """Send an album of 3 to every user, then a text; return the album's job (skip: (chat, part) not copied)."""
    parts = [simulator.add_message(1001, caption="سه", photo=True)] + [
        simulator.add_message(1001, photo=True) for _ in range(2)]
    simulator.configure(copy_skip=[(chat, parts[i]) for chat, i in skip])
    source = creation.create_job(audience="all", created_by=1001, settings=settings,
                                 content={"type": "album", "from_chat_id": 1001, "message_ids": parts})
    run(source.id, settings)
    # An unrelated message follows the album in every chat.
    later = create_text_job(settings=settings, text="خبر دیگر")
    run(later.id, settings)
    return source.id


def chats(simulator, users) -> dict[int, list[tuple[int, str | None]]]:
    """Return {user: [(message id, text or caption)]} of the bot's messages left in each chat."""
    return {u: [(m["message_id"], m["text"] or m["caption"]) for m in simulator.bot_messages(u)] for u in users}


def test_album_unsend_deletes_exactly_the_parts_delivered_never_the_next_message(app, simulator):
    simulator.configure(per_chat_limits=False)
    settings = engine_settings()
    users = create_users(3)
    short = users[1]
    source = album_source(simulator, settings, skip=((short, 1),))  # the middle part never reached her
    assert chats(simulator, users) == {**{u: [(1, "سه"), (2, None), (3, None), (4, "خبر دیگر")] for u in users},
                                       short: [(1, "سه"), (2, None), (3, "خبر دیگر")]}
    edit = unsend_edit.edit_job(source, "عنوان تازه", settings=settings)
    run(edit.id, settings)
    assert chats(simulator, [short]) == {short: [(1, "عنوان تازه"), (2, None), (3, "خبر دیگر")]}
    unsend = unsend_edit.unsend_job(source, settings=settings)
    run(unsend.id, settings)
    assert chats(simulator, users) == {**{u: [(4, "خبر دیگر")] for u in users}, short: [(3, "خبر دیگر")]}
    assert [(a["message_ids"], a["result"]) for a in simulator.delete_attempts(short)] == [([1, 2], "deleted")]
    assert counters(unsend.id) == dict(total=3, sent=3, gone=0, too_old=0, skipped=0, failed=0, unknown=0, pending=0)


def test_an_album_recorded_without_part_ids_unsends_only_its_first_part(app, simulator):
    simulator.configure(per_chat_limits=False)
    settings = engine_settings()
    users = create_users(2)
    source = album_source(simulator, settings)
    # Sent before each part's copy was recorded: only the first part's id is known.
    db.session.execute(update(I).where(I.job_id == source).values(message_ids=None))
    db.session.commit()
    unsend = unsend_edit.unsend_job(source, settings=settings)
    run(unsend.id, settings)
    assert chats(simulator, users) == {u: [(2, None), (3, None), (4, "خبر دیگر")] for u in users}
    assert [a["message_ids"] for a in simulator.delete_attempts()] == [[1], [1]]
    assert counters(unsend.id) == dict(total=2, sent=2, gone=0, too_old=0, skipped=0, failed=0, unknown=0, pending=0)


def test_a_sent_item_without_a_message_id_is_left_out_of_an_unsend(app, simulator):
    settings = engine_settings()
    users, source = sent_job(simulator, 3, settings)
    # Sent before message ids were recorded: nothing proves which message is its copy.
    db.session.execute(update(I).where(I.job_id == source, I.user_id == users[1]).values(message_id=None))
    db.session.commit()
    job = unsend_edit.unsend_job(source, settings=settings)
    rows = db.session.execute(select(I.user_id, I.status, I.message_id).where(I.job_id == job.id)
                              .order_by(I.id)).all()
    db.session.commit()
    assert [tuple(r) for r in rows] == [(users[0], "pending", 1), (users[2], "pending", 1)]
    run(job.id, settings)
    assert counters(job.id) == dict(total=2, sent=2, gone=0, too_old=0, skipped=0, failed=0, unknown=0, pending=0)
    # Sent side by side: in whichever order they arrive, exactly these two deletes, never one with no id.
    assert sorted((a["chat_id"], a["message_ids"]) for a in simulator.delete_attempts()) == [(users[0], [1]),
                                                                                            (users[2], [1])]
    assert simulator.stats()["calls"]["deleteMessage"] == 2
    assert set(copies(simulator, users)) == {users[1]}


def test_a_replayed_action_plan_changes_no_row_and_no_counter(app, simulator):
    from app.services.broadcast.sending import outcomes
    from app.services.broadcast.sending.pump import Pump
    from app.services.telegram_factory import get_client, new_outbox

    settings = engine_settings()
    _, source = sent_job(simulator, 2, settings)
    job = unsend_edit.unsend_job(source, settings=settings)
    client = get_client(settings)
    p = Pump(job.id, 30, settings, client, new_outbox(client), time.monotonic, time.sleep)
    assert p.lease.acquire()
    recorder = recorder_for(p, reload(job.id), window=2)
    batch = recorder.step([], 2, 0).claimed
    done = [(c.item_id, c.user_id, outcomes.OK) for c in batch]
    recorder.step(done, 0, 2)
    assert counters(job.id)["sent"] == 2
    # The same outcomes written again (a commit whose answer was lost): the status guard matches nothing.
    recorder.step(done, 0, 0)
    assert counters(job.id) == dict(total=2, sent=2, gone=0, too_old=0, skipped=0, failed=0, unknown=0, pending=0)
    assert assert_consistent(job.id) == {"sent": 2}
    p.lease.release()


def test_an_album_edit_with_first_name_greets_each_recipient_in_the_caption(app, simulator):
    simulator.configure(per_chat_limits=False)
    settings = engine_settings()
    users = create_users(2)
    source = album_source(simulator, settings)
    edit = unsend_edit.edit_job(source, "برای <b>{first_name}</b>", settings=settings)
    run(edit.id, settings)
    assert {u: chats(simulator, [u])[u][0] for u in users} == {u: (1, f"برای کاربر {u} 🎉") for u in users}
    assert counters(edit.id)["sent"] == 2
