"""Auto-expiry chosen on the pre-send screen: the row of T, the line, the job's own row, cron's one unsend job."""
from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import select

from app.bot.callback_data import parse
from app.extensions import db
from app.models import BroadcastJob, BroadcastJobItem
from app.models.broadcast import KIND_UNSEND
from app.services import audit
from app.services.broadcast.sending.drain import pump_all
from app.texts import t
from tests.bot.test_optout import start_users
from tests.bot.wizard import all_jobs, buttons, offered, press, send
from tests.broadcast.helpers import engine_settings
from tests.conftest import ADMIN_ID

pytestmark = pytest.mark.usefixtures("fast_telegram")
USERS = (8301, 8302, 8303)


def to_screen(client, simulator) -> dict:
    send(client, simulator, "/broadcast")
    send(client, simulator, "خبر")
    press(client, simulator, "w.no_button")
    press(client, simulator, "w.aud:all")
    return offered(simulator, "w.confirm")


def labels(screen: dict) -> list[str]:
    return [b["text"] for row in screen["reply_markup"]["inline_keyboard"] for b in row]


def age(job_id: int, by: timedelta) -> None:
    """Move the job's clock back by `by`: its copies were sent, and its first pass falls due, that much earlier."""
    for item in db.session.execute(select(BroadcastJobItem).where(BroadcastJobItem.job_id == job_id)).scalars():
        item.sent_at -= by  # in Python: date arithmetic in SQL differs between SQLite and MySQL
    job = db.session.get(BroadcastJob, job_id)
    job.started_at, job.expire_at = job.started_at - by, job.expire_at - by
    db.session.commit()


def test_expiry_chosen_before_sending_is_in_the_job_row_and_cron_deletes_every_copy_once(client, simulator):
    start_users(client, simulator, ADMIN_ID, *USERS)
    screen = to_screen(client, simulator)
    assert t("btn_presend_expire_off", "fa") in labels(screen)  # off until chosen: no ✅ in the row
    assert not [label for label in labels(screen) if "ساعت ✅" in label]
    assert "⏳ حذف خودکار:" not in screen["text"]
    press(client, simulator, "w.opt:x6")
    screen = offered(simulator, "w.confirm")
    assert "۶ ساعت ✅" in labels(screen) and t("btn_presend_expire_off", "fa") in labels(screen)
    assert "⏳ حذف خودکار: هر نسخه ۶ ساعت پس از رسیدنش برای همه حذف می‌شود" in screen["text"]
    press(client, simulator, "w.opt:x24")  # another T replaces it
    press(client, simulator, "w.opt:x1")
    assert "⏳ حذف خودکار: هر نسخه ۱ ساعت" in offered(simulator, "w.confirm")["text"]
    press(client, simulator, "w.confirm")
    [job] = all_jobs()
    assert job.status == "completed" and job.sent_count == len(USERS) + 1
    assert job.expire_after == 3600 and job.expire_at == job.created_at + timedelta(hours=1)
    [created] = [e for e in audit.entries(job.id) if e["action"] == audit.CONFIRMED]
    assert "expire_after=1h" in created["detail"]

    settings = engine_settings()
    assert pump_all(1, settings=settings) == [] and _unsend_jobs(job.id) == []  # not an hour yet: nothing goes
    age(job.id, timedelta(hours=1, minutes=1))
    pump_all(2, settings=settings)
    pump_all(2, settings=settings)  # a second cron call: no second unsend job
    [unsend] = _unsend_jobs(job.id)
    assert unsend.status == "completed" and unsend.sent_count == len(USERS) + 1
    deleted = [a["chat_id"] for a in simulator.delete_attempts() if a["chat_id"] != ADMIN_ID]
    assert sorted(deleted) == sorted(USERS)  # each user's copy deleted once (the admin's chat has wizard deletions)


def test_off_leaves_no_expiry_and_an_album_takes_one(client, simulator):
    start_users(client, simulator, ADMIN_ID, *USERS)
    to_screen(client, simulator)
    press(client, simulator, "w.opt:x47")
    screen = offered(simulator, "w.confirm")
    assert "۴۷ ساعت ✅" in labels(screen)
    press(client, simulator, "w.opt:x0")
    screen = offered(simulator, "w.confirm")
    assert not [label for label in labels(screen) if "ساعت ✅" in label] and "⏳ حذف خودکار:" not in screen["text"]
    press(client, simulator, "w.confirm")
    [job] = all_jobs()
    assert (job.expire_after, job.expire_at) == (None, None)


def test_a_longer_t_than_47_hours_is_no_button():
    # Telegram deletes for 48 hours: no button offers more, and forged data for more is refused.
    assert parse("w.opt:x47:abcdefgh").arg == "x47"
    for forged in ("w.opt:x48:abcdefgh", "w.opt:x100:abcdefgh", "w.opt:x-1:abcdefgh"):
        assert parse(forged) is None


def test_the_row_is_offered_under_an_album_too(client, simulator):
    # Auto-expiry deletes an album's parts like any copy (an unsend job): an album is not refused.
    from tests.bot.test_wizard_album import send_album  # noqa: PLC0415

    start_users(client, simulator, ADMIN_ID, *USERS)
    send(client, simulator, "/broadcast")
    send_album(client, simulator, "g1")
    press(client, simulator, "w.aud:all")
    screen = offered(simulator, "w.confirm")
    assert any(data.startswith("w.opt:x6:") for data in buttons(screen))
    press(client, simulator, "w.opt:x6")
    press(client, simulator, "w.confirm")
    [job] = all_jobs()
    assert job.content_type == "album" and job.expire_after == 6 * 3600


def _unsend_jobs(source: int) -> list[BroadcastJob]:
    db.session.expire_all()
    jobs = db.session.execute(select(BroadcastJob).where(BroadcastJob.source_job_id == source,
                                                         BroadcastJob.kind == KIND_UNSEND)).scalars().all()
    db.session.commit()
    return list(jobs)


