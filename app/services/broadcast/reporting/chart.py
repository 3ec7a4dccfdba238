"""Draw a broadcast's results (reporting.results) as one PNG: a light card legible in dark and light themes.

matplotlib (Agg, no pyplot: no global state, no display) is imported on the
first picture only, so a process that never draws never pays for it. Persian
labels are shaped and ordered right-to-left by matplotlib itself (3.11+), in
its bundled DejaVu Sans, which has every Persian letter and digit.
"""
from __future__ import annotations

import io
from datetime import datetime, timedelta

import jdatetime

from app.services.broadcast.reporting import ab_chart, key_chart
from app.services.broadcast.reporting.chart_style import (
    BLUE,
    CARD,
    GREEN,
    GREY,
    GRID,
    INK,
    MUTED,
    ORANGE,
    RED,
    count_formatter,
    ident,
    number,
    percent,
    percent_formatter,
    style,
)
from app.services.broadcast.reporting.results import Curve, Results
from app.services.broadcast.schedule.send_time import TEHRAN, to_persian_digits
from app.texts import t

# Pixels: 1000 x 1250 stays under Telegram's 1280 px side, so the photo is not scaled down.
WIDTH_IN, HEIGHT_IN, DPI = 10.0, 12.5, 100

SECONDS_SPAN = 600  # under ten minutes the time axis shows seconds


# Rows' heights: header, delivery, clicks, (a keyboard's buttons,) (an A/B test's versions,) the recent
# broadcasts; and how many buttons the keyboard's panel shows (each bar a row of at least 20 px).
ROWS, AB_ROWS = (0.5, 1.5, 1.1, 1.0), (0.45, 1.15, 0.8, 1.1, 0.8)
KEY_ROWS, KEY_AB_ROWS = (0.45, 1.1, 0.75, 1.55, 0.8), (0.4, 0.85, 0.6, 1.25, 0.95, 0.7)
KEY_BARS, KEY_AB_BARS = 12, 8


def render_png(results: Results, lang: str) -> bytes:
    """Return the results picture as PNG bytes, labelled in lang."""
    out = io.BytesIO()
    figure(results, lang).savefig(out, format="png", facecolor=CARD)
    return out.getvalue()


