"""Turn one webhook update into handled work, exactly once per update_id.

Policy:
- The update_id is inserted into processed_updates first, in the same
  transaction as the handler's database effects, so both commit or neither.
  A duplicate id fails that insert (on MySQL a concurrent duplicate waits for
  the first delivery's commit) and the update is acknowledged as "duplicate".
- An update whose user or chat ids are not plain integers in range (`true`,
  `1001.0`, `0`, a negative user id, 2**70) is ignored before anything
  touches the database (app/bot/update_ids.py): 200, logged, nothing stored.
- A database outage (app/bot/outage.py: lost or refused connection, locked
  SQLite file, lock timeout...) rolls back and propagates: the webhook
  answers 503, nothing is recorded, and Telegram delivers the update again.
- Any other exception (a data error the update caused, such as MariaDB's
  1364, or a bug in a handler) is logged, its effects are rolled back, the
  update_id alone is recorded and the webhook answers 200, so one poisoned
  update cannot jam the queue. If even that record fails, the database is
  what is broken: the error propagates and the webhook answers 503.
- One SELECT reads the settings and the sender's users row together; the
  row stays in the session, so the admin check and the handlers' lookups
  of it cost nothing more.
- Every handled update moves its user's last_seen_at forward (at most once
  per few minutes: one primary-key UPDATE, in the update's transaction, only
  when the row read shows it stale; /start's own upsert writes it anyway).
- Telegram I/O happens only after commit (BotContext.finish): no transaction
  is ever held open across an HTTP call.
"""
from __future__ import annotations

import logging

from flask import current_app
from sqlalchemy.exc import DBAPIError, IntegrityError
from telegram import Update

from app.bot import router
from app.bot.context import REPLY_CHAT_WAIT, BotContext
from app.bot.outage import error_code, is_outage
from app.bot.update_ids import bad_id
from app.extensions import db
from app.services import telegram_factory, updates, users
from app.services.settings import load_with_user
from app.texts import lang_of

log = logging.getLogger(__name__)
HANDLED, DUPLICATE, IGNORED, ERROR = "handled", "duplicate", "ignored", "error"


def process_update(data: dict) -> str:
    """Process one update and return "handled", "duplicate", "ignored" or "error"."""
    where = bad_id(data)
    if where is not None:
        log.warning("update %s ignored: %s is not a valid id", data.get("update_id"), where)
        return IGNORED
    update = parse_update(data)
    if update is None:
        return IGNORED
    try:
        handler = router.select(update, current_app.config.get("MAIN_CHANNEL_ID"))
    except (AttributeError, TypeError, ValueError):
        # A shape Telegram never sends: nothing to do, and no 500 to make it redeliver.
        log.warning("update %s ignored: malformed", update.update_id, exc_info=True)
        return IGNORED
    if handler is None:
        log.debug("update %s ignored: nothing handles it", update.update_id)
        return IGNORED
    if not claim(update.update_id):
        return DUPLICATE
    claimed_in = db.session().get_transaction()
    ctx = None
    try:
        ctx = build_context(update, data)
        if not router.writes_last_seen(update):
            # Every handled update counts as activity ("active within N days" audiences), before its handler.
            note_seen(ctx, seen_user_id(update))
        handler(ctx)
        keep_claim(update.update_id, claimed_in)
        db.session.commit()
    except Exception as exc:
        db.session.rollback()
        if is_outage(exc):
            raise
        if isinstance(exc, DBAPIError):
            # The update's own data (one line: the driver's text may quote it, and the SQL its values).
            log.warning("update %s: data error (%s); recorded as processed", update.update_id, error_code(exc))
        else:
            log.exception("update %s: handler failed; recorded as processed", update.update_id)
        updates.record_alone(update.update_id)
        if ctx is not None:
            ctx.abandon()
        return ERROR
    try:
        ctx.finish()
    except Exception:
        # Committed already: a redelivery would only be a duplicate, so never answer 5xx here.
        log.exception("update %s: after-commit phase failed", update.update_id)
    return HANDLED


def seen_user_id(update: Update) -> int | None:
    """Return the user whose activity the update shows.

    A channel's chat_member update comes from whoever made the change (a
    channel admin adding or removing someone): the activity is the member's.
    """
    if update.chat_member is not None:
        return update.chat_member.new_chat_member.user.id
    user = update.effective_user
    return user.id if user else None


def parse_update(data: dict) -> Update | None:
    """Parse with PTB; junk shapes are logged and ignored rather than failing the webhook."""
    try:
        return Update.de_json(data, None)
    except Exception as exc:
        log.warning("update %s ignored: cannot parse (%s)", data.get("update_id"), type(exc).__name__)
        return None


def claim(update_id: int) -> bool:
    """Insert the update_id in a new transaction; False (rolled back) when it is a duplicate."""
    try:
        updates.claim_update(update_id)
    except IntegrityError:
        db.session.rollback()
        log.info("update %s is a duplicate delivery; ignored", update_id)
        return False
    except BaseException:
        db.session.rollback()
        raise
    return True


def keep_claim(update_id: int, claimed_in) -> None:
    """Insert the id again if the handler committed (the engine does) or rolled back on its own: the claim may be gone.

    While the claim's transaction is still the session's, it holds the id: no statement.
    """
    if db.session().get_transaction() is not claimed_in:
        updates.ensure_claimed(update_id)


def note_seen(ctx: BotContext, seen: int | None) -> None:
    """Move the seen user's last_seen_at (at most once per few minutes; no statement while the row read is recent)."""
    if seen is None:
        return
    row = ctx.sender_row if seen == ctx.user_id else None
    if row is not None:
        users.touch_loaded(row)
    elif seen != ctx.user_id:
        users.touch(seen)  # a channel member changed by someone else: not the row read


def build_context(update: Update, data: dict) -> BotContext:
    """Collect settings and the sender's row (one read), the Telegram client and a fresh outbox for one update."""
    user = update.effective_user
    settings, row = load_with_user(user.id if user else None)
    client = telegram_factory.get_client(settings)
    admin_ids = frozenset(current_app.config.get("ADMIN_IDS") or ())
    return BotContext(
        update=update, raw=data, settings=settings, client=client,
        outbox=telegram_factory.new_outbox(client, chat_wait=REPLY_CHAT_WAIT),
        admin_ids=admin_ids,
        main_channel_id=current_app.config.get("MAIN_CHANNEL_ID"),
        lang=lang_of(user.language_code if user else None),
        sender_row=row, sender_read=user is not None,
        # The row read answers the admin check: no lookup of its own.
        _is_admin=None if user is None else (user.id in admin_ids or bool(row is not None and row.is_admin)),
    )

