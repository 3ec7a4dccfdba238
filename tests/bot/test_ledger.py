"""Retry and export from a job's view and its summary, through the webhook and the simulator."""
import base64
import csv
import io
from datetime import timedelta

import pytest
from sqlalchemy import select, update

from app.clock import utcnow
from app.extensions import db
from app.models import BroadcastJob, BroadcastJobItem
from app.services import audit
from app.services.broadcast.jobs import control, creation
from app.services.broadcast.jobs import purge as jobs_purge
from app.services.broadcast.reporting import export
from app.services.broadcast.sending.drain import pump
from app.texts import t
from tests.bot.test_history import trail, view_of
from tests.bot.wizard import all_jobs, buttons, last_answer, offered, press, tap, texts_to
from tests.broadcast.helpers import engine_settings, reload
from tests.conftest import ADMIN_ID
from tests.factories import create_user

pytestmark = pytest.mark.usefixtures("fast_telegram")
OK, REFUSED, BLOCKED, LOST = 7001, 7002, 7003, 7004


def copies_to(simulator, chat_id: int) -> int:
    """Count the broadcast copies a recipient got."""
    return len(simulator.deliveries("sendMessage", chat_id))


def finished_job_with_failures(simulator) -> int:
    """Run a job by the admin where one message is refused, one user blocked the bot, one outcome is lost."""
    for user_id, name in ((OK, "علی"), (REFUSED, "sara"), (BLOCKED, None), (LOST, "رضا")):
        create_user(user_id, username=name)
    simulator.state.set_chats("refuse", [REFUSED])
    simulator.state.set_chats("block", [BLOCKED])
    simulator.state.set_chats("lose", [LOST])
    job = creation.create_job(audience="all", created_by=ADMIN_ID, content={"type": "text", "text": "خبر 🎉"},
                              settings=engine_settings(), actor=audit.admin_actor(ADMIN_ID))
    assert pump(job.id, 10, settings=engine_settings()).stop == "done"
    simulator.state.set_chats("restore", [REFUSED, LOST])
    return job.id


def test_retry_from_the_view_reaches_only_the_failed_and_the_summary_offers_it(client, simulator):
    job_id = finished_job_with_failures(simulator)
    [summary] = [d for d in simulator.deliveries("sendMessage", ADMIN_ID)]
    assert buttons(summary) == [f"j.retry:{job_id}", f"j.retry_u:{job_id}"]

    tap(client, simulator, f"j.view:{job_id}")
    view = view_of(simulator, job_id)
    assert buttons(view) == [f"j.retry:{job_id}", f"j.retry_u:{job_id}", f"j.unsend:{job_id}", f"j.edit:{job_id}",
                             f"j.pin:{job_id}", f"j.exp:{job_id}", f"j.chart:{job_id}", f"j.export:{job_id}",
                             "j.list"]
    assert view["text"].endswith("\n\n" + t("retry_unknown_warning", n=1))
    # The lost copy may still land: unsend is offered, and a tap says how long to wait.
    press(client, simulator, "j.unsend", under=view)
    waiting = last_answer(simulator)["text"]
    assert waiting.startswith(t("act_landing", n=1, id=job_id, s=60).split("؛")[0]), waiting

    press(client, simulator, "j.retry", under=view)
    assert len(all_jobs()) == 1  # the retry's pre-send screen first
    screen = offered(simulator, "r.ok")
    assert t("retry_who_failed", n=1) in screen["text"] and t("retry_who_unknown", n=1) not in screen["text"]
    press(client, simulator, "r.ok", under=screen)
    [_, new] = all_jobs()
    assert t("cb_retried", id=new.id, total=1) in texts_to(simulator)
    assert (new.retry_of, new.status, new.created_by, new.progress_chat_id) == (job_id, "completed", ADMIN_ID,
                                                                                 ADMIN_ID)
    assert {u: copies_to(simulator, u) for u in (OK, REFUSED, BLOCKED, LOST)} == {OK: 1, REFUSED: 1, BLOCKED: 0,
                                                                                  LOST: 1}
    # Unknown ones only when asked for, under the warning: the lost user gets a second copy.
    press(client, simulator, "j.retry_u", under=view)
    screen = offered(simulator, "r.ok")
    assert t("retry_who_unknown", n=1) in screen["text"] and t("retry_unknown_warning", n=1) in screen["text"]
    press(client, simulator, "r.ok", under=screen)
    assert copies_to(simulator, LOST) == 2 and copies_to(simulator, REFUSED) == 1
    press(client, simulator, "j.retry_u", under=view)
    assert last_answer(simulator)["text"] == t("cb_retry_nothing")
    assert trail(job_id)[-2:] == [(f"admin:{ADMIN_ID}", "retried")] * 2
    # The view now offers no retry: everyone it could reach was reached.
    tap(client, simulator, f"j.view:{job_id}")
    assert not {f"j.retry:{job_id}", f"j.retry_u:{job_id}"} & set(buttons(view_of(simulator, job_id)))


