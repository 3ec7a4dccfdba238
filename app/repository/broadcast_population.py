"""Item rows put in: which users an audience, a retry or an action reaches, and one INSERT ... SELECT of their items."""
from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from sqlalchemy import String, case, delete, func, insert, literal, or_, select
from sqlalchemy.orm import aliased

from app.extensions import db
from app.models.audience import Audience
from app.models.broadcast import GONE, PENDING, SENT, BroadcastJob, BroadcastJobItem
from app.models.segment_rule import Target
from app.models.user import User
from app.repository import segment_count, segment_sql
from app.repository.audience_sql import audience_clause
from app.repository.inserts import ignoring_duplicates

I = BroadcastJobItem  # noqa: E741  (short alias keeps the SQL readable)


def audience_filter(audience: Audience | Target | str, now: datetime | None = None, after: int | None = None,
                    upto: int | None = None) -> list:
    """Return the WHERE clause selecting an audience and its filters from users (no Telegram calls).

    The one place the audience becomes SQL: the count shown before confirming
    and populate() use it alike, so they cannot disagree. A Target (a segment,
    exclusions) is compiled by segment_sql on top of this clause. after / upto:
    user ids in (after, upto] only (a population chunk).
    """
    if isinstance(audience, Target):
        where = segment_sql.target_filter(audience, now, after, upto)
    else:
        where = audience_clause(Audience.of(audience), now)
    if after is not None:
        where.append(User.id > after)
    if upto is not None:
        where.append(User.id <= upto)
    return where


def count_audience(audience: Audience | Target | str, now: datetime | None = None) -> int:
    """Count the users an audience would reach now (a Target by segment_count: the same users, faster)."""
    if isinstance(audience, Target):
        return segment_count.count_target(audience, now)
    where = audience_filter(audience, now)
    return db.session.execute(select(func.count()).select_from(User).where(*where)).scalar_one()


def variant_of_user(codes: Iterable[str]):
    """Return the SQL for the language variant a user gets: the code their language code starts with, else NULL.

    The same prefix match as the language filters (_lang_is); codes are two
    letters, so no two of them can match one language code.
    """
    codes = list(codes)
    if not codes:
        return literal(None, String(8))
    return case(*((User.language_code.like(f"{code}%"), literal(code)) for code in codes),
                else_=literal(None, String(8)))


def count_by_variant(audience: Audience | str, codes: Iterable[str], now: datetime | None = None) -> dict:
    """Count an audience's users per language variant now ({code or None: n}), with populate()'s own match."""
    variant = variant_of_user(codes).label("variant")
    rows = db.session.execute(select(variant, func.count()).select_from(User)
                              .where(*audience_filter(audience, now)).group_by(variant))
    return {code: n for code, n in rows}


def populate(job_id: int, audience: Audience | Target | str, now: datetime | None = None, variants: Iterable[str] = (),
             after: int | None = None, upto: int | None = None, count: bool = True) -> int:
    """Insert one pending item per audience member (user id in (after, upto] when given) by INSERT ... SELECT.

    Each item gets its recipient's language variant among `variants` (NULL:
    the default). Safe to run twice: UNIQUE(job_id, user_id) plus INSERT
    IGNORE / OR IGNORE drop the second copy. Returns the job's item count
    afterwards, or with count=False the rows this call inserted (a chunk:
    counting the job after each of 50 chunks cost 4 s of a million users).
    """
    where = audience_filter(audience, now, after, upto)
    rows = select(literal(job_id), User.id, literal(PENDING), variant_of_user(variants)).where(*where).order_by(User.id)
    stmt = ignoring_duplicates(insert(I).from_select(["job_id", "user_id", "status", "variant"], rows))
    inserted = db.session.execute(stmt).rowcount
    return count_items(job_id) if count else inserted


def count_items(job_id: int) -> int:
    """Count a job's items (whatever their status)."""
    return db.session.execute(select(func.count()).select_from(I).where(I.job_id == job_id)).scalar_one()


def user_id_after(after: int | None, n: int) -> int | None:
    """Return the id of the n-th user after `after` in id order, or None when fewer remain (a chunk's end).

    Reads the primary key alone: the chunks of a population are id ranges of
    n users each, whatever gaps Telegram ids have.
    """
    query = select(User.id).order_by(User.id).offset(n - 1).limit(1)
    if after is not None:
        query = query.where(User.id > after)
    return db.session.execute(query).scalar()


def delete_some(job_id: int, limit: int) -> int:
    """Delete up to limit of a job's items in one short statement; return how many.

    No ORDER BY: the first entries of the job's (job_id, ...) index are the
    cheapest to find, and which items go first does not matter.
    """
    ids = [r[0] for r in db.session.execute(select(I.id).where(I.job_id == job_id).limit(limit))]
    if not ids:
        return 0
    return db.session.execute(delete(I).where(I.id.in_(ids)).execution_options(synchronize_session=False)).rowcount