def figure(results: Results, lang: str):
    """Draw the picture on a new matplotlib Figure (an A/B test gets its versions' panel above the recent row)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(WIDTH_IN, HEIGHT_IN), dpi=DPI, facecolor=CARD)
    FigureCanvasAgg(fig)
    keys = key_chart.stats_of(results)
    heights = (KEY_AB_ROWS if results.ab else KEY_ROWS) if keys else AB_ROWS if results.ab else ROWS
    # Six rows are shorter: a wider gap keeps each row's axis labels clear of the next row's title.
    grid = fig.add_gridspec(len(heights), 3, height_ratios=heights, hspace=0.6 if len(heights) < 6 else 0.85,
                            wspace=0.35,
                            left=0.08, right=0.97, top=0.97, bottom=0.05)
    _header(fig.add_subplot(grid[0, :]), results, lang)
    _delivery(fig.add_subplot(grid[1, :]), results, lang)
    _clicks(fig.add_subplot(grid[2, :]), results, lang, listed=not keys)
    if keys:
        key_chart.draw(fig.add_subplot(grid[3, :]), keys, lang, KEY_AB_BARS if results.ab else KEY_BARS)
    if results.ab:
        ab_chart.draw(fig.add_subplot(grid[-2, :]), results.ab, lang)
    _recent(fig, grid, results, lang)
    return fig


def tehran_label(at: datetime, lang: str, with_date: bool, seconds: bool = False) -> str:
    """Render an aware time as Tehran wall time; with_date adds the day (Solar Hijri for fa), seconds them."""
    local = at.astimezone(TEHRAN)
    clock = local.strftime("%H:%M:%S" if seconds else "%H:%M")
    if not with_date:
        return to_persian_digits(clock) if lang == "fa" else clock
    if lang == "fa":
        day = jdatetime.date.fromgregorian(date=local.date()).strftime("%m/%d")
        return to_persian_digits(f"{clock}\n{day}")
    return f"{clock}\n{local.strftime('%b %d')}"


def _header(ax, r: Results, lang: str) -> None:
    """Draw the title and the key numbers in a row of tiles."""
    ax.set_axis_off()
    status = t(f"status_{r.status}", lang)
    title = t("chart_title", lang, id=ident(r.job_id, lang), status=status)
    if r.ab_of:  # a winner job names its test
        title += " · " + t("chart_ab_of", lang, test=ident(r.ab_of["test"], lang), v=r.ab_of["version"] or "?")
    ax.text(0.5, 1.0, title, ha="center", va="top", fontsize=17 if r.ab_of else 19, color=INK, weight="bold",
            transform=ax.transAxes)
    tiles = [(t("chart_delivered", lang), number(r.delivered, lang), GREEN),
             (t("chart_failed_n", lang), number(r.counts.get("failed", 0), lang), RED),
             (t("chart_ctr", lang), percent(r.ctr, lang), BLUE),
             (t("chart_blocked_after", lang), number(r.blocked_after, lang), ORANGE),
             (t("chart_optout_after", lang), number(r.opted_out_after, lang), GREY)]
    if lang == "fa":
        tiles.reverse()  # read right to left, the delivered count first
    for n, (label, value, color) in enumerate(tiles):
        x = (n + 0.5) / len(tiles)
        ax.text(x, 0.35, value, ha="center", va="center", fontsize=20, color=color, weight="bold",
                transform=ax.transAxes)
        ax.text(x, -0.05, label, ha="center", va="center", fontsize=11, color=MUTED, transform=ax.transAxes)


def _times(curve: Curve) -> list[datetime]:
    """Return each bucket's start as an aware UTC time."""
    start = datetime.fromisoformat(curve.start.replace("Z", "+00:00"))
    return [start + timedelta(seconds=k * curve.seconds) for k in range(len(curve.counts))]


def _aware(iso: str) -> datetime:
    """Parse an ISO 8601 UTC time ending in Z."""
    return datetime.fromisoformat(iso.replace("Z", "+00:00"))


def _time_axis(ax, lang: str, first: datetime, last: datetime) -> None:
    """Label the x axis in Tehran time, with the day where the span crosses one."""
    from matplotlib.dates import AutoDateLocator, date2num, num2date
    from matplotlib.ticker import FuncFormatter

    with_date = first.astimezone(TEHRAN).date() != last.astimezone(TEHRAN).date()
    seconds = (last - first).total_seconds() < SECONDS_SPAN  # a short broadcast's ticks lie within one minute
    ax.xaxis.set_major_locator(AutoDateLocator(tz=TEHRAN, minticks=3, maxticks=8))
    ax.xaxis.set_major_formatter(FuncFormatter(
        lambda x, _pos: tehran_label(num2date(x, TEHRAN), lang, with_date, seconds)))
    ax.set_xlim(date2num(first), date2num(last))
    ax.set_xlabel(t("chart_time_axis", lang), color=MUTED, fontsize=9)