def test_export_sends_the_ledger_as_a_csv_document(client, simulator, monkeypatch):
    job_id = finished_job_with_failures(simulator)
    monkeypatch.setattr(export, "PAGE_ROWS", 3)
    tap(client, simulator, f"j.view:{job_id}")
    press(client, simulator, "j.export", under=view_of(simulator, job_id))
    assert last_answer(simulator)["text"] == t("cb_exporting")
    [document] = simulator.deliveries("sendDocument", ADMIN_ID)
    got = base64.b64decode(document["document_base64"])
    assert got == b"".join(chunk for chunk, _ in export.csv_chunks(job_id, page_rows=1000))
    lines = got.decode("utf-8-sig").splitlines()
    ids = dict(db.session.execute(select(BroadcastJobItem.user_id, BroadcastJobItem.message_id)
                                  .where(BroadcastJobItem.job_id == job_id)).all())
    db.session.commit()
    assert lines[0] == "user_id,username,status,error,time,message_id,clicked_at,source" and len(lines) == 5
    assert lines[1].startswith(f"{OK},علی,sent,,") and lines[1].endswith(f",{ids[OK]},,")  # not clicked, no source
    assert ids[OK] == simulator.deliveries("sendMessage", OK)[0]["message_id"]
    assert lines[2].startswith(f"{REFUSED},sara,failed,Bad Request: message refused by the simulator,,")
    assert lines[3].startswith(f"{BLOCKED},,skipped,Forbidden: bot was blocked by the user,,")
    assert (document["document_name"], document["caption"]) == (f"broadcast-{job_id}-ledger.csv",
                                                                t("export_caption", id=job_id, rows=4))
    assert trail(job_id)[-1] == (f"admin:{ADMIN_ID}", "exported")


def test_export_cells_that_start_like_formulas_reach_the_admin_as_text(client, simulator):
    names = {7101: "=HYPERLINK(\"http://x\")", 7102: "+98912", 7103: "-1", 7104: "@me", 7105: "a,\"b\"\nc"}
    for user_id, name in names.items():
        create_user(user_id, username=name)
    simulator.state.set_chats("refuse", [7105])
    job = creation.create_job(audience="all", created_by=ADMIN_ID, content={"type": "text", "text": "سلام"},
                              settings=engine_settings())
    assert pump(job.id, 10, settings=engine_settings()).stop == "done"
    tap(client, simulator, f"j.view:{job.id}")
    press(client, simulator, "j.export", under=view_of(simulator, job.id))
    [document] = simulator.deliveries("sendDocument", ADMIN_ID)
    rows = list(csv.reader(io.StringIO(base64.b64decode(document["document_base64"]).decode("utf-8-sig"),
                                       newline="")))
    assert [row[:3] for row in rows[1:]] == [
        ["7101", "'=HYPERLINK(\"http://x\")", "sent"], ["7102", "'+98912", "sent"], ["7103", "'-1", "sent"],
        ["7104", "'@me", "sent"], ["7105", "a,\"b\"\nc", "failed"]]
    assert rows[5][3] == "Bad Request: message refused by the simulator" and rows[1][5].isdigit()


def test_export_of_a_purged_job_says_its_ledger_was_purged_and_sends_no_file(client, simulator):
    job_id = finished_job_with_failures(simulator)
    nine_days_ago = utcnow() - timedelta(days=9)
    db.session.execute(update(BroadcastJob).where(BroadcastJob.id == job_id).values(finished_at=nine_days_ago))
    db.session.execute(update(BroadcastJobItem).where(BroadcastJobItem.job_id == job_id)
                       .values(sent_at=nine_days_ago))
    db.session.commit()
    assert jobs_purge.purge_items(30)["jobs"] == {}  # finished nine days ago: kept by a 30-day purge
    assert jobs_purge.purge_items(7)["jobs"] == {job_id: 4}
    tap(client, simulator, f"j.view:{job_id}")
    view = view_of(simulator, job_id)
    press(client, simulator, "j.export", under=view)
    answer = last_answer(simulator)
    assert (answer["text"], answer["show_alert"]) == (t("cb_export_purged", id=job_id), True)
    assert simulator.deliveries("sendDocument", ADMIN_ID) == []
    assert "exported" not in [action for _, action in trail(job_id)]
    assert (reload(job_id).total_count, reload(job_id).sent_count) == (4, 1)


def test_retry_of_a_paused_job_cancels_it_so_its_resume_cannot_send_twice(client, simulator):
    for user_id in (OK, REFUSED):
        create_user(user_id)
    job = creation.create_job(audience="all", created_by=ADMIN_ID, content={"type": "text", "text": "سلام"},
                              settings=engine_settings())
    assert control.pause_job(job.id)
    tap(client, simulator, f"j.view:{job.id}")
    view = view_of(simulator, job.id)
    assert view["text"].endswith(t("retry_paused_note"))
    press(client, simulator, "j.retry", under=view)
    screen = offered(simulator, "r.ok")
    assert t("retry_who_not_sent_paused", n=2) in screen["text"] and t("retry_paused_note") in screen["text"]
    assert reload(job.id).status == "paused"  # nothing changes before the Confirm
    press(client, simulator, "r.ok", under=screen)
    assert reload(job.id).status == "cancelled"
    tap(client, simulator, f"w.resume:{job.id}", message_id=view["message_id"])
    assert last_answer(simulator)["text"] == t("cb_finished")
    assert pump(job.id, 5, settings=engine_settings()).stop == "not_running"
    assert (copies_to(simulator, OK), copies_to(simulator, REFUSED)) == (1, 1)
