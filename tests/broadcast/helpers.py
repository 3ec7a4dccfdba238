"""Plain helpers for engine tests: users, jobs, settings, checks."""
from __future__ import annotations

from datetime import timedelta

from sqlalchemy import insert, select, update

from app.clock import utcnow
from app.extensions import db
from app.models import BroadcastJob, BroadcastJobItem, User
from app.models.user import CHANNEL_UNKNOWN
from app.repository.broadcast_ledger import tallies
from app.services.broadcast.jobs import creation
from app.services.broadcast.jobs.estimate import send_rate
from app.services.broadcast.sending.slots import claimed_at_most
from app.settings_schema import defaults

BASE_ID = 5_000_000_000  # above 2^31, like real Telegram user ids


def create_users(n: int, *, start: int = BASE_ID, blocked: bool = False, status: str = CHANNEL_UNKNOWN) -> list[int]:
    """Insert n users in one statement and return their ids."""
    now = utcnow()
    ids = list(range(start, start + n))
    db.session.execute(insert(User), [
        dict(id=i, first_name=f"کاربر {i} 🎉", is_blocked=blocked, main_channel_status=status,
             started_at=now, last_seen_at=now) for i in ids
    ])
    db.session.commit()
    return ids


def engine_settings(**overrides) -> dict:
    """Return settings for tests: defaults plus overrides."""
    values = defaults()
    values.update(overrides)
    return values


def create_text_job(audience: str = "all", text: str = "<b>سلام</b> به همه 👋", **kw):
    """Create a queued/running text job."""
    return creation.create_job(audience=audience, created_by=1001, content={"type": "text", "text": text},
                               settings=kw.pop("settings", None) or engine_settings(), **kw)


def reload(job_id: int) -> BroadcastJob:
    """Return the job's committed row."""
    db.session.expire_all()
    job = db.session.get(BroadcastJob, job_id)
    db.session.commit()
    return job


def expire_lease(job_id: int) -> None:
    """Age the job's lease into the past, as if its pump had died long ago."""
    db.session.execute(update(BroadcastJob).where(BroadcastJob.id == job_id)
                       .values(lease_expires_at=utcnow() - timedelta(seconds=1)))
    db.session.commit()


def clear_not_before(job_id: int) -> None:
    """Move a job's not_before into the past."""
    db.session.execute(update(BroadcastJob).where(BroadcastJob.id == job_id).values(not_before=None))
    db.session.commit()


def assert_consistent(job_id: int, simulator=None) -> dict:
    """Check counters equal item tallies, nothing is in flight, and nobody got two copies."""
    job = reload(job_id)
    counts = tallies(job_id)
    db.session.commit()
    assert counts.get("sending", 0) == 0, counts
    assert job.sent_count == counts.get("sent", 0), (job_status_counts(job), counts)
    assert job.failed_count == counts.get("failed", 0), (job_status_counts(job), counts)
    assert job.skipped_count == counts.get("skipped", 0), (job_status_counts(job), counts)
    assert job.unknown_count == counts.get("unknown", 0), (job_status_counts(job), counts)
    assert job.total_count == sum(counts.values())
    if simulator is not None:
        chats = [d["chat_id"] for d in simulator.deliveries() if d["method"] in ("sendMessage", "copyMessage")
                 and d["chat_id"] >= BASE_ID]
        assert len(chats) == len(set(chats)), "a recipient received two copies"
        # Every 'sent' item was delivered; unknown items may or may not have been.
        sent_users = set(db.session.execute(select(BroadcastJobItem.user_id).where(
            BroadcastJobItem.job_id == job_id, BroadcastJobItem.status == "sent")).scalars())
        db.session.commit()
        assert sent_users <= set(chats)
    return counts


def job_status_counts(job: BroadcastJob) -> dict:
    """Return the job's counters as a dict."""
    return dict(sent=job.sent_count, failed=job.failed_count, skipped=job.skipped_count,
                unknown=job.unknown_count, total=job.total_count)


def recorder_for(p, job: BroadcastJob, window: int):
    """Build the Recorder a Pump's run() would, from that pump's lease, outbox, clock and settings."""
    from app.services.broadcast.reporting.notifier import Notifier
    from app.services.broadcast.sending.recorder import Recorder

    notifier = Notifier(p.outbox, p.clock, p.deadline, worker=p.outbox_worker)
    return Recorder(job, window, lease=p.lease, notifier=notifier, settings=p.settings, clock=p.clock, sleep=p.sleep)


def crash_bound(settings: dict) -> int:
    """Return the most items a pump killed at any moment can leave 'sending' (so 'unknown'): a block and the window."""
    return claimed_at_most(send_rate(settings, False), settings["broadcast_concurrency"])


def at_once(app, call, passes: int) -> list:
    """Run call() in `passes` threads released together (each in its own app context); return their results.

    The scaffold of every "two cron passes at once" race: a barrier so the
    calls overlap, each thread's session removed after it, and any exception
    in a thread failing the test (asserted here).
    """
    import threading

    results, errors, start = [], [], threading.Barrier(passes)

    def one() -> None:
        with app.app_context():
            try:
                start.wait()
                results.append(call())
            except BaseException as exc:  # noqa: BLE001 - asserted below
                errors.append(exc)
            finally:
                db.session.remove()

    threads = [threading.Thread(target=one) for _ in range(passes)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert errors == []
    assert len(results) == passes, "a pass never returned"
    return results
