"""A recurring occurrence's summary: one short line per admin, its results picture behind a button."""
from __future__ import annotations

from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from app.services.broadcast.jobs.status import JobView
from app.services.broadcast.reporting.progress import summary_keyboard
from app.texts import t


def occurrence_text(status: JobView, series_id: int, lang: str) -> str:
    """Render the one-line summary of a finished occurrence (pure)."""
    return t("rec_summary", lang, series=series_id, id=status.id, status=t(f"status_{status.status}", lang),
             sent=status.sent, failed=status.failed + status.unknown, skipped=status.skipped, total=status.total)


def occurrence_keyboard(status: JobView, lang: str) -> InlineKeyboardMarkup | None:
    """Return the 📊 button (the job view's j.chart: drawn when pressed) when it delivered, then any retry buttons."""
    rows = [[InlineKeyboardButton(t("btn_chart", lang), callback_data=f"j.chart:{status.id}")]] if status.sent else []
    retry = summary_keyboard(status, lang)
    rows += [list(row) for row in retry.inline_keyboard] if retry else []
    return InlineKeyboardMarkup(rows) if rows else None