def _delivery(ax, r: Results, lang: str) -> None:
    """Draw the cumulative delivery curve with pauses shaded and 429 holds marked."""
    style(ax, t("chart_sent_curve", lang), lang)
    times = _times(r.sent)
    end = times[-1] + timedelta(seconds=r.sent.seconds)
    total, running = 0, [0]
    for n in r.sent.counts:
        total += n
        running.append(total)
    ax.fill_between([times[0], *[x + timedelta(seconds=r.sent.seconds) for x in times]], running, step=None,
                    color=GREEN, alpha=0.15, linewidth=0)
    ax.plot([times[0], *[x + timedelta(seconds=r.sent.seconds) for x in times]], running, color=GREEN, linewidth=2.2)
    first, last = times[0], end
    for n, pause in enumerate(r.pauses):
        at, until = _aware(pause["at"]), _aware(pause["until"])
        ax.axvspan(at, until, color=ORANGE, alpha=0.18, linewidth=0,
                   label=t("chart_pause", lang) if n == 0 else None)
        first, last = min(first, at), max(last, until)
    for n, hold in enumerate(r.holds):
        ax.axvline(_aware(hold["at"]), color=RED, linestyle="--", linewidth=1.2,
                   label=t("chart_hold", lang) if n == 0 else None)
    ax.set_ylim(0, max(total, 1) * 1.08)
    ax.yaxis.set_major_formatter(count_formatter(lang))
    _time_axis(ax, lang, first, last)
    if r.pauses or r.holds:
        ax.legend(loc="lower right", frameon=False, fontsize=10, labelcolor=INK)


def _clicks(ax, r: Results, lang: str, listed: bool = True) -> None:
    """Draw clicks per time bucket, and each button's people and clicks (listed: a keyboard's have a panel)."""
    style(ax, t("chart_clicks_curve", lang), lang)
    note = r.clicks_note()
    if note:
        ax.set_axis_off()
        ax.text(0.5, 0.5, t(note, lang), ha="center", va="center", fontsize=13, color=MUTED, transform=ax.transAxes)
        return
    times = _times(r.clicks)
    width = timedelta(seconds=r.clicks.seconds * 0.85)
    ax.bar(times, r.clicks.counts, width=width, align="edge", color=BLUE, alpha=0.85)
    ax.yaxis.set_major_formatter(count_formatter(lang))
    _time_axis(ax, lang, times[0], times[-1] + timedelta(seconds=r.clicks.seconds))
    if not listed:
        return
    # A direction mark first: a button named in the other script must not flip the line's order.
    mark = "\u200f" if lang == "fa" else "\u200e"
    lines = [mark + t("chart_button", lang, text=b["text"] or "—", unique=number(b["unique"], lang),
                      total=number(b["total"], lang)) for b in r.buttons]
    ax.text(0.98 if lang == "fa" else 0.02, 0.95, "\n".join(lines), ha="right" if lang == "fa" else "left",
            va="top", fontsize=10.5, color=INK, transform=ax.transAxes,
            bbox={"facecolor": "white", "edgecolor": GRID, "boxstyle": "round,pad=0.4"})


def _recent(fig, grid, r: Results, lang: str) -> None:
    """Draw this broadcast beside the ones before it: delivered, CTR and blocked after, one small chart each."""
    rows = r.recent
    labels = [ident(row["id"], lang) for row in rows]
    colors = [BLUE if row["id"] == r.job_id else GREY for row in rows]
    panels = [(t("chart_delivered", lang), [row["delivered"] for row in rows], count_formatter(lang)),
              (t("chart_ctr", lang), [(row["ctr"] or 0) * 100 for row in rows], percent_formatter(lang)),
              (t("chart_blocked_after", lang), [row["blocked_after"] for row in rows], count_formatter(lang))]
    if lang == "fa":
        panels.reverse()
    top = 0.0
    for col, (title, values, formatter) in enumerate(panels):
        ax = fig.add_subplot(grid[-1, col])
        top = ax.get_position().y1
        style(ax, title, lang)
        ax.bar(range(len(values)), values, color=colors, width=0.7)
        ax.set_xticks(range(len(values)), labels, rotation=90 if len(values) > 6 else 0, fontsize=8)
        ax.yaxis.set_major_formatter(formatter)
        ax.set_ylim(0, max(max(values, default=0), 1) * 1.1)  # never below zero, even when every bar is 0
        ax.tick_params(axis="y", labelsize=8)
    fig.text(0.5, top + 0.045, t("chart_recent", lang), ha="center", fontsize=13, color=INK, weight="bold")

