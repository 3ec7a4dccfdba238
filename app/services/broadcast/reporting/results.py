"""A broadcast's results as numbers: delivery and clicks over time, pauses and 429 holds, who left, its neighbours.

One function (`compute`) gives the numbers both the picture and `broadcast
report --json` show; every count is grouped in SQL (app.repository.broadcast_results).
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone

from app.extensions import db
from app.models.broadcast import KIND_SEND, BroadcastJob
from app.repository import broadcast_ledger
from app.repository import broadcast_results as sql
from app.repository import buttons as buttons_repo
from app.repository.db_clock import db_utcnow
from app.services import audit
from app.services.broadcast.ab import report as ab_report
from app.services.broadcast.content import ab_content, keyboard
from app.services.broadcast.jobs.status import clicks_counted

# The broadcasts shown beside this one.
RECENT = 10
# A curve has at most this many buckets: a phone-sized picture shows no more bars than this.
MAX_BUCKETS = 60
# Bucket sizes, seconds: the smallest that keeps a span within MAX_BUCKETS is used.
BUCKET_SIZES = (10, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400, 172800, 604800)
# The audit actions that end a pause.
PAUSE_ENDS = (audit.RESUMED, audit.CANCELLED)


class NoResults(LookupError):
    """A job the picture cannot be made of; its message is the one line an admin or operator reads."""

    def __init__(self, reason: str, job_id: int, message: str):
        super().__init__(message)
        self.reason, self.job_id = reason, job_id


@dataclass
class Curve:
    """Counts in time buckets: bucket k covers [start + k*seconds, start + (k+1)*seconds), UTC."""

    start: str | None = None
    seconds: int = 0
    counts: list[int] = field(default_factory=list)


@dataclass
class Results:
    """Everything the results picture shows; JSON-ready (times are ISO 8601 UTC)."""

    job_id: int
    status: str
    created_at: str
    finished_at: str | None
    counts: dict[str, int]
    delivered: int
    sent: Curve
    pauses: list[dict]
    holds: list[dict]
    clicks: Curve
    buttons: list[dict]
    unique_clicks: int
    ctr: float | None  # None: the broadcast had no tracked button, or its links went out untracked
    blocked_after: int
    opted_out_after: int
    recent: list[dict]
    ab: dict | None = None  # an A/B test's versions side by side: `broadcast ab --json`'s numbers (ab/report.py)
    ab_of: dict | None = None  # a winner job's test: {"test": its id, "version": its letter}
    # A keyboard's tap and menu buttons: each one's verified presses (broadcast_buttons.presses).
    presses: list[dict] = field(default_factory=list)
    # It had link buttons whose clicks were not counted (no PUBLIC_URL when it was made): not "no button".
    links_untracked: bool = False

    def clicks_note(self) -> str | None:
        """Return the text key the clicks panel shows instead of bars, or None when it has bars to draw."""
        if self.links_untracked:
            return "chart_not_counted"
        if not self.buttons:
            return "chart_no_button"
        return None if self.clicks.counts else "chart_no_clicks"

    def as_dict(self) -> dict:
        """Return the numbers as plain JSON-safe values."""
        return asdict(self)


def compute(job_id: int) -> Results:
    """Return a job's results, or raise NoResults (unknown job, an action job, nothing delivered, ledger purged)."""
    job = _reportable(job_id)
    counts = sql.status_counts(job_id)
    delivered = counts.get("sent", 0)
    if delivered == 0:
        raise NoResults("nothing", job_id, f"broadcast {job_id} has delivered nothing yet: no results to show")
    clicks = _curve(job_id, "clicked_at")
    unique = sum(clicks.counts)
    left = sql.left_after([job_id]).get(job_id, (0, 0))
    pauses, holds = _pauses(job_id, job.finished_at or db_utcnow())
    buttons, presses = _buttons(job, unique)
    untracked = bool(buttons) and not clicks_counted(job)
    if untracked:
        buttons = []  # its links went out untracked: no url button's clicks are known (CTR "—", not 0)
    results = Results(
        job_id=job_id, status=job.status, created_at=_iso(job.created_at), finished_at=_iso(job.finished_at),
        counts=counts, delivered=delivered, sent=_curve(job_id, "sent_at"), pauses=pauses, holds=holds,
        clicks=clicks, buttons=buttons, unique_clicks=unique,
        ctr=ratio(unique, delivered) if buttons else None,
        blocked_after=left[0], opted_out_after=left[1], recent=_recent(job_id), presses=presses,
        ab=ab_report.summary(job) or None, ab_of=_test_of(job), links_untracked=untracked)
    db.session.commit()  # reads only: no transaction stays open behind the caller
    return results


def _test_of(job: BroadcastJob) -> dict | None:
    """Return the A/B test a winner job sends the winner of, and the winning letter (None for any other job)."""
    if job.ab_of is None:
        return None
    test = db.session.get(BroadcastJob, job.ab_of)
    return {"test": job.ab_of, "version": test.ab_winner if test is not None else None}


