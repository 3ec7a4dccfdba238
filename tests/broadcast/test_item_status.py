"""One source of truth for item statuses: each final status has its job counter, the rest are still to do."""
from sqlalchemy import select, update

from app.extensions import db
from app.models.broadcast import BroadcastJob, BroadcastJobItem, ItemStatus
from app.repository import broadcast_jobs as jobs_repo
from app.repository.broadcast_ledger import tallies
from app.services.broadcast.sending import outcomes as oc
from tests.broadcast.helpers import create_text_job, create_users, reload

NOT_FINAL = {ItemStatus.PENDING, ItemStatus.SENDING}


def test_every_job_counter_column_is_counted_by_exactly_one_item_status():
    # Not item statuses: the daily cap's skips are a part of skipped_count; unsubscribes count users' taps.
    not_statuses = {"total_count", "capped_count", "unsubscribed_count"}
    columns = {c.name for c in BroadcastJob.__table__.columns
               if c.name.endswith("_count") and c.name not in not_statuses}
    counters = [s.counter for s in ItemStatus if s.counter is not None]
    assert sorted(counters) == sorted(columns)
    assert {s for s in ItemStatus if s.counter is None} == NOT_FINAL, "a final status needs its counter column"


def test_every_outcome_kind_ends_in_a_final_item_status_or_back_to_pending():
    for kind in oc.OutcomeKind:
        assert kind.status is None or kind.status.counter is not None, kind
    assert {k for k in oc.OutcomeKind if k.breaker} == {oc.FAILED, oc.UNKNOWN}


def _spread_statuses(job_id: int) -> dict[ItemStatus, int]:
    """Put the job's items in every status (the k-th status on k+1 items) and count them as the pump would."""
    ids = list(db.session.execute(select(BroadcastJobItem.id).where(BroadcastJobItem.job_id == job_id)
                                  .order_by(BroadcastJobItem.id)).scalars())
    placed = {}
    for k, status in enumerate(ItemStatus):
        chunk, ids = ids[:k + 1], ids[k + 1:]
        db.session.execute(update(BroadcastJobItem).where(BroadcastJobItem.id.in_(chunk)).values(status=status))
        if status.counter is not None:
            jobs_repo.add_counts(job_id, **{status: len(chunk)})
        placed[status] = len(chunk)
    assert not ids
    db.session.commit()
    return placed


def test_counters_processed_count_and_pending_ahead_follow_the_item_statuses(app):
    create_users(sum(range(1, len(ItemStatus) + 1)))
    running, queued = create_text_job(), create_text_job()
    assert (reload(running.id).status, reload(queued.id).status) == ("running", "queued")
    for job in (running, queued):
        placed = _spread_statuses(job.id)
    job = reload(running.id)
    counts = tallies(job.id)
    for status in ItemStatus:
        assert counts[status] == placed[status]
        if status.counter is not None:
            assert getattr(job, status.counter) == counts[status], status
    to_do = sum(placed[s] for s in NOT_FINAL)
    assert job.processed_count == job.total_count - to_do
    assert job.pending_count == to_do
    assert [row[-1] for row in jobs_repo.pending_ahead()] == [to_do, to_do]
