"""The results picture's keyboard panel: each button's clicks or presses as a bar, the busiest first.

Its numbers are the results' `buttons` (a keyboard's url buttons, with their
positions) and `presses` (its tap and menu buttons): the panel draws them,
it computes nothing. One horizontal bar per button: a url button's clicks
light, its first clicks dark over them; a tag button's presses green, a menu
button's pink. Beside each bar its label (cut to key_stats.LABEL_CHARS), its
kind and its numbers; a line under the bars says how many buttons are left
out. In Persian the bars grow from the right.
"""
from __future__ import annotations

from app.services.broadcast.reporting import key_stats
from app.services.broadcast.reporting.chart_style import GRID, INK, MUTED, count_formatter, number, style
from app.services.broadcast.reporting.key_stats import URL, KeyStat
from app.services.broadcast.reporting.results import Results
from app.texts import t

# Colours no other panel uses, so each bar can be found in the picture.
CLICKS, FIRST, TAP, MENU = "#93c5fd", "#1e3a8a", "#84cc16", "#f472b6"
# The bar's height in its row; a url button's first clicks are drawn thinner over its clicks.
BAR, FIRST_BAR = 0.7, 0.34
# Rows kept for the bars even when fewer buttons are shown, so a bar is never a block.
MIN_ROWS = 5


def stats_of(r: Results) -> list[KeyStat]:
    """Return the keyboard's counted buttons from the results ([] for a job without a keyboard)."""
    urls = [KeyStat(b["position"], b["text"], URL, clicks=b["total"], first_clicks=b["unique"])
            for b in r.buttons if "position" in b]
    return urls + [KeyStat(p["position"], p["text"], p["kind"], presses=p["presses"]) for p in r.presses]


def draw(ax, stats: list[KeyStat], lang: str, rows: int) -> None:
    """Draw the busiest ``rows`` buttons' bars with their numbers, and how many more there are."""
    style(ax, t("chart_keys_title", lang), lang)
    ax.grid(axis="y", visible=False)
    ax.grid(axis="x", color=GRID, linewidth=0.8)
    shown, more = key_stats.top(stats, rows)
    values = [s.count for s in shown]
    at = list(range(len(shown)))
    ax.barh(at, values, height=BAR, color=[CLICKS if s.kind == URL else TAP if s.kind == "tap" else MENU
                                           for s in shown])
    urls = [(row, s.first_clicks or 0) for row, s in zip(at, shown, strict=True) if s.kind == URL]
    ax.barh([row for row, _ in urls], [n for _, n in urls], height=FIRST_BAR, color=FIRST)
    top = max(max(values, default=0), 1)
    ax.set_xlim(0, top * 2.3)  # room beside the longest bar for its label and numbers
    ax.set_ylim(max(len(shown), MIN_ROWS) + (0.6 if more else -0.4), -0.6)  # the busiest at the top
    ax.set_yticks([])
    ax.xaxis.set_major_formatter(count_formatter(lang))
    if lang == "fa":
        ax.invert_xaxis()
    # A direction mark first: a label in the other script must not flip the line's order.
    mark, side = ("\u200f", "right") if lang == "fa" else ("\u200e", "left")
    for row, s in zip(at, shown, strict=True):
        text = mark + key_stats.line(s, lang, lambda n: number(n, lang))
        ax.text(values[row] + top * 0.03, row, text, va="center", ha=side, fontsize=9.5, color=INK)
    if more:
        ax.text(0.98 if lang == "fa" else 0.02, max(len(shown), MIN_ROWS), mark + t("chart_keys_more", lang,
                n=number(more, lang)), va="center", ha=side, fontsize=10, color=MUTED,
                transform=ax.get_yaxis_transform())
