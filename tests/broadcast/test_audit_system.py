"""The engine's own pauses are audited as "system" in their transaction, and alert every admin once."""
from app.models.user import CHANNEL_MEMBER
from app.services import audit
from app.services.broadcast.sending.drain import pump
from app.texts import t
from tests.broadcast.helpers import create_text_job, create_users, engine_settings, recorder_for, reload
from tests.factories import create_user

AUTHOR, OTHER_ADMIN = 1001, 1002


def test_paid_cap_pause_is_audited_as_system_and_alerts_each_admin_once(app, simulator):
    create_user(OTHER_ADMIN, is_admin=True, language_code="en")
    # Channel members only: the admins get no broadcast copy just before their alert (per-chat pacing).
    create_users(6, status=CHANNEL_MEMBER)
    settings = engine_settings(broadcast_paid_enabled=True, broadcast_paid_max_messages=3)
    job = create_text_job(audience="members", settings=settings, actor=audit.ACTOR_CLI)
    assert pump(job.id, 10, settings=settings).stop == "paid_cap"
    assert pump(job.id, 10, settings=settings).stop == "not_running"  # a second pump changes and sends nothing
    job = reload(job.id)
    assert (job.status, job.sent_count) == ("paused", 3)
    entries = audit.entries(job.id)
    assert [(e["actor"], e["action"], e["detail"]) for e in entries] == [
        ("cli", "created", "audience=members total=6"),
        ("system", "paused", t("reason_paid_cap", cap=3))]
    to = {chat: [d["text"] for d in simulator.deliveries("sendMessage", chat)] for chat in (AUTHOR, OTHER_ADMIN)}
    # The author (ADMIN_IDS) in the job's language, the flagged admin in theirs.
    assert to == {AUTHOR: [t("paused_alert", "fa", id=job.id, reason=job.pause_reason)],
                  OTHER_ADMIN: [t("paused_alert", "en", id=job.id, reason=job.pause_reason)]}


def test_a_pause_the_engine_lost_to_an_admin_is_neither_audited_nor_alerted(app, simulator):
    """The admin paused first: the engine's guarded pause matches nothing, so it logs and sends nothing."""
    from app.services.broadcast.jobs import control
    from app.services.broadcast.sending.pump import Pump
    from app.services.telegram_factory import get_client, new_outbox

    create_users(2)
    settings = engine_settings()
    job = create_text_job(settings=settings)
    p = Pump(job.id, 5, settings, get_client(settings), new_outbox(get_client(settings)), lambda: 0.0, lambda s: None)
    assert p.lease.acquire()
    recorder = recorder_for(p, reload(job.id), 1)
    assert control.pause_job(job.id, "by hand", actor="admin:1001")
    recorder.paused_reason = "breaker"
    recorder._pause()
    assert recorder.paused_here is False
    assert [(e["actor"], e["action"]) for e in audit.entries(job.id)] == [("admin:1001", "paused")]
