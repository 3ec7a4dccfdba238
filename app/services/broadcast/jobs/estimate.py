"""How long a new broadcast would take at the current budget, queue included (pure arithmetic plus one read).

It follows the pump's slot model (app.services.broadcast.sending.slots): a send of k
parts takes k slots of the job's own rate and books 2k - 1 slots of the
bot-wide lane, so an album goes at the slower of the two. An album's keyboard
message is one more part, and its send holds its thread for its chat's pace
too (sending/follow_up.py): the window's threads then bound the rate.
"""
from __future__ import annotations

import json
import math

from app.models.broadcast import ACTION_KINDS, CONTENT_ALBUM
from app.repository import broadcast_jobs as jobs_repo
from app.services.broadcast.content import keyboard
from app.services.broadcast.schedule.send_time import to_persian_digits
from app.services.broadcast.sending import follow_up, slots
from app.texts import t

# Items still to send, by (paid, messages per send, an album's keyboard message after them).
Ahead = dict[tuple[bool, int, bool], int]
# Telegram bills a paid broadcast per successful request beyond its regular
# limits (TransactionPartnerTelegramApi.request_count), 0.1 Star each: failed
# sends, edits, deletes and replies (none carries allow_paid_broadcast) are free
# (star_amount.PER_PAID_MESSAGE, in whole nanostars).
# Telegram's regular bot-wide limit: the paid requests that fit within it are not billed.
REGULAR_PER_SECOND = 30
# What a broadcast costs the database (what a host's "queries per hour" counts, commits included),
# measured by bench.compare (docs/PERFORMANCE.md, "Database statements per message"), rounded up:
# each block (its transaction of claim, outcomes and counters, its bookings of slots and chats), each
# send (claim reads, failures, blocked users), each second (progress texts and edits, cron's reads).
# They must follow the engine when it changes.
BLOCK_STATEMENTS = 8.0
STATEMENTS_PER_SEND = 0.05
STATEMENTS_PER_SECOND = 4.0
# Under a cap, broadcasts take this share of it: the rest is for webhook updates, replies and cron.
CAP_SHARE_FOR_BROADCASTS = 0.8
# Under a cap too low for even that, a broadcast still sends this many messages a second.
MIN_CAPPED_RATE = 0.5


def send_rate(settings: dict, paid: bool) -> float:
    """Return the messages per second a job sends at: paid has its own lane, free shares the bot-wide cap.

    Under a host's cap on database statements (db_statements_per_hour) a job
    sends no faster than the cap allows with its longest blocks
    (statement_cap_rate): the pump's own rate and every estimate come from here.
    """
    return min(telegram_rate(settings, paid), statement_cap_rate(settings, paid))


def telegram_rate(settings: dict, paid: bool) -> float:
    """Return the messages per second Telegram's limits and the rate settings allow a job."""
    if paid:
        return float(settings["broadcast_paid_rate_per_second"])
    return float(min(settings["broadcast_rate_per_second"], settings["telegram_rate_per_second"]))


def statements_per_second(rate: float, block_sends: int) -> float:
    """Return the statements a second a broadcast sending at ``rate`` in blocks of ``block_sends`` costs."""
    return rate * (BLOCK_STATEMENTS / block_sends + STATEMENTS_PER_SEND) + STATEMENTS_PER_SECOND


def _cap_per_second(settings: dict) -> float:
    """Return the statements a second broadcasts may use under the host's cap (inf: no cap)."""
    cap = settings.get("db_statements_per_hour") or 0
    return cap * CAP_SHARE_FOR_BROADCASTS / 3600 if cap > 0 else math.inf


def statement_cap_rate(settings: dict, paid: bool) -> float:
    """Return the messages per second a host's statements-per-hour cap leaves a broadcast (inf: no cap).

    At the longest blocks; never below MIN_CAPPED_RATE (a cap that leaves
    less is mostly spent on the pump's own per-second work: it still sends).
    """
    room = _cap_per_second(settings) - STATEMENTS_PER_SECOND
    if room == math.inf:
        return math.inf
    return max(room / (BLOCK_STATEMENTS / slots.MAX_BLOCK_SENDS + STATEMENTS_PER_SEND), MIN_CAPPED_RATE)


def block_sends(settings: dict, paid: bool) -> int:
    """Return the fewest sends a block must hold so the broadcast stays under the host's cap (1: no cap).

    Longer blocks share one transaction and one booking among more sends:
    a reply then waits behind up to that block, the price of the cap.
    """
    rate = send_rate(settings, paid)
    room = _cap_per_second(settings) - STATEMENTS_PER_SECOND - STATEMENTS_PER_SEND * rate
    if room == math.inf or rate <= 0:
        return 1
    if room <= 0:
        return slots.MAX_BLOCK_SENDS
    return min(slots.MAX_BLOCK_SENDS, max(1, math.ceil(BLOCK_STATEMENTS * rate / room)))


