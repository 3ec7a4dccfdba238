"""Item rows: population, claiming, in-flight marks and outcomes.

A pump only touches items after fence() in the same transaction proved it
holds the job's lease, so no two pumps ever write the same job's items.
"""
from __future__ import annotations

import json
from collections.abc import Iterable
from datetime import datetime, timedelta
from functools import lru_cache

from sqlalchemy import (
    DateTime,
    String,
    and_,
    bindparam,
    case,
    delete,
    false,
    func,
    insert,
    literal,
    not_,
    or_,
    select,
    text,
    update,
)
from sqlalchemy.orm import aliased

from app.clock import utcnow
from app.extensions import db
from app.models.audience import Audience
from app.models.base import fit
from app.models.broadcast import (
    GONE,
    ITEM_FAILED,
    PENDING,
    SENDING,
    SENT,
    TERMINAL,
    UNKNOWN,
    BroadcastJob,
    BroadcastJobItem,
)
from app.models.user import CHANNEL_MEMBER, User
from app.repository.row_first import by_primary_key

I = BroadcastJobItem  # noqa: E741  (short alias keeps the SQL readable)
TABLE = BroadcastJobItem.__tablename__
_T = BroadcastJobItem.__table__
# The pump's claim read (a plain send's), built once: see _run_listed for why.
_NEXT_PENDING = (select(_T.c.id, _T.c.user_id)
                 .where(_T.c.job_id == bindparam("job_id"), _T.c.status == bindparam("pending"),
                        _T.c.id > bindparam("after"))
                 .order_by(_T.c.id).limit(bindparam("n")))


def _id_list(ids: Iterable[int]) -> str:
    """Return ids as an SQL list of integer literals (int() lets nothing else through)."""
    return ",".join(str(int(i)) for i in ids)


@lru_cache(maxsize=8)
def _datetime_processor(dialect):
    """Return how SQLAlchemy's DateTime binds a datetime for this dialect (SQLite: its text form), or None."""
    return DateTime().dialect_impl(dialect).bind_processor(dialect)


def _run_listed(sql: str, *values) -> int:
    """Run one UPDATE whose id lists are inlined integers, its values as ? markers; return the rows it matched.

    The pump's per-step writes name a different list of items each time (a
    paid broadcast runs ~70 steps a second): as SQLAlchemy expressions, building,
    cache-keying and compiling each one cost several times running it, so they
    go to the driver as SQL with the values bound by it, in the session's transaction.
    """
    conn = db.session.connection()
    dialect = conn.dialect
    if dialect.paramstyle != "qmark":  # PyMySQL: format / pyformat
        sql = sql.replace("?", "%s")
    to_db = _datetime_processor(dialect)
    if to_db is not None:
        values = tuple(to_db(v) if isinstance(v, datetime) else v for v in values)
    return conn.exec_driver_sql(sql, tuple(values)).rowcount


def audience_filter(audience: Audience | str, now: datetime | None = None) -> list:
    """Return the WHERE clause selecting an audience and its filters from users (no Telegram calls).

    The one place the audience becomes SQL: the count shown before confirming
    and populate() use it alike, so they cannot disagree.
    """
    aud = Audience.of(audience)
    # Opted-out users are no audience's members: every count and every job leaves them out alike.
    # "= false", not "IS FALSE": MariaDB reads an index range only for the former (is_blocked is NOT NULL).
    clause = [User.is_blocked == false(), User.opted_out_at.is_(None)]
    if aud.base == "members":
        clause.append(User.main_channel_status == CHANNEL_MEMBER)
    elif aud.base == "non_members":
        # Unknown counts as "not known to be a member": they get the invitation.
        clause.append(User.main_channel_status != CHANNEL_MEMBER)
    if aud.langs:
        clause.append(or_(*(_lang_is(lang) for lang in aud.langs)))
    now = now or utcnow()
    if aud.active_days is not None:
        clause.append(User.last_seen_at >= now - timedelta(days=aud.active_days))
    if aud.joined_days is not None:
        clause.append(User.started_at >= now - timedelta(days=aud.joined_days))
    if aud.sources:
        clause.append(User.start_source.in_(aud.sources))
    return clause


