"""Recurring broadcasts as admins handle them: create one from a draft, pause, resume, stop, read it back."""
from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from datetime import datetime, timedelta

from app.extensions import db
from app.models.recurring import ACTIVE, MADE, RecurringBroadcast, RecurringOccurrence
from app.models.segment_rule import Target
from app.repository import recurring as repo
from app.repository.db_clock import db_utcnow
from app.services import audit
from app.services.audience import segments
from app.services.broadcast.jobs.draft import Draft
from app.services.broadcast.schedule import recurring
from app.services.broadcast.schedule.occurrences import IF_MISSED, Series
from app.services.broadcast.schedule.recurrence import RuleError, end_bound, parse_end_date, parse_rule
from app.services.broadcast.schedule.recurring import CREATED, PAUSED, RESUMED, STOPPED, draft_columns, series_of
from app.services.broadcast.schedule.send_time import describe, tehran_iso
from app.texts import t

log = logging.getLogger(__name__)
MAX_COUNT = 10_000


@dataclass(frozen=True)
class SeriesView:
    """A series as admins see it: the row, its next occurrences and its newest occurrences, newest first."""

    row: RecurringBroadcast
    upcoming: list[datetime]
    occurrences: list[RecurringOccurrence]

    def as_dict(self) -> dict:
        """Return the JSON form `recurring show --json` prints (times in Tehran, ISO 8601)."""
        r = self.row
        return {"id": r.id, "status": r.status, "rule": r.rule, "audience": audience_text(r), "if_missed": r.if_missed,
                "until": _until_day(r.until_at), "count": r.count_limit, "occurrences": r.occurrences,
                "made": r.made_count, "next_at": tehran_iso(r.next_at),
                "upcoming": [tehran_iso(at) for at in self.upcoming],
                "jobs": [{"occurs_at": tehran_iso(o.occurs_at), "outcome": o.outcome, "job_id": o.job_id}
                         for o in self.occurrences]}


def audience_text(row: RecurringBroadcast) -> str:
    """Return whom a series sends to, as audit details name it ("segment=vip exclude=staff", "all lang=fa")."""
    try:
        return str(recurring.series_audience(row, Draft.from_json(json.loads(row.draft))))
    except segments.SegmentMissing as exc:
        return str(exc)


def _until_day(until_at: datetime | None) -> str | None:
    """Return the end date (the Tehran day before the stored bound) as YYYY-MM-DD."""
    return tehran_iso(until_at - timedelta(seconds=1))[:10] if until_at else None


def create(draft: Draft, rule_text: str, *, until: str | None, count: int | None, if_missed: str,
           created_by: int | None, lang: str, actor: str) -> RecurringBroadcast:
    """Store a recurring broadcast; raise RuleError (rule, end, count) or ValueError (content) and store nothing."""
    rule = parse_rule(rule_text)
    if if_missed not in IF_MISSED:
        raise RuleError("rec_err_if_missed", value=if_missed)
    if count is not None and not 1 <= count <= MAX_COUNT:
        raise RuleError("rec_err_count", max=MAX_COUNT)
    now = db_utcnow()
    # Every option checked as a job's would be; a segment's rule kept as of now, as a job keeps it.
    audience, _, _ = draft_columns(draft, segments.of_draft(draft), now)
    until_at = end_bound(parse_end_date(until)) if until else None
    if until_at is not None and until_at <= now:
        raise RuleError("rec_err_until_past", until=until)
    first = Series(rule, until_at, count).first(now)
    if first is None:
        raise RuleError("rec_err_never", until=until, first=describe(rule.next_after(now), "en"))
    row = repo.add(status=ACTIVE, rule=rule.text, draft=json.dumps(draft.to_json(), ensure_ascii=False),
                   audience_rule=audience.to_json() if isinstance(audience, Target) else None,
                   if_missed=if_missed, until_at=until_at, count_limit=count, next_at=first, lang=lang,
                   created_by=created_by, created_at=now)
    audit.record(actor, CREATED, None, f"recurring=#{row.id} rule={rule.text} first={first:%Y-%m-%dT%H:%M:%SZ}")
    db.session.commit()
    log.info("recurring broadcast %s created: %s, first at %s UTC", row.id, rule.text, first)
    return row


def pause(series_id: int, actor: str) -> bool:
    """Pause a series: no occurrence until it is resumed (those that pass meanwhile are not made later)."""
    return _change(series_id, actor, PAUSED, lambda: repo.pause(series_id))


def resume(series_id: int, actor: str, now: datetime | None = None) -> bool:
    """Resume a paused series from its first occurrence after now (it ends if none is left)."""
    row = repo.get(series_id)
    if row is None:
        db.session.commit()
        return False
    next_at = series_of(row).following(now or db_utcnow(), row.occurrences)
    return _change(series_id, actor, RESUMED, lambda: repo.resume(series_id, next_at))


def stop(series_id: int, actor: str) -> bool:
    """Stop a series for good; the jobs it already made are untouched."""
    return _change(series_id, actor, STOPPED, lambda: repo.stop(series_id))


def _change(series_id: int, actor: str, action: str, update) -> bool:
    """Run one guarded change with its audit entry in one transaction; False when the state refused it."""
    ok = update()
    if ok:
        audit.record(actor, action, None, f"recurring=#{series_id}")
    db.session.commit()
    return ok


def get(series_id: int) -> RecurringBroadcast | None:
    """Return a series (committed: nothing stays open)."""
    row = repo.get(series_id)
    db.session.commit()
    return row


def newest(limit: int = 20) -> list[RecurringBroadcast]:
    """Return the newest series first."""
    rows = repo.newest(limit)
    db.session.commit()
    return rows


def view(series_id: int, upcoming: int = 3, occurrences: int = 20) -> SeriesView | None:
    """Read a series with its next occurrences and its newest recorded ones."""
    row = repo.get(series_id)
    if row is None:
        db.session.commit()
        return None
    coming = series_of(row).upcoming(row.next_at, row.occurrences, upcoming) if row.status == ACTIVE else []
    result = SeriesView(row, coming, repo.occurrences_of(series_id, occurrences))
    db.session.commit()
    return result


def summary(row: RecurringBroadcast, lang: str) -> str:
    """Render one series for an admin: id, status, rule, next occurrence, end, tallies."""
    next_at = describe(row.next_at, lang) if row.next_at else t("rec_no_next", lang)
    end = _until_day(row.until_at) or (t("rec_times", lang, n=row.count_limit) if row.count_limit else "-")
    return t("rec_item", lang, id=row.id, status=t(f"rec_status_{row.status}", lang), rule=row.rule,
             next=next_at, end=end, made=row.made_count, occurrences=row.occurrences,
             missed=t(f"rec_missed_{row.if_missed}", lang))


def job_note(job_id: int, lang: str) -> str:
    """Return a job view's line naming the series that made it (with its leading blank line), or ""."""
    found = repo.occurrence_of_job(job_id)
    note = ""
    if found is not None and found.outcome == MADE:
        row = repo.get(found.recurring_id)
        note = "\n\n" + t("rec_job_note", lang, id=found.recurring_id, rule=row.rule if row else "-",
                          when=describe(found.occurs_at, lang))
    db.session.commit()
    return note
