"""A broadcast's results as one line of text: what the bot and `report --png` say when no picture is drawn."""
from __future__ import annotations

from app.services.broadcast.reporting.chart_style import ident, number, percent
from app.services.broadcast.reporting.results import Results
from app.texts import t


def numbers_line(r: Results, lang: str, *, hint: bool = False) -> str:
    """Return the picture's key numbers in one line; hint adds how to install the picture (matplotlib missing)."""
    line = t("chart_numbers", lang, id=ident(r.job_id, lang), delivered=number(r.delivered, lang),
             failed=number(r.counts.get("failed", 0), lang), ctr=percent(r.ctr, lang),
             blocked=number(r.blocked_after, lang), optout=number(r.opted_out_after, lang))
    return line + t("chart_numbers_hint", lang) if hint else line
