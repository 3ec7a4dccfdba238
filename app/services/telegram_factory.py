"""One Telegram client per process and configuration, shared by all threads."""
from __future__ import annotations

import atexit
import logging
import threading
import time
from dataclasses import dataclass

from flask import current_app

from app.extensions import db
from app.models.telegram_budget import FREE, PAID
from app.repository.budget.engine import budget_engine
from app.services.broadcast.jobs.estimate import send_rate
from app.services.budget.chats import SharedChatPacer
from app.services.budget.clock import BudgetClock
from app.services.budget.jitter import JitterGauge
from app.services.budget.lane import SharedRateLimiter
from app.telegram.client import TelegramClient
from app.telegram.outbox import Outbox
from app.telegram.pacing import RateLimiter

# Enough keep-alive connections for the largest allowed concurrency plus replies.
POOL_SIZE = 136
# A sender may catch up about this much time's worth of missed slots (burst_for).
BURST_SECONDS = 0.02
FREE_RECHECK_SECONDS = 0.005
# A free-lane slot used more than this fraction of its interval late (10 ms
# at 29/s) is booked again: Telegram's limit is one slot above the cap, so
# sends that a stalled thread lets bunch up would cross it.
FREE_MAX_LATENESS = 0.3
# A reply's busy window beyond its connect and read timeouts (the thread's own scheduling).
REPLY_SLACK = 0.5
# Telegram takes up to this many paid broadcast messages a second (allow_paid_broadcast).
PAID_LIMIT = 1000
# A process that exits (a gunicorn worker stopped or recycled, a Passenger
# process stopped when idle) first sends what its late outbox holds, for at
# most this long: a full chat (ADOPTED_PER_CHAT replies, 1.25 s apart) fits,
# well inside gunicorn's graceful timeout (30 s by default, 60 s in deploy/systemd).
LATE_EXIT_SECONDS = 10.0
log = logging.getLogger(__name__)
_lock = threading.Lock()
_clients: dict[tuple, TelegramClient] = {}
_shared: dict[tuple, SharedPacing] = {}
_late: dict[int, Outbox] = {}
_exit_registered = False


@dataclass
class SharedPacing:
    """The bot-wide pacing every client of this process draws from, kept in the database."""

    free: SharedRateLimiter
    paid: SharedRateLimiter
    chats: SharedChatPacer | None


def get_client(settings: dict, *, paid: bool = False) -> TelegramClient:
    """Return this process's free (or paid) client for the app's token and the given settings.

    Every counted call of every client draws from one bot-wide budget in the
    database (telegram_rate_per_second, shared by every process); a paid
    client's broadcast sends draw from the paid lane instead. The paid client
    is a separate object, so asking for the free one never changes a running
    paid pump's rate. Both share one per-chat pacer, also in the database.
    """
    cfg = current_app.config
    key = (
        cfg["TELEGRAM_API_BASE_URL"], cfg["TELEGRAM_BOT_TOKEN"],
        settings["telegram_connect_timeout"], settings["telegram_read_timeout"],
        settings["telegram_max_retries"],
    )
    cap = settings["telegram_rate_per_second"]
    paid_rate = settings["broadcast_paid_rate_per_second"]
    # A broadcast takes at most its own share of the cap (the cap when unset higher).
    rate = send_rate(settings, paid)
    with _lock:
        shared = _shared_pacing(cfg["TELEGRAM_BOT_TOKEN"], cap, paid_rate)
        client = _clients.get((*key, paid))
        if client is None:
            client = TelegramClient(
                cfg["TELEGRAM_BOT_TOKEN"], cfg["TELEGRAM_API_BASE_URL"],
                connect_timeout=settings["telegram_connect_timeout"],
                read_timeout=settings["telegram_read_timeout"],
                max_retries=settings["telegram_max_retries"],
                pool_size=POOL_SIZE,
                rate_limiter=RateLimiter(rate, burst_for(rate)), chat_pacer=shared.chats,
            )
            client.budget = shared.free
            client.broadcast_budget = shared.paid if paid else shared.free
            client.pace_recipients = not paid
            _clients[(*key, paid)] = client
    client.rate_limiter.set_rate(rate, burst_for(rate))
    # How long another process must assume this one's replies may stay unanswered (reserve's busy window).
    shared.free.busy_for = settings["telegram_connect_timeout"] + settings["telegram_read_timeout"] + REPLY_SLACK
    return client