def _lang_is(lang: str):
    """Return the condition for one language choice (LIKE is case-insensitive on both databases)."""
    if lang == "other":
        code = User.language_code
        return or_(code.is_(None), and_(not_(code.like("fa%")), not_(code.like("en%"))))
    return User.language_code.like(f"{lang}%")


def count_audience(audience: Audience | str, now: datetime | None = None) -> int:
    """Count the users an audience would reach now."""
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


def populate(job_id: int, audience: Audience | str, now: datetime | None = None, variants: Iterable[str] = (),
             after: int | None = None, upto: int | None = None, count: bool = True) -> int:
    """Insert one pending item per audience member (user id in (after, upto] when given) by INSERT ... SELECT.

    Each item gets its recipient's language variant among `variants` (NULL:
    the default). Safe to run twice: UNIQUE(job_id, user_id) plus INSERT
    IGNORE / OR IGNORE drop the second copy. Returns the job's item count
    afterwards, or with count=False the rows this call inserted (a chunk:
    counting the job after each of 50 chunks cost 4 s of a million users).
    """
    where = audience_filter(audience, now)
    if after is not None:
        where.append(User.id > after)
    if upto is not None:
        where.append(User.id <= upto)
    rows = select(literal(job_id), User.id, literal(PENDING), variant_of_user(variants)).where(*where).order_by(User.id)
    stmt = (
        insert(I).from_select(["job_id", "user_id", "status", "variant"], rows)
        .prefix_with("IGNORE", dialect="mysql")
        .prefix_with("IGNORE", dialect="mariadb")
        .prefix_with("OR IGNORE", dialect="sqlite")
    )
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


def variant_tallies(job_id: int) -> dict[str | None, dict[str, int]]:
    """Count a job's items per language variant and status ({code or None: {status: n}})."""
    rows = db.session.execute(select(I.variant, I.status, func.count()).where(I.job_id == job_id)
                              .group_by(I.variant, I.status))
    out: dict[str | None, dict[str, int]] = {}
    for code, status, n in rows:
        per = out.setdefault(code or None, {})
        per[status] = per.get(status, 0) + n
    return out


def count_status(job_ids: list[int], status: str) -> int:
    """Count the items of job_ids in one status."""
    return db.session.execute(select(func.count()).select_from(I)
                              .where(I.job_id.in_(job_ids), I.status == status)).scalar_one()


def in_flight(job_ids: list[int]) -> int:
    """Count the items of job_ids still in flight (sending): their copies may still arrive."""
    return count_status(job_ids, SENDING)


def unknown_since(job_ids: list[int], since: datetime) -> tuple[int, datetime | None]:
    """Return (items of job_ids settled unknown at or after since, the newest one's settling time)."""
    row = db.session.execute(select(func.count(), func.max(I.sent_at))
                             .where(I.job_id.in_(job_ids), I.status == UNKNOWN, I.sent_at >= since)).one()
    return row[0], row[1]


def next_pending_targets(job_id: int, after_id: int, limit: int) -> list[tuple]:
    """Like next_pending_named, with each item's copy: (item id, user id, message id, part ids, first name, language).

    The copy is what an action job deletes or edits; part ids (a list) only
    for an album, None for items sent before they were recorded. The name
    serves an edit with a personal greeting; one join, as for a send.
    """
    rows = db.session.execute(
        select(I.id, I.user_id, I.message_id, I.message_ids, User.first_name, User.language_code, I.variant)
        .outerjoin(User, User.id == I.user_id)
        .where(I.job_id == job_id, I.status == PENDING, I.id > after_id).order_by(I.id).limit(limit)
    )
    return [(r[0], r[1], r[2], json.loads(r[3]) if r[3] else None, r[4], r[5], r[6]) for r in rows]


def next_pending(job_id: int, after_id: int, limit: int) -> list[tuple[int, int]]:
    """Return up to limit (item id, user id) pending items after after_id, in id order."""
    rows = db.session.execute(_NEXT_PENDING, {"job_id": job_id, "pending": PENDING, "after": after_id, "n": limit})
    return [(r[0], r[1]) for r in rows]


