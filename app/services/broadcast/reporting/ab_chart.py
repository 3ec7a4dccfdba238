"""The results picture's A/B panel: each version's rate side by side, its clicks and deliveries, the z-test, the winner.

The rate is the one the winner is ranked by: the CTR, or (winner by a chosen
button) the share of delivered copies whose recipient clicked that button;
the title names it.

Its numbers are the results' `ab` (ab/report.summary, the same dict
`broadcast ab --json` prints): the panel draws them, it computes nothing.
One horizontal bar per version, A at the top; in Persian the bars grow
from the right and the labels stand on the right.
"""
from __future__ import annotations

from app.services.broadcast.reporting.chart_style import GRID, INK, MUTED, number, percent, percent_formatter, style
from app.texts import t

# The winner's bar, and the others': colours no other panel uses, so each bar can be found in the picture.
WINNER, OTHER = "#7c3aed", "#0891b2"


def winner(ab: dict) -> str | None:
    """Return the version to name as the winner: the one chosen, else a leader the z-test calls significant."""
    if ab.get("winner"):
        return ab["winner"]
    return ab["leader"] if ab["leader"] and ab["test"]["significant"] else None


def verdict(ab: dict, lang: str) -> str:
    """Return the test's lines: its name and p-value, then the winner or "no clear winner yet"."""
    p, test = ab["test"]["p_value"], ab["test"]
    shown = (t("ab_p_none", lang) if p is None else
             t("ab_p" if test["significant"] else "ab_p_weak", lang, p=f"{p:.4f}"))
    best = winner(ab)
    said = t("chart_ab_winner", lang, v=best) if best else t("chart_ab_no_winner", lang)
    return t("chart_ab_test", lang, p=shown) + "\n" + said


def draw(ax, ab: dict, lang: str) -> None:
    """Draw the versions' CTR bars with their counts, and the test's verdict under them."""
    rule = ab.get("rule") or {"by": "ctr"}
    by_button = rule["by"] == "button"  # the bars show the rate the winner is ranked by
    title = ("chart_ab_title_button" if by_button else "chart_ab_title")
    style(ax, t(title, lang, share=number(ab["share_percent"], lang), text=rule.get("text")), lang)
    ax.grid(axis="y", visible=False)
    ax.grid(axis="x", color=GRID, linewidth=0.8)
    versions = ab["versions"]
    best = winner(ab)
    rows = range(len(versions))
    values = [(v["goal_rate"] if by_button else v["ctr"]) * 100 for v in versions]
    ax.barh(list(rows), values, height=0.6, color=[WINNER if v["version"] == best else OTHER for v in versions])
    top = max(max(values, default=0), 0.1)
    ax.set_xlim(0, top * 1.9)  # room beside the longest bar for its numbers
    ax.set_ylim(len(versions) + 0.7, -0.6)  # A at the top; a free row at the bottom for the verdict
    ax.set_yticks(list(rows), [v["version"] for v in versions], fontsize=14, color=INK, weight="bold")
    ax.xaxis.set_major_formatter(percent_formatter(lang))
    if lang == "fa":
        ax.invert_xaxis()
        ax.yaxis.tick_right()
    for row, v in zip(rows, versions, strict=True):
        rate, hits = (v["goal_rate"], v["goal_clicks"]) if by_button else (v["ctr"], v["clicks"])
        label = t("chart_ab_bar", lang, ctr=percent(rate, lang), clicks=number(hits, lang),
                  delivered=number(v["delivered"], lang))
        ax.text(values[row] + top * 0.04, row, label, va="center", ha="right" if lang == "fa" else "left",
                fontsize=10.5, color=INK)
    # The verdict takes the free row under the bars, on the reading side.
    ax.text(0.98 if lang == "fa" else 0.02, len(versions) + 0.1, verdict(ab, lang), va="center",
            transform=ax.get_yaxis_transform(), ha="right" if lang == "fa" else "left", fontsize=11,
            color=INK if best else MUTED,
            bbox={"facecolor": "white", "edgecolor": GRID, "boxstyle": "round,pad=0.4"})
