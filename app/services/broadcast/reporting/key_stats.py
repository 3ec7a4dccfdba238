"""A keyboard's numbers per button, and the few a screen shows: the busiest first, the rest counted.

A url button counts its clicks and the recipients whose first click it was,
a tap or menu button its verified presses (broadcast_buttons). A copy
button counts nothing: Telegram copies its text on the phone and tells the
bot nothing. `broadcast status` and `report --json` list every button; the
job view and the results picture show the top ones and say how many more.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass

from app.models.broadcast import KIND_SEND, BroadcastJob
from app.repository import buttons as buttons_repo
from app.services.broadcast.content import keyboard
from app.texts import t

URL, COPY = "url", "copy"
# The job view lists at most this many buttons, each label cut to LABEL_CHARS: with the view's other
# lines it stays far inside Telegram's 4096 characters, even for 100 buttons of 64-character labels.
VIEW_TOP, LABEL_CHARS = 10, 32
# Each counted kind's name in a line (a copy button gets no line: it counts nothing).
KIND_TEXT = {URL: "key_kind_url", "tap": "key_kind_tap", "menu": "key_kind_menu"}


@dataclass(frozen=True)
class KeyStat:
    """One button's numbers: clicks and first clicks for a url button, presses for a tap or menu one (else None)."""

    position: int
    text: str
    kind: str
    clicks: int | None = None
    first_clicks: int | None = None
    presses: int | None = None

    @property
    def count(self) -> int:
        """Return what ranks the button: a url button's clicks, a tap or menu button's presses (copy: 0)."""
        return (self.clicks if self.kind == URL else self.presses) or 0

    def as_dict(self) -> dict:
        """Return the JSON form (`broadcast status`): every field, None where the kind counts nothing."""
        return asdict(self)


def of_job(job: BroadcastJob) -> tuple[KeyStat, ...] | None:
    """Return each button of the job's keyboard in reading order with its counters (one SELECT); None: no keyboard.

    An edit's copies keep their broadcast's keyboard, but every click and press counts for the broadcast: an
    action job has no numbers of its own.
    """
    kb = keyboard.load(job.keyboard)
    if not kb or job.kind != KIND_SEND:
        return None
    counted = buttons_repo.counts(job.id)
    return tuple(stat(pos, b, *counted.get(pos, (0, 0, 0))) for pos, b in keyboard.buttons(kb))


def stat(position: int, button: dict, clicks: int, first: int, presses: int) -> KeyStat:
    """Return one button's numbers, only those its kind counts."""
    if button["kind"] == URL:
        return KeyStat(position, button["text"], URL, clicks=clicks, first_clicks=first)
    if button["kind"] == COPY:
        return KeyStat(position, button["text"], COPY)
    return KeyStat(position, button["text"], button["kind"], presses=presses)


def top(stats: tuple[KeyStat, ...] | list[KeyStat], n: int) -> tuple[list[KeyStat], int]:
    """Return the n busiest counted buttons (ties in reading order) and how many counted buttons are left out."""
    counted = sorted((s for s in stats if s.kind != COPY), key=lambda s: (-s.count, s.position))
    return counted[:n], max(len(counted) - n, 0)


def cut(label: str, chars: int = LABEL_CHARS) -> str:
    """Return a label of at most ``chars`` characters, an ellipsis ending a shortened one."""
    return label if len(label) <= chars else label[:chars - 1].rstrip() + "…"


def line(s: KeyStat, lang: str, fmt=str) -> str:
    """Render one button: its label, its kind, and its numbers (``fmt`` writes a number in the reader's digits)."""
    kind = t(KIND_TEXT[s.kind], lang)
    if s.kind == URL:
        return t("key_stat_url", lang, text=cut(s.text), kind=kind, clicks=fmt(s.clicks or 0),
                 first=fmt(s.first_clicks or 0))
    return t("key_stat_press", lang, text=cut(s.text), kind=kind, presses=fmt(s.presses or 0))


def view_lines(stats: tuple[KeyStat, ...] | None, job_id: int, lang: str) -> str:
    """Render the job view's buttons block: the top VIEW_TOP, how many more, the copy buttons ("": no keyboard)."""
    if not stats:
        return ""
    shown, more = top(stats, VIEW_TOP)
    lines = [t("key_stats_title", lang)] + ["• " + line(s, lang) for s in shown]
    if more:
        lines.append(t("key_stats_more", lang, n=more, id=job_id))
    if copies := sum(s.kind == COPY for s in stats):
        lines.append(t("key_stats_copies", lang, n=copies))
    return "\n" + "\n".join(lines)
