"""The pump's claim cursor: pending items read ahead in id order, taken by the block, read again on a return."""
from __future__ import annotations

import logging
from collections import deque
from typing import NamedTuple

from app.extensions import db
from app.models.broadcast import ACTION_KINDS, BroadcastJob
from app.repository import broadcast_claims as items
from app.services.audience import fields as fields_service
from app.services.broadcast.content import field_text
from app.services.broadcast.content.greeting import is_personal

log = logging.getLogger(__name__)

# Pending items read at once (at least): a block at the cap is 29 sends, a paid one up to a hundred.
CLAIMS_PER_READ = 200
MAX_CLAIMS_PER_READ = 2000
# How often one run reads its pending items again from the start before it stops 'incomplete'.
IDLE_RESCANS = 3


class Claim(NamedTuple):
    """One item claimed for sending, with what its send needs."""

    item_id: int
    user_id: int
    # A personal greeting's recipient: first name and Telegram language code (None when unknown).
    first_name: str | None = None
    language_code: str | None = None
    # An action's copy (unsend, edit): its message id, and an album's part ids.
    message_id: int | None = None
    part_ids: list[int] | None = None
    # The recipient's language variant (None: the default content).
    variant: str | None = None
    # The recipient's custom fields the text asks for ({field:plan}), read for the whole block at once.
    fields: dict[str, str] | None = None


class ClaimCursor:
    """The job's pending items this pump has read and not yet taken, and where its reading stands."""

    def __init__(self, job: BroadcastJob, batch_size: int):
        self.job_id = job.id
        # Pending items are read ahead a few blocks at a time (the claim is in memory, the mark one UPDATE).
        self.batch_size = min(max(batch_size, CLAIMS_PER_READ), MAX_CLAIMS_PER_READ)
        self.queue: deque[Claim] = deque()
        # A personal greeting needs each claimed recipient's first name and language code.
        self.personal = is_personal(job)
        # An action job (unsend, edit) reads each claimed item's copy.
        self.action = job.kind in ACTION_KINDS
        # A send with language variants reads each claimed item's variant (an action's read always does:
        # the pump refuses to give an edited copy another variant's text, so it must know each copy's).
        self.variants = bool(job.variants)
        # Custom fields the text asks for: one query per read of pending items, never one per copy.
        self.fields = field_text.job_fields(job)
        self.last_id, self.exhausted = 0, False
        self.rescans_when_idle = 0

    def take(self, want: int) -> list[Claim]:
        """Pop up to `want` claimed items."""
        if want <= 0:
            return []
        self._fill(want)
        return [self.queue.popleft() for _ in range(min(want, len(self.queue)))]

    def put_back(self, batch: list[Claim]) -> None:
        """Return taken items to the front (their mark was not committed): the next take has them again."""
        self.queue.extendleft(reversed(batch))

    def any_left(self) -> bool:
        """Tell whether any pending item is left to send."""
        self._fill(1)
        return bool(self.queue)

    def rescan(self, back: list[int]) -> None:
        """Read again from the first item that went back to pending (a send held back by a 429 elsewhere)."""
        if back:
            self._rewind(min(self.last_id, min(back) - 1))

    def _rewind(self, last_id: int) -> None:
        """Drop the queue and read on from just after last_id."""
        self.queue.clear()
        self.last_id, self.exhausted = last_id, False

    def _fill(self, need: int) -> None:
        """Read the next pending items (in id order) until the queue holds `need` or none are left."""
        while len(self.queue) < need and not self.exhausted:
            rows = self._next_pending()
            if rows:
                self.last_id = rows[-1].item_id
                self.queue.extend(rows)
            if len(rows) < self.batch_size:
                self.exhausted = True

    def _next_pending(self) -> list[Claim]:
        """Read the next batch of pending items, with the custom fields their text asks for."""
        rows = self._next_rows()
        if not self.fields or not rows:
            return rows
        values = fields_service.values_for([claim.user_id for claim in rows], self.fields)
        return [claim._replace(fields=values.get(claim.user_id, {})) for claim in rows]

    def _next_rows(self) -> list[Claim]:
        """Read the next batch of pending items, with each one's copy (actions), name (greetings) and variant."""
        if self.action:
            rows = items.next_pending_targets(self.job_id, self.last_id, self.batch_size)
            if self.personal:
                return [Claim(i, u, name, code, message_id, parts, variant or None)
                        for i, u, message_id, parts, name, code, variant in rows]
            return [Claim(i, u, message_id=message_id, part_ids=parts, variant=variant or None)
                    for i, u, message_id, parts, _, _, variant in rows]
        if self.personal:
            return [Claim(i, u, name, code, variant=variant or None)
                    for i, u, name, code, variant in items.next_pending_named(self.job_id, self.last_id,
                                                                              self.batch_size)]
        if self.variants:
            return [Claim(i, u, variant=variant)
                    for i, u, variant in items.next_pending_variants(self.job_id, self.last_id, self.batch_size)]
        return [Claim(i, u) for i, u in items.next_pending(self.job_id, self.last_id, self.batch_size)]

    @property
    def may_have_more(self) -> bool:
        """True unless every pending item seen so far has been dispatched and none are left."""
        return bool(self.queue) or not self.exhausted

    @property
    def drained(self) -> bool:
        """True when every pending item seen has been dispatched and none are left."""
        return self.exhausted and not self.queue

    def pending_behind(self) -> bool:
        """Read the pending items again from the job's start; True if one is there (a few times per run at most).

        The cursor reads forward from the last claimed id and rewinds when a send
        comes back; a pending item it passed by any other way would otherwise wait
        for the next cron call while this run still had time to send it.
        """
        if self.rescans_when_idle >= IDLE_RESCANS:
            return False
        self.rescans_when_idle += 1
        self._rewind(0)
        self._fill(1)
        db.session.commit()
        if self.queue:
            log.warning("job %s: pending item %s found behind the claim cursor; sending it in this run",
                        self.job_id, self.queue[0].item_id)
        return bool(self.queue)
