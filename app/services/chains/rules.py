"""What a chain's trigger, a step's delay and a step may be (pure): one parse for the CLI and the bot.

Each refusal is a RuleError whose message is one line naming the input.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from app.models import names
from app.models.chain import INACTIVE, JOINED, MAX_STEPS, SOURCE, TAG, TRIGGERS
from app.services import durations
from app.services.broadcast.schedule.send_time import latin_digits

MAX_DELAY_SECONDS = 365 * 86400  # a year: a longer wait is a typo
MAX_INACTIVE_DAYS = 3650
NAME_MAX = 64


class RuleError(ValueError):
    """A trigger, delay, step or name that is refused; the message is one line."""


@dataclass(frozen=True)
class Trigger:
    """What starts the chain for a user: kind and its value (source, tag, days, job id; None for joined)."""

    kind: str
    value: str | None = None

    def __str__(self) -> str:
        return self.kind if self.value is None else f"{self.kind}:{self.value}"


@dataclass(frozen=True)
class StepSpec:
    """One step as given: its delay (seconds) and its text."""

    delay_seconds: int
    text: str


def parse_delay(raw: str) -> int:
    """Return a delay's seconds: 0, 90 (seconds), 30m, 2h, 3d (Persian digits too)."""
    try:
        return int(durations.parse(str(raw), units="smhd", bare="s", low=timedelta(0),
                                   high=timedelta(seconds=MAX_DELAY_SECONDS)).total_seconds())
    except durations.NotADuration:
        raise RuleError(f"delay {raw!r}: give a number and a unit, like 0, 30m, 2h or 3d") from None
    except durations.OutOfRange:
        raise RuleError(f"delay {raw!r} is over a year") from None


def parse_trigger(raw: str) -> Trigger:
    """Return the trigger raw names: joined, source:X, tag:T, inactive:N (days) or clicked:JOB."""
    kind, _, value = latin_digits(str(raw)).strip().partition(":")
    kind, value = kind.strip().lower(), value.strip()
    if kind not in TRIGGERS:
        raise RuleError(f"trigger {names.quote(str(raw))}: give joined, source:X, tag:T, inactive:N or clicked:JOB")
    if kind == JOINED:
        if value:
            raise RuleError("trigger joined takes no value")
        return Trigger(JOINED)
    if kind in (SOURCE, TAG):
        try:
            return Trigger(SOURCE, names.source(value)) if kind == SOURCE else Trigger(TAG, names.tag(value))
        except names.BadName as exc:
            raise RuleError(f"trigger {names.quote(str(raw))}: {exc}") from None
    if not value.isdigit() or int(value) < 1:
        what = "a number of days" if kind == INACTIVE else "a broadcast job id"
        raise RuleError(f"trigger {raw!r}: give {what} after the colon")
    if kind == INACTIVE and int(value) > MAX_INACTIVE_DAYS:
        raise RuleError(f"trigger {raw!r}: at most {MAX_INACTIVE_DAYS} days")
    return Trigger(kind, str(int(value)))


def parse_step(raw: str) -> StepSpec:
    """Return the step "DELAY|TEXT" names (the text is checked with its job's content later)."""
    delay, sep, text = str(raw).partition("|")
    if not sep or not text.strip():
        raise RuleError(f"step {raw[:40]!r}: give \"DELAY|TEXT\", like \"2h|Welcome, {{first_name}}!\"")
    return StepSpec(parse_delay(delay), text.strip())


def parse_steps(raws: list[str]) -> list[StepSpec]:
    """Return every step, refusing none or more than MAX_STEPS."""
    if not raws:
        raise RuleError("a chain needs at least one --step")
    if len(raws) > MAX_STEPS:
        raise RuleError(f"a chain has at most {MAX_STEPS} steps")
    return [parse_step(raw) for raw in raws]


def check_name(raw: str) -> str:
    """Return a chain's name trimmed, or refuse an empty or long one."""
    name = " ".join(str(raw).split())
    if not name or len(name) > NAME_MAX:
        raise RuleError(f"a chain's name is 1-{NAME_MAX} characters")
    return name


def delay_text(seconds: int) -> str:
    """Return a delay as the operator wrote it, in its largest whole unit (3d, 2h, 30m, 0)."""
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds and seconds % size == 0:
            return f"{seconds // size}{unit}"
    return str(seconds) if not seconds else f"{seconds}s"