def _buttons(job: BroadcastJob, unique: int) -> tuple[list[dict], list[dict]]:
    """Return each tracked link button (its people, whose first click it was, and every click) and each press count.

    The single link button's people are the job's unique clicks; a
    keyboard's url buttons are read from their counters (broadcast_buttons),
    and their people add up to the job's unique clicks.
    """
    kb = keyboard.load(job.keyboard)
    own = ab_content.own_keyboards(job)  # an A/B version's own buttons: listed with their version
    if not kb and not own:
        return [{"text": job.button_text, "url": job.button_url, "unique": unique, "total": job.clicks_total}
                ] if job.button_url else [], []
    links, pressed = [], []
    for variant, board in ([("", kb)] if kb else []) + own:
        counted = buttons_repo.counts(job.id, variant)
        clicks, first, presses = ({pos: c[i] for pos, c in counted.items()} for i in range(3))
        listed, mark = keyboard.buttons(board), ({"version": variant} if variant else {})
        links += [{"text": b["text"], "url": b["url"], "position": pos, **mark, "unique": first.get(pos, 0),
                   "total": clicks.get(pos, 0)} for pos, b in listed if b["kind"] == "url"]
        pressed += [{"text": b["text"], "kind": b["kind"], "position": pos, **mark, "presses": presses.get(pos, 0)}
                    for pos, b in listed if b["kind"] in ("tap", "menu")]
    return links, pressed


def ratio(part: int, whole: int) -> float:
    """Return part / whole rounded to 4 places (0 of nothing is 0)."""
    return round(part / whole, 4) if whole else 0.0


def bucket_seconds(first: int, last: int) -> int:
    """Return the smallest bucket size that keeps [first, last] within MAX_BUCKETS buckets."""
    for size in BUCKET_SIZES:
        if (last - first) // size + 1 <= MAX_BUCKETS:
            return size
    return BUCKET_SIZES[-1]


def check(job_id: int) -> None:
    """Raise NoResults unless the job has a picture to draw (its counters only: no GROUP BY)."""
    job = _reportable(job_id)
    db.session.commit()
    if job.sent_count == 0:
        raise NoResults("nothing", job_id, f"broadcast {job_id} has delivered nothing yet: no results to show")


def _reportable(job_id: int) -> BroadcastJob:
    """Return the job, or raise NoResults with the one line that says why not."""
    job = db.session.get(BroadcastJob, job_id)
    if job is None:
        raise NoResults("unknown", job_id, f"no broadcast job {job_id}")
    if job.kind != KIND_SEND:
        raise NoResults("action", job_id, f"job {job_id} is an {job.kind} job, not a broadcast: no results picture")
    if job.sent_count > 0 and broadcast_ledger.last_item_id(job_id) == 0:
        raise NoResults("purged", job_id, f"the per-recipient ledger of job {job_id} was purged: no results "
                                          f"picture (its counters remain: broadcast status {job_id})")
    return job


def _curve(job_id: int, col: str) -> Curve:
    """Return delivered items bucketed by a time column, every bucket from the first to the last listed."""
    first, last = sql.span(job_id, col)
    if first is None:
        return Curve()
    size = bucket_seconds(first, last)
    origin = first - first % size  # buckets on round times (whole minutes, hours)
    found = sql.buckets(job_id, col, origin, size)
    counts = [found.get(k, 0) for k in range((last - origin) // size + 1)]
    return Curve(_iso(datetime.fromtimestamp(origin, timezone.utc).replace(tzinfo=None)), size, counts)


def _pauses(job_id: int, end: datetime) -> tuple[list[dict], list[dict]]:
    """Return the job's pauses (from its audit log: paused until resumed, cancelled or the end) and 429 holds."""
    pauses: list[dict] = []
    holds: list[dict] = []
    for at, action, detail in sql.audit_marks(job_id, (audit.PAUSED, audit.HELD, *PAUSE_ENDS)):
        if action == audit.HELD:
            holds.append({"at": _iso(at), "seconds": _seconds(detail)})
        elif action == audit.PAUSED and not (pauses and pauses[-1]["until"] is None):
            pauses.append({"at": _iso(at), "until": None, "reason": detail})
        elif action in PAUSE_ENDS and pauses and pauses[-1]["until"] is None:
            pauses[-1]["until"] = _iso(at)
    for pause in pauses:
        pause["until"] = pause["until"] or _iso(end)
    return pauses, holds


def _recent(job_id: int) -> list[dict]:
    """Return this broadcast and the RECENT before it that delivered: delivered, CTR, blocked after."""
    rows = sql.recent_sends(job_id, RECENT)
    left = sql.left_after([r["id"] for r in rows])
    return [{"id": r["id"], "delivered": r["delivered"],
             "ctr": ratio(r["clicks"], r["delivered"]) if r["tracked"] else None,
             "blocked_after": left.get(r["id"], (0, 0))[0]} for r in rows]


def _seconds(detail: str | None) -> float:
    """Return the seconds a HELD entry's detail names ("429: 12.5 s"), 0 when unreadable."""
    try:
        return float((detail or "").split(":")[-1].strip().split()[0])
    except (ValueError, IndexError):
        return 0.0


def _iso(at: datetime | None) -> str | None:
    """Render a naive UTC time as ISO 8601 with Z."""
    return at.isoformat(timespec="seconds") + "Z" if at else None
