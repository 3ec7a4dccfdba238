"""Run a short write transaction again when MySQL chose it as a deadlock's victim.

InnoDB breaks a lock cycle by rolling back one whole transaction (error
1213) and MySQL's manual asks applications to run it again: nothing of it
was kept, so a second run starts from the same state as the first. Only
deadlocks are retried. A lock wait timeout (1205) rolls back one statement,
not the transaction, and already cost its caller the whole wait; SQLite
has one writer at a time and no deadlock of this kind.
"""
from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import TypeVar

from sqlalchemy.exc import DBAPIError

from app.db_errors import mysql_code
from app.extensions import db

log = logging.getLogger(__name__)

DEADLOCK = 1213
ATTEMPTS = 4
# Waits before the 2nd, 3rd and 4th run: long enough for the winner's short transaction to commit.
BACKOFF_SECONDS = (0.02, 0.1, 0.3)

T = TypeVar("T")


def is_deadlock(exc: BaseException) -> bool:
    """Tell whether exc is MySQL's 'Deadlock found when trying to get lock'."""
    return isinstance(exc, DBAPIError) and mysql_code(exc) == DEADLOCK


def in_transaction(work: Callable[[], T], *, attempts: int = ATTEMPTS, sleep=time.sleep) -> T:
    """Run work() in a fresh transaction and commit; run it again if it was a deadlock's victim.

    work must do all of the transaction's writes and nothing outside the
    database (no message sent): a second run repeats it whole.
    """
    db.session.commit()  # work's transaction starts here, not in whatever the caller read before
    for attempt in range(1, attempts + 1):
        try:
            result = work()
            db.session.commit()
            return result
        except DBAPIError as exc:
            db.session.rollback()
            if not is_deadlock(exc) or attempt == attempts:
                raise
            log.info("deadlock on attempt %s of %s; running the transaction again", attempt, attempts)
            sleep(BACKOFF_SECONDS[min(attempt, len(BACKOFF_SECONDS)) - 1])
    raise AssertionError("unreachable")