def _shared_pacing(token: str, cap: float, paid_rate: float) -> SharedPacing:
    """Return the process's shared pacing for this database and bot (caller holds the lock)."""
    engine = budget_engine(db.engine)
    key = (engine.url.render_as_string(hide_password=False), token)
    shared = _shared.get(key)
    if shared is None:
        clock = BudgetClock(engine)
        shared = _shared[key] = SharedPacing(
            # Free lane (≤ 30/s): confirm every slot against the shared 429 hold
            # (a read per call at most; none for a pump's block while it is the
            # bot's only sender, Booking.quiet), and refuse slots a stalled thread
            # would use late. The paid lane (up to 1000/s) reads the hold every 0.1 s.
            # Its slots also spread apart as far as the calls' measured arrival jitter needs (JitterGauge).
            SharedRateLimiter(engine, cap, FREE, recheck=FREE_RECHECK_SECONDS, max_lateness=FREE_MAX_LATENESS,
                              db_clock=clock, jitter=JitterGauge()),
            None,
            SharedChatPacer(engine, db_clock=clock),
        )
        # The paid lane's margin is against Telegram's paid limit (1000/s), not its own rate + 1. Who
        # else is busy on the bot is told by the free lane's row, where replies book.
        shared.paid = SharedRateLimiter(engine, paid_rate, PAID, db_clock=clock, jitter=JitterGauge(),
                                        limit=PAID_LIMIT, activity=shared.free)
    shared.free.set_rate(cap)
    shared.paid.set_rate(paid_rate)
    return shared


def burst_for(rate: float) -> int:
    """Return the slots a sender may catch up after missing some: about 20 ms worth, at least one.

    With burst 1 every slot that passes while all sends are in flight (latency
    jitter) or while the pump thread commits is lost for good. Any 1 s window
    still holds at most rate + burst - 1 broadcast slots, and the bot-wide
    budget (no credit at all) caps the sum of every kind of call.
    """
    return max(2, int(rate * BURST_SECONDS))


def new_outbox(client: TelegramClient, chat_wait: float | None = None) -> Outbox:
    """Return a fresh outbox for one request (chat_wait: how long a reply waits for a busy chat) or one pump."""
    return Outbox(client, chat_wait=chat_wait)


def late_outbox(client: TelegramClient) -> Outbox:
    """Return this process's outbox for admins' replies a request could not wait for; sent by its thread or at exit."""
    with _lock:
        outbox = _late.get(id(client))
        if outbox is None:
            _register_exit_flush()
            outbox = _late[id(client)] = Outbox(client)
            outbox.start()
        return outbox


def _register_exit_flush() -> None:
    """Register flush_late_at_exit once, in the process that holds the replies (caller holds the lock).

    atexit, not a non-daemon thread: the interpreter joins those before atexit
    runs, and the late outbox's thread only stops when asked.
    """
    global _exit_registered
    if not _exit_registered:
        atexit.register(flush_late_at_exit)
        _exit_registered = True


def flush_late_at_exit() -> None:
    """Send what the late outboxes hold before the process exits, within LATE_EXIT_SECONDS (atexit)."""
    with _lock:
        waiting = sum(outbox.pending() for outbox in _late.values())
    if waiting:
        log.info("process exiting: sending %d late replies first (at most %.0f s)", waiting, LATE_EXIT_SECONDS)
    dropped = close_late(time.monotonic() + LATE_EXIT_SECONDS)
    if dropped:
        log.warning("process exiting: %d late replies did not fit %.0f s and were dropped",
                    dropped, LATE_EXIT_SECONDS)


def close_late(deadline: float) -> int:
    """Close and forget the late outboxes after a flush bounded by deadline; return the replies dropped."""
    with _lock:
        late = list(_late.values())
        _late.clear()
    return sum(outbox.close(deadline=deadline) for outbox in late)


def reset_clients() -> None:
    """Close and forget every client (tests, and after a token rotation)."""
    close_late(time.monotonic())
    with _lock:
        for client in _clients.values():
            client.close()
        _clients.clear()
        _shared.clear()
