"""Rate slots of a broadcast: the pump's Booker books blocks of bot-wide slots and each block's chats.

A block is one statement on the bot-wide lane (and one, two on MySQL, for its
recipients' chats): the pump claims and marks a block's items in one
transaction, sends each at its slot, and writes their outcomes with the next
block's claim. The span rule (2k - 1 slots for an album of k parts, sent at
its middle: span_for, send_slots) lives with the bot-wide budget
(app.services.budget.spans), which never imports the broadcast package.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from app.services.broadcast.sending.stops import Stop
from app.services.budget.spans import send_slots, span_for

__all__ = ["BLOCK_SECONDS", "BUSY_BLOCK_SECONDS", "DUE_GRACE_SECONDS", "MAX_BLOCK_SENDS", "SLOT_HORIZON", "Block",
           "Booker", "Slot", "claimed_at_most", "seconds_per_send"]

# "Due now", with a millisecond's grace: the limiter reads the clock again
# after us, so a bare clock() would make every due slot look late.
DUE_GRACE_SECONDS = 0.001
# A block's length while the pump is alone on the bot: one booking, one claim
# and one write of outcomes cover a second of sends. A reply booked meanwhile
# goes right after the block (it waits at most this long behind the broadcast).
# The next block is claimed and booked once the last send is handed over.
BLOCK_SECONDS = 1.0
# A block's length while another process sends too (and for a pump's first
# block): a reply booked meanwhile waits behind at most this much of the
# broadcast, about what a window of sends in flight held before blocks.
BUSY_BLOCK_SECONDS = 0.2
# A block is booked to start at most this far ahead (others hold the lane
# longer: the pump waits, keeping its lease, and books again).
SLOT_HORIZON = 0.5
# A block holds at most this many sends (the paid lane's 1000/s): a crash
# leaves at most one block and the window 'unknown'.
MAX_BLOCK_SENDS = 100
# Sends in flight are limited to the window: with calls this much longer than
# the window's reach the block's slots are spread so each finds a free thread.
WINDOW_MARGIN = 1.2

# A pump whose sends are this close together books the bot-wide lane full (fills_lane).
LANE_FULL = 1.25

# A send's bot-wide slot: (its monotonic time, when it was booked).
Slot = tuple[float, float]


@dataclass(frozen=True)
class Block:
    """One booking's sends (each its slot), and whether no other process can hold the bot before them."""

    sends: list[Slot]
    quiet: bool = False