def capped_by_statements(settings: dict, paid: bool) -> bool:
    """True when the host's statement cap, not Telegram's rate, is what paces a broadcast."""
    return statement_cap_rate(settings, paid) < telegram_rate(settings, paid)


def lane_rate(settings: dict, paid: bool) -> float:
    """Return the slots per second of the bot-wide lane a job books its sends on."""
    return float(settings["broadcast_paid_rate_per_second" if paid else "telegram_rate_per_second"])


def send_seconds(parts: int, paid: bool, settings: dict, follow: bool = False,
                 call_seconds: float | None = None) -> float:
    """Return the seconds one recipient's send of `parts` messages (and `follow`, a keyboard message) takes.

    As the pump's Booker spaces them: the keyboard message is one more part,
    and the send holds one of the window's threads for its calls
    (``call_seconds``, the process's typical call; None: not timed yet) and
    its chat's pace (follow_up.thread_seconds).
    """
    window = settings["broadcast_paid_concurrency" if paid else "broadcast_concurrency"]
    thread = follow_up.thread_seconds(call_seconds, follow, paced=not paid) or 0.0
    return slots.seconds_per_send(parts + follow, send_rate(settings, paid), lane_rate(settings, paid), thread, window)


def estimate_seconds(recipients: int, parts: int, paid: bool, settings: dict, ahead: Ahead, follow: bool = False,
                     call_seconds: float | None = None) -> float:
    """Return seconds until `recipients` sends of `parts` messages each are done, after the jobs ahead of it.

    ``follow``: an album's keyboard message after each; the last one waits
    its chat's pace after its album, so the job ends that much later (a job
    ahead's last second is not counted: its items left are all Ahead holds).
    """
    waiting = sum(n * send_seconds(job_parts, job_paid, settings, job_follow, call_seconds)
                  for (job_paid, job_parts, job_follow), n in ahead.items())
    tail = follow_up.CHAT_SECONDS if follow and recipients and not paid else 0.0
    return waiting + recipients * send_seconds(parts, paid, settings, follow, call_seconds) + tail


def paid_messages(recipients: int, settings: dict) -> tuple[int, int]:
    """Return how many messages a paid broadcast to ``recipients`` is billed for: (likely, at most).

    At most: every recipient up to the job's paid cap, each delivered (the
    balance must cover this). Likely: less the ~30 a second that fit within
    the regular limits while it sends at the paid rate (a recipient who
    blocked the bot meanwhile lowers it further).
    """
    most = min(recipients, settings["broadcast_paid_max_messages"])
    within = math.floor(REGULAR_PER_SECOND * most / settings["broadcast_paid_rate_per_second"])
    return most - min(within, most), most


def pending_ahead() -> Ahead:
    """Return the items queued and running jobs still have to send, by paid flag and the shape of a send."""
    ahead: Ahead = {}
    for paid, kind, content_type, ids, kb, left in jobs_repo.pending_ahead():
        if left:
            key = (paid, parts_per_send(kind, content_type, ids), follows(kind, content_type, kb))
            ahead[key] = ahead.get(key, 0) + left
    return ahead


def parts_per_send(kind: str, content_type: str, source_message_ids: str | None) -> int:
    """Return the messages one item of a job sends: an album's parts; one for anything else and every action."""
    if content_type != CONTENT_ALBUM or kind in ACTION_KINDS or not source_message_ids:
        return 1  # an unsend or edit of an album is one call per recipient
    return len(json.loads(source_message_ids)) or 1


def follows(kind: str, content_type: str, raw_keyboard: str | dict | None) -> bool:
    """True when each send is an album followed by its keyboard message (content/methods.message_params)."""
    kb = keyboard.load(raw_keyboard) if isinstance(raw_keyboard, str) else raw_keyboard
    return content_type == CONTENT_ALBUM and kind not in ACTION_KINDS and bool(kb)


def format_estimate(seconds: float, lang: str) -> str:
    """Render a duration as "≈ 12 min" / "≈ ۱۲ دقیقه" (seconds under a minute, hours and minutes past one)."""
    seconds = max(math.ceil(seconds), 1)
    if seconds < 60:
        text = t("dur_seconds", lang, n=seconds)
    elif seconds < 3600:
        text = t("dur_minutes", lang, n=math.ceil(seconds / 60))
    else:
        hours, minutes = divmod(math.ceil(seconds / 60), 60)
        text = t("dur_hours", lang, h=hours, m=minutes)
    return "≈ " + (to_persian_digits(text) if lang == "fa" else text)