def next_pending_variants(job_id: int, after_id: int, limit: int) -> list[tuple[int, int, str | None]]:
    """Like next_pending, with each item's language variant: (item id, user id, variant or None)."""
    rows = db.session.execute(
        select(I.id, I.user_id, I.variant).where(I.job_id == job_id, I.status == PENDING, I.id > after_id)
        .order_by(I.id).limit(limit)
    )
    return [(r[0], r[1], r[2] or None) for r in rows]


def next_pending_named(job_id: int, after_id: int, limit: int) -> list[tuple]:
    """Like next_pending, with each recipient's first name and language (personal greetings); one join.

    Rows are (item id, user id, first name, language code, variant).
    """
    rows = db.session.execute(
        select(I.id, I.user_id, User.first_name, User.language_code, I.variant).outerjoin(User, User.id == I.user_id)
        .where(I.job_id == job_id, I.status == PENDING, I.id > after_id).order_by(I.id).limit(limit)
    )
    return [(r[0], r[1], r[2], r[3], r[4]) for r in rows]


def mark_sending(ids: list[int]) -> int:
    """pending -> sending for items about to be dispatched."""
    if not ids:
        return 0
    return _run_listed(f"UPDATE {TABLE} SET status = ? WHERE id IN ({_id_list(ids)}) AND status = ?", SENDING, PENDING)


def set_done(ids: list[int], now: datetime) -> int:
    """sending -> sent for an action job's items, keeping each item's message id (the copy acted on)."""
    if not ids:
        return 0
    stmt = update(I).where(I.id.in_(ids), I.status == SENDING).values(status=SENT, error=None, sent_at=now)
    return db.session.execute(stmt.execution_options(synchronize_session=False)).rowcount


def set_sent(sent: list[tuple[int, int | None]], now: datetime,
             parts: dict[int, Iterable[int]] | None = None, settled_since: datetime | None = None) -> int:
    """sending -> sent, each item with its own message id (an album: its parts' ids too), in one UPDATE.

    One statement per batch however wide the window (an executemany would be
    one round trip per item on PyMySQL): a CASE on the id per column, written
    as the driver's SQL (see _run_listed). The status guard makes a replay of
    the same plan change nothing, so counters move by the rows really changed.
    settled_since: a late answer instead; unknown -> sent for items settled
    unknown at or after it (a pump that lost its lease heard back after all).
    """
    if not sent:
        return 0
    guard, guard_values = ("status = ?", (SENDING,)) if settled_since is None else (
        "status = ? AND sent_at >= ?", (UNKNOWN, settled_since))
    known = [f"WHEN {int(item_id)} THEN {int(message_id)}" for item_id, message_id in sent if message_id is not None]
    message_id = f"CASE id {' '.join(known)} ELSE NULL END" if known else "NULL"
    albums = [(int(item_id), json.dumps(list(part_ids))) for item_id, part_ids in (parts or {}).items()]
    message_ids = f"CASE id {' '.join(f'WHEN {i} THEN ?' for i, _ in albums)} ELSE NULL END" if albums else "NULL"
    ids = _id_list(item_id for item_id, _ in sent)
    return _run_listed(f"UPDATE {TABLE} SET status = ?, error = NULL, sent_at = ?, message_id = {message_id}, "
                       f"message_ids = {message_ids} WHERE id IN ({ids}) AND {guard}",
                       SENT, now, *(part_ids for _, part_ids in albums), *guard_values)


def set_final(ids: list[int], status: str, now: datetime, error: str | None = None) -> int:
    """sending -> a final status (or back to pending) for items that share one outcome."""
    if not ids:
        return 0
    values = {"status": status, "error": fit(I.error, error or None)}
    if status in (SENT, UNKNOWN):
        values["sent_at"] = now  # unknown: when its answer was given up (a copy may still land after)
    stmt = update(I).where(I.id.in_(ids), I.status == SENDING).values(**values)
    return db.session.execute(stmt.execution_options(synchronize_session=False)).rowcount


