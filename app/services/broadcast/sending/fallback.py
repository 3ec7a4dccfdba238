"""While cron is late, the bot's own webhook traffic carries the queue forward in bounded slices.

A slice is what cron would do (pump_all), for FALLBACK_SLICE_SECONDS, run
after a webhook answer is complete (app/web/fallback.py starts it). One slice
runs at a time bot-wide: the watch row's lease (repo.take_slice) is a guarded
UPDATE, so any number of processes and servers with traffic start one slice
between them; a crashed slice's lease expires by time. The sends are the
same pumps as cron's, so they draw on the same bot-wide Telegram budget and
replies keep their priority.
"""
from __future__ import annotations

import logging
import time
import uuid
from datetime import timedelta

from app.extensions import db
from app.models.pump_run import FALLBACK
from app.repository import pump_runs as repo
from app.repository.db_clock import db_utcnow
from app.repository.deadlocks import in_transaction
from app.services.broadcast.schedule.cron_watch import alert_if_late, cron_state, run_recorded
from app.services.broadcast.sending import drain
from app.services.settings import load_settings

log = logging.getLogger(__name__)
# Short enough that a slice killed with its process (a host's limits, a restart) loses little; long
# enough that pump_all's setup (orphans, schedules, the lease) is a small part of it.
FALLBACK_SLICE_SECONDS = 4.0
# The lease outlives the slice by this much: pump_all's last flush runs past its budget by up to ~1 s.
SLICE_LEASE_MARGIN_SECONDS = 20.0
ALERT_FLUSH_SECONDS = 5.0


def drain_slice(*, client=None) -> list | None:
    """If cron is late: alert once per outage, then run one slice unless another runs.

    Return None while cron is on time, [] when another process's slice holds
    the lease, else the slice's PumpResults.
    """
    from app.services.telegram_factory import get_client, new_outbox

    settings = load_settings()
    db.session.commit()
    state = cron_state(settings)
    if not state.late:
        return None
    outbox = new_outbox(client or get_client(settings))
    if alert_if_late(settings, state, outbox=outbox, draining="cron_draining_traffic"):
        outbox.close(deadline=time.monotonic() + ALERT_FLUSH_SECONDS)
    token, now = uuid.uuid4().hex, db_utcnow()
    until = now + timedelta(seconds=FALLBACK_SLICE_SECONDS + SLICE_LEASE_MARGIN_SECONDS)
    taken = in_transaction(lambda: repo.take_slice(token, now, until))
    if not taken:
        return []
    try:
        results = run_recorded(FALLBACK, lambda: drain.pump_all(FALLBACK_SLICE_SECONDS, settings=settings,
                                                                client=client))
    finally:
        repo.release_slice(token)
        db.session.commit()
    log.info("cron is late: a traffic slice sent %d item(s)", sum(r.processed for r in results))
    return results
