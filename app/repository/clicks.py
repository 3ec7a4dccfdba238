"""Click tracking's two statements: a tracked link's target, and the click recorded (guarded UPDATEs)."""
from __future__ import annotations

from datetime import datetime

from sqlalchemy import and_, or_, select, update

from app.extensions import db
from app.models.broadcast import CONTENT_ALBUM, KIND_SEND, BroadcastJob, BroadcastJobItem
from app.repository import buttons

I = BroadcastJobItem  # noqa: E741  (short alias keeps the SQL readable)
J = BroadcastJob


def click_target(item_id: int):
    """Return (job id, user id, the item's variant, the job's buttons) of an item, or None if none (one SELECT).

    The job's buttons: a row with button_url, keyboard and ab_content.
    """
    row = db.session.execute(select(I.job_id, I.user_id, I.variant, J.button_url, J.keyboard, J.ab_content)
                             .join(J, J.id == I.job_id).where(I.id == item_id)).first()
    return (row.job_id, row.user_id, row.variant, row) if row else None


def record_click(job_id: int, item_id: int, now: datetime, position: int = 0, variant: str = "") -> bool:
    """Count one click on the job (and on its keyboard button at position); True when it was the recipient's first.

    The recipient's first click on any of the copy's buttons sets their
    clicked_at (the job's unique clicks, its CTR); a keyboard button's row
    (variant: an A/B version's own keyboard, "" the job's) also counts it as
    that button's first click, and (item, position) is kept once, so an A/B
    test can rank versions by who clicked one button. The button rows come last.

    The guarded UPDATE decides "first" in the database, so two simultaneous
    first clicks of one recipient count one unique click. The job row is
    locked first, as every pump transaction does (its fence) before touching
    items: the opposite order deadlocks with a pump recording that item.
    """
    db.session.execute(update(J).where(J.id == job_id).values(clicks_total=J.clicks_total + 1))
    first = db.session.execute(update(I).where(I.id == item_id, I.clicked_at.is_(None))
                               .values(clicked_at=now)).rowcount == 1
    if first:
        db.session.execute(update(J).where(J.id == job_id).values(clicks_unique=J.clicks_unique + 1))
    if position:
        buttons.add_click(job_id, position, first, variant)
        buttons.add_clicker(item_id, position)
    return first


def latest_with_button() -> BroadcastJob | None:
    """Return the newest send job whose copies carry a link button (what /stats reports clicks of), or None."""
    # A keyboard's url button is stored as "kind":"url" (content/keyboard.dump writes no spaces).
    had_link = or_(and_(J.button_url.is_not(None), J.content_type != CONTENT_ALBUM),
                   J.keyboard.contains('"kind":"url"'))
    # Its links were tracked (an A/B version's own too), or, made before that was recorded, it had one.
    linked = or_(J.links_tracked.is_(True), and_(J.links_tracked.is_(None), had_link), J.clicks_unique > 0)
    return db.session.execute(select(J).where(J.kind == KIND_SEND, linked).order_by(J.id.desc()).limit(1)).scalar()