def reopen_failed(ids: list[int]) -> int:
    """failed -> pending for items the circuit breaker judged not at fault."""
    if not ids:
        return 0
    stmt = update(I).where(I.id.in_(ids), I.status == ITEM_FAILED).values(status=PENDING, error=None)
    return db.session.execute(stmt.execution_options(synchronize_session=False)).rowcount


def expire_orphans(job_id: int, redo: bool = False, now: datetime | None = None) -> int:
    """sending -> unknown for items a dead pump left in flight, settled at now; never re-sent.

    Called by the new lease holder: any item still 'sending' belongs to a pump
    whose lease expired, and its request may or may not have reached Telegram.
    Its sent_at is when it was settled: a copy may still land a while after
    (app.services.broadcast.landing).
    redo (action jobs): a delete or an edit is safe to repeat, so they go back to pending.
    """
    values = {"status": PENDING, "error": None} if redo else {
        "status": UNKNOWN, "error": "outcome unknown: the pump sending it stopped", "sent_at": now}
    stmt = update(I).where(I.job_id == job_id, I.status == SENDING).values(**values)
    return db.session.execute(stmt.execution_options(synchronize_session=False)).rowcount


def last_item_id(job_id: int) -> int:
    """Return the job's highest item id (0 for none): the end of its ledger's id range."""
    return db.session.execute(select(func.max(I.id)).where(I.job_id == job_id)).scalar() or 0


def ledger_page(job_id: int, after_id: int, last_id: int, limit: int) -> list[tuple]:
    """Return up to limit ledger rows with after_id < id <= last_id, in id order (keyset pages).

    Rows: (item id, user id, username, status, error, sent_at, message_id, clicked_at, start_source, variant);
    a user row deleted since leaves the username and source empty. `job_id + 0` keeps
    both databases on the primary key's range: with the (job_id, user_id)
    index SQLite read and sorted the whole job for every page (quadratic).
    A job's items are inserted in a few large chunks, so the range holds little else.
    """
    rows = db.session.execute(
        select(I.id, I.user_id, User.username, I.status, I.error, I.sent_at, I.message_id, I.clicked_at,
               User.start_source, I.variant)
        .outerjoin(User, User.id == I.user_id)
        .where(I.id > after_id, I.id <= last_id, I.job_id + 0 == job_id).order_by(I.id).limit(limit))
    return [tuple(r) for r in rows]


# MySQL builds each CSV line itself (csv_ledger_page): PyMySQL decodes every column of every row in pure
# Python, 70 % of a 9-column export; one GROUP_CONCAT per page comes back as one value instead.
# Cells are handled as bytes (CAST AS BINARY): comparisons leave the collation out (utf8mb4_unicode_ci
# holds "，" = "," and INSTR there ignores case), and the tables' utf8mb4 bytes are the file's UTF-8.
GROUP_CONCAT_MAX = 64 << 20


class PageCut(ValueError):
    """MySQL returned a page's CSV lines cut short (group_concat_max_len or max_allowed_packet)."""


def _csv_cell(column: str, formula_codes: str) -> str:
    """Return SQL for one text cell as export.text_cell and the csv module write it (NULL as "")."""
    value = f"CAST(IFNULL({column}, '') AS BINARY)"
    # ASCII(): the first byte; a multi-byte UTF-8 character's is never an ASCII one.
    cell = f"IF(ASCII({value}) IN ({formula_codes}), CONCAT('''', {value}), {value})"
    # QUOTE_MINIMAL: quoted, its quotes doubled, only when it holds a comma, a quote, CR or LF.
    special = " OR ".join(f"INSTR({value}, {char}) > 0" for char in ("','", "'\"'", "CHAR(13)", "CHAR(10)"))
    return f"""IF({special}, CONCAT('"', REPLACE({cell}, '"', '""'), '"'), {cell})"""


def _csv_time(column: str) -> str:
    """Return SQL for a time cell as export._time writes it."""
    return f"IFNULL(CAST(DATE_FORMAT({column}, '%Y-%m-%d %H:%i:%s') AS BINARY), '')"