def _retry_rows(job_id: int | None, source_id: int, statuses: tuple[str, ...]) -> list:
    """Return the WHERE of the source items a retry takes (shared by the retry and its count on screen)."""
    other = aliased(I)
    held = (select(other.id).join(BroadcastJob, BroadcastJob.id == other.job_id)
            .where(BroadcastJob.retry_of == source_id, other.user_id == I.user_id))
    if job_id is not None:
        held = held.where(BroadcastJob.id != job_id)
    return [I.job_id == source_id, I.status.in_(statuses), User.is_blocked.is_(False), User.opted_out_at.is_(None),
            ~held.exists()]


def populate_retry(job_id: int, source_id: int, statuses: tuple[str, ...]) -> int:
    """Insert one pending item per source item in statuses, in one INSERT ... SELECT; return the count.

    Only the ledger decides: sent and skipped items never come back, nor users
    who blocked the bot or opted out since, nor users another retry of the
    source already holds (so retrying twice never sends twice). The caller
    locked the source job first, so two retries of it run one after the other.
    """
    # The variant comes over with the user: the retry sends each the language the source chose for them.
    rows = (select(literal(job_id), I.user_id, literal(PENDING), I.variant).join(User, User.id == I.user_id)
            .where(*_retry_rows(job_id, source_id, statuses)).order_by(I.id))
    db.session.execute(insert(I).from_select(["job_id", "user_id", "status", "variant"], rows))
    return db.session.execute(select(func.count()).select_from(I).where(I.job_id == job_id)).scalar_one()


def retry_candidates(source_id: int, statuses: tuple[str, ...]) -> dict[str, int]:
    """Count, by status, the source items a retry would take now (what the retry screen and buttons offer)."""
    rows = db.session.execute(select(I.status, func.count()).join(User, User.id == I.user_id)
                              .where(*_retry_rows(None, source_id, statuses)).group_by(I.status))
    return {status: n for status, n in rows}


def _copies(source_ids: list[int], deleted_by: list[int]) -> list:
    """Return the WHERE of the copies an action acts on: delivered by source_ids, with an id, not yet deleted.

    deleted_by: earlier unsend jobs of the same broadcast; a copy one of them
    deleted (sent) or found gone is no longer there to delete or edit. The
    NOT EXISTS reads their (job_id, user_id) unique index, one probe per copy.
    """
    where = [I.job_id.in_(source_ids), I.status == SENT, I.message_id.is_not(None)]
    if deleted_by:
        done = aliased(I)
        where.append(~select(done.id).where(done.job_id.in_(deleted_by), done.user_id == I.user_id,
                                            done.message_id == I.message_id,
                                            done.status.in_((SENT, GONE))).exists())
    return where


copies_where = _copies  # the copies an action reaches, for app.repository.action_population


def populate_action(job_id: int, source_ids: list[int], deleted_by: list[int] = (),
                    variants: Iterable[str | None] | None = None) -> int:
    """Insert one pending item per copy the sources delivered that is still there (one INSERT ... SELECT).

    An action job (unsend, edit) acts on the copies a broadcast and its
    retries delivered: only the ledger's sent items with a recipient message
    id come over, less the copies an earlier unsend already deleted. A retry
    never holds a user another job of the broadcast delivered to, so each
    user has at most one copy here. variants (None: all): only copies of
    these language variants (None in it: the default's), each keeping its variant.
    """
    where = _copies(list(source_ids), list(deleted_by))
    if variants is not None:
        where.append(variant_in(variants))
    rows = (select(literal(job_id), I.user_id, literal(PENDING), I.message_id, I.message_ids, I.variant)
            .where(*where).order_by(I.id))
    db.session.execute(insert(I).from_select(["job_id", "user_id", "status", "message_id", "message_ids",
                                              "variant"], rows))
    return db.session.execute(select(func.count()).select_from(I).where(I.job_id == job_id)).scalar_one()


def variant_in(variants: Iterable[str | None]):
    """Return the condition "the item's variant is one of these" (None: the default, stored NULL)."""
    variants = list(variants)
    codes = [v for v in variants if v]
    either = [I.variant.in_(codes)] if codes else []
    if None in variants or "" in variants:
        either.append(or_(I.variant.is_(None), I.variant == ""))
    return or_(*either) if either else literal(False)


def sent_window(source_ids: list[int], deleted_by: list[int] = (),
                variants: Iterable[str | None] | None = None) -> tuple[int, object]:
    """Return (copies an action would act on, the newest one's sent_at) of a broadcast and its retries."""
    where = _copies(list(source_ids), list(deleted_by))
    if variants is not None:
        where.append(variant_in(variants))
    row = db.session.execute(select(func.count(), func.max(I.sent_at)).where(*where)).one()
    return row[0], row[1]


def copies_by_variant(source_ids: list[int], deleted_by: list[int] = ()) -> dict[str | None, int]:
    """Count the copies still there per language variant ({code or None: n}): what an edit per variant reaches."""
    rows = db.session.execute(select(I.variant, func.count())
                              .where(*_copies(list(source_ids), list(deleted_by))).group_by(I.variant))
    out: dict[str | None, int] = {}
    for code, n in rows:
        out[code or None] = out.get(code or None, 0) + n
    return out