class Booker:
    """Books one pump's sends in blocks: bot-wide slots at its own rate, its recipients' chats, the late rule.

    The pump's thread calls book() and book_chats(); each send thread calls
    clear() right before its request. None of them touches the job's rows:
    waits keep the lease through ``keep`` and ``pause`` and give up when
    ``stopped`` names a stop the pump met meanwhile.
    """

    def __init__(self, parts: int, *, limiter, budget, chats, window: int, min_sends: int = 1,
                 busy_for: Callable[[], float],
                 call_seconds: Callable[[], float | None], clock: Callable[[], float],
                 sleep: Callable[[float], None], deadline: float, heartbeat: float,
                 keep: Callable[[], None], pause: Callable[[float], None], stopped: Callable[[], Stop | None]):
        # Messages one recipient's send puts out (an album's parts): each takes a rate slot.
        self.parts = parts
        self.span = span_for(parts)  # bot-wide slots per send
        # The pump's own rate (a local RateLimiter) and the bot-wide lane (None: this process paces alone).
        self.limiter, self.budget = limiter, budget
        # The recipients' chat pacer (None: not paced, the paid client).
        self.chats = chats
        # min_sends: a host's query cap makes blocks longer (estimate.block_sends).
        self.window, self.min_sends, self.busy_for, self.call_seconds = window, min_sends, busy_for, call_seconds
        self.clock, self.sleep, self.deadline, self.heartbeat = clock, sleep, deadline, heartbeat
        self.keep, self.pause, self.stopped = keep, pause, stopped
        self.quiet = False  # the last booking's verdict: sizes the next block
        self.booked_until = float("-inf")  # the last booked send's slot (none yet)

    def spacing(self) -> float:
        """Return the seconds between two sends: the pump's own rate per part, and the window's reach."""
        own = self.parts / self.limiter.rate if self.limiter is not None else 0.0
        call = self.call_seconds() or 0.0
        return max(own, call * WINDOW_MARGIN / self.window)

    def per_send(self) -> float:
        """Return the seconds a send takes on the timeline: its spacing, and its span of the lane's slots."""
        return max(self.spacing(), self.span * (self.budget.interval if self.budget is not None else 0.0))

    def block_sends(self) -> int:
        """Return how many sends the next block holds: a second's worth alone, a fifth of that beside others.

        Never more than fit before the run's end (the block's first send
        follows this pump's last booked one, or goes now).
        """
        per_send = self.per_send()
        # Alone: no other process books the bot (the last booking said so), nor a reply of this one
        # (a webhook thread beside an admin's pump call): a reply waits behind at most one block.
        replied = getattr(self.budget, "replied_within", None)
        alone = self.quiet and not (replied is not None and replied(BLOCK_SECONDS))
        seconds = BLOCK_SECONDS if alone else BUSY_BLOCK_SECONDS
        sends = max(int(seconds / per_send) if per_send > 0 else 1, self.min_sends)
        return max(1, min(sends, MAX_BLOCK_SENDS, self._fit(per_send)))

    def _fit(self, per_send: float) -> int:
        """Return how many sends fit between the next free slot of this pump and the run's end."""
        if per_send <= 0:
            return 1_000_000
        start = max(self.clock(), self.booked_until + per_send)
        return max(0, int((self.deadline - start) / per_send) + 1)

    def book(self, want: int) -> Block | Stop:
        """Book the next block of up to ``want`` sends (waiting, lease kept, while others hold the lane).

        Returns the block (its sends may be fewer than wanted: those that fit
        before the run's end), or the stop that came first: Stop.BUDGET when
        the run's time ends, else the pump's own stop met while waiting.
        """
        if self.budget is None:
            return self._book_local(want)
        while True:
            n = min(want, self._fit(self.per_send()))
            booked_at = self.clock()
            booking = self.budget.book(n * self.span, self.deadline, max_wait=SLOT_HORIZON,
                                       busy_for=self.busy_for(), spacing=self.spacing() / self.span) if n else None
            # A send goes at the middle slot of its span: an album's k parts all
            # arrive at once, so it books k - 1 empty slots on each side of its k.
            sends = send_slots(booking.slots, self.parts) if booking else []
            if sends:
                self.quiet = booking.quiet
                self.booked_until = max(self.booked_until, sends[-1])
                return Block([(at, booked_at) for at in sends], booking.quiet)
            left = self.deadline - self.clock()
            wait_s = self.budget.next_slot_in()
            if left <= DUE_GRACE_SECONDS or wait_s >= left or not n:
                return Stop.BUDGET
            self.pause(min(max(wait_s - SLOT_HORIZON, 0.01), left))
            if stop := self.stopped():
                return stop

    def _book_local(self, n: int) -> Block | Stop:
        """Book n sends on this process's own rate alone (no bot-wide lane): its limiter's next slots."""
        now = self.clock()
        if self.limiter is None:
            return Block([(now, now)] * n)
        slots = self.limiter.reserve_slots(n * self.parts, self.deadline)[self.parts - 1::self.parts]
        if not slots:
            return Stop.BUDGET
        self.booked_until = max(self.booked_until, slots[-1])
        return Block([(at, now) for at in slots])

    def book_chats(self, block: Block, chats: list[int]) -> list[bool]:
        """Book each send's recipient chat at its slot, the whole block at once; True where it is booked.

        A chat a reply (or a 429) holds past its slot is not booked: that send
        waits for a later block, and nothing goes to the chat early.
        """
        if self.chats is None:
            return [True] * len(chats)
        booked = self.chats.book_block([(chat, at) for chat, (at, _) in zip(chats, block.sends, strict=False)])
        return [chat in booked for chat in chats]

    def clear(self, slot: Slot, quiet: bool) -> bool:
        """Sleep to a send's slot (in the send's thread); False: hold it back (a 429 covers it, or it is late)."""
        at, booked_at = slot
        if (delay := at - self.clock()) > 0:
            self.sleep(delay)
        if self.budget is None:
            return True
        # A thread that woke too late would bunch this send with the next: it goes back to pending instead.
        return self.budget.clear_at(at, booked_at, quiet=quiet)

    def release(self, answered: bool) -> None:
        """Tell the bot-wide lane this pump's calls are answered (``answered``: every call of this process)."""
        release = getattr(self.budget, "release", None)
        if release is not None:
            release(answered=answered)

    def booked_ahead(self) -> float:
        """Return how far ahead this pump's bookings reach (0: none ahead)."""
        return max(0.0, self.booked_until - self.clock())

    def fills_lane(self) -> bool:
        """True when this pump books every slot of the bot-wide lane (at the cap): a low-priority call finds none."""
        if self.budget is None:
            return False
        return self.spacing() <= self.span * self.budget.interval * LANE_FULL


def claimed_at_most(rate: float, window: int, parts: int = 1) -> int:
    """Return the most items one pump holds 'sending' at once, a crash's bound on 'unknown'.

    The block being sent (the next is claimed once its last send is handed
    over) and the window of earlier sends whose answers are not yet written.
    """
    return min(max(1, int(BLOCK_SECONDS * rate / parts)), MAX_BLOCK_SENDS) + window


def seconds_per_send(parts: int, own_rate: float, lane_rate: float, thread_seconds: float = 0.0,
                     window: int = 1) -> float:
    """Return the seconds one recipient's send takes, as Booker.per_send spaces them.

    A slot of its own rate per part, its span on the lane, and the window's
    reach: ``window`` threads each held ``thread_seconds`` by a send.
    """
    return max(parts / own_rate, span_for(parts) / lane_rate, thread_seconds * WINDOW_MARGIN / window)