def csv_ledger_page(job_id: int, after_id: int, last_id: int, limit: int, formula_starts: Iterable[str],
                    default_variant: str | None) -> tuple[int, int, bytes] | None:
    """MySQL only: return (rows, last item id, CSV lines in UTF-8) of a ledger_page; None when it has no rows.

    The lines are those export.csv_chunks writes for the same rows (CRLF after each; with the variant
    column when default_variant is given: the label of a NULL or empty variant). Raise PageCut when
    MySQL cut the page short (group_concat_max_len, max_allowed_packet): the caller reads it row by row.
    """
    codes = ", ".join(str(ord(c)) for c in formula_starts)
    cells = [
        "CAST(i.user_id AS BINARY)", _csv_cell("u.username", codes), _csv_cell("i.status", codes),
        _csv_cell("i.error", codes), _csv_time("i.sent_at"),
        "IF(i.message_id <> 0, CAST(i.message_id AS BINARY), '')",  # `message_id or ""`: NULL and 0 give ""
        _csv_time("i.clicked_at"), _csv_cell("u.start_source", codes)]
    if default_variant is not None:
        cells.append(_csv_cell("IF(LENGTH(i.variant) > 0, i.variant, :default_variant)", codes))
    line = "CONCAT(" + ", ',', ".join(cells) + ", CHAR(13, 10))"
    db.session.execute(text("SET SESSION group_concat_max_len = :n"), {"n": GROUP_CONCAT_MAX})
    count, whole, last, size, lines = db.session.execute(text(
        "SELECT COUNT(*), COUNT(p.line), MAX(p.id), SUM(LENGTH(p.line)), "
        "GROUP_CONCAT(p.line ORDER BY p.id SEPARATOR '') "
        f"FROM (SELECT i.id, {line} AS line FROM {I.__tablename__} i "
        f"LEFT OUTER JOIN {User.__tablename__} u ON u.id = i.user_id "
        "WHERE i.id > :after AND i.id <= :last AND i.job_id + 0 = :job ORDER BY i.id LIMIT :limit) p"),
        {"after": after_id, "last": last_id, "job": job_id, "limit": limit,
         "default_variant": default_variant}).one()
    if not count:
        return None
    if lines is None or len(lines) != size or whole != count:  # GROUP_CONCAT would skip a NULL line
        raise PageCut(f"page after item {after_id} cut: {0 if lines is None else len(lines)} of {size} bytes")
    return count, last, bytes(lines)


def tallies(job_id: int) -> dict[str, int]:
    """Count the job's items by status (the source of truth counters are checked against)."""
    rows = db.session.execute(select(I.status, func.count()).where(I.job_id == job_id).group_by(I.status))
    return {status: n for status, n in rows}


def purgeable_jobs(before: datetime) -> list[int]:
    """Return the ids of jobs that ended before a cutoff and still hold items not sent after it, oldest first."""
    old = or_(I.sent_at.is_(None), I.sent_at < before)
    has_old = select(I.id).where(I.job_id == BroadcastJob.id, old).exists()
    query = (select(BroadcastJob.id).where(BroadcastJob.status.in_(TERMINAL), BroadcastJob.finished_at < before,
                                           has_old).order_by(BroadcastJob.id))
    return [r[0] for r in db.session.execute(query)]


def delete_finished_some(job_id: int, before: datetime, limit: int) -> int:
    """Delete up to limit of a finished job's items not sent after the cutoff, in one short statement.

    A cancelled job's last in-flight sends may record after its finished_at:
    the sent_at guard keeps those until they too are older than the cutoff.
    """
    old = or_(I.sent_at.is_(None), I.sent_at < before)
    ids = [r[0] for r in db.session.execute(select(I.id).where(I.job_id == job_id, old).limit(limit))]
    if not ids:
        return 0
    return db.session.execute(delete(I).where(I.id.in_(ids)).execution_options(synchronize_session=False)).rowcount


def block_users(user_ids: Iterable[int], now: datetime) -> None:
    """Mark users who blocked the bot so no future audience includes them."""
    ids = list(user_ids)
    if ids:
        stmt = by_primary_key(update(User).where(User.id.in_(ids), User.is_blocked.is_(False))
                              .values(is_blocked=True, blocked_at=now))
        db.session.execute(stmt.execution_options(synchronize_session=False))
