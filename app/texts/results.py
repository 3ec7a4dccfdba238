"""Texts of a broadcast's results picture: its labels, the chart button and its answers."""
from __future__ import annotations

TEXTS: dict[str, dict[str, str]] = {
    "btn_chart": {"fa": "📊 نمودار", "en": "📊 Chart"},
    "cb_chart_preparing": {"fa": "📊 نمودار در حال آماده‌شدن است…", "en": "📊 Preparing the chart…"},
    "cb_chart_busy": {"fa": "نمودار قبلی هنوز در راه است؛ کمی بعد دوباره بزنید.",
                      "en": "The previous chart is still on its way; try again in a moment."},
    "cb_chart_nothing": {"fa": "این ارسال هنوز به کسی نرسیده؛ نموداری ندارد.",
                         "en": "This broadcast has reached nobody yet: there is no chart."},
    "cb_chart_purged": {"fa": "جزئیات گیرندگان #{id} پاک شده؛ نمودار ممکن نیست.",
                        "en": "The per-recipient ledger of #{id} was purged: no chart."},
    "chart_failed": {"fa": "⚠️ ساختن نمودار ارسال #{id} ناموفق بود.", "en": "⚠️ The chart of broadcast #{id} failed."},
    "chart_caption": {"fa": "📊 نتیجهٔ ارسال همگانی #{id}", "en": "📊 Results of broadcast #{id}"},
    # Labels drawn inside the picture.
    "chart_title": {"fa": "ارسال همگانی #{id} — {status}", "en": "Broadcast #{id} — {status}"},
    "chart_delivered": {"fa": "رسیده", "en": "Delivered"},
    "chart_failed_n": {"fa": "ناموفق", "en": "Failed"},
    "chart_ctr": {"fa": "نرخ کلیک", "en": "CTR"},
    "chart_blocked_after": {"fa": "مسدودکرده پس از آن", "en": "Blocked after"},
    "chart_optout_after": {"fa": "لغو عضویت پس از آن", "en": "Opted out after"},
    "chart_sent_curve": {"fa": "ارسال در طول زمان (تجمعی)", "en": "Delivered over time (cumulative)"},
    "chart_clicks_curve": {"fa": "کلیک‌ها در طول زمان", "en": "Clicks over time"},
    "chart_pause": {"fa": "توقف", "en": "paused"},
    "chart_hold": {"fa": "محدودیت ۴۲۹", "en": "429 hold"},
    "chart_button": {"fa": "«{text}»: {unique} نفر، {total} کلیک", "en": "“{text}”: {unique} people, {total} clicks"},
    "chart_no_button": {"fa": "این ارسال دکمهٔ لینک نداشت.", "en": "This broadcast had no link button."},
    "chart_no_clicks": {"fa": "هنوز کلیکی نشده.", "en": "No clicks yet."},
    "chart_recent": {"fa": "این ارسال کنار ۱۰ ارسال قبلی", "en": "This broadcast beside the 10 before it"},
    "chart_time_axis": {"fa": "به وقت تهران", "en": "Tehran time"},
}
