"""Texts of saved segments in the broadcast wizard: the list, choosing one, exclusions, the screen's lines."""
from __future__ import annotations

TEXTS: dict[str, dict[str, str]] = {
    "btn_segments": {"fa": "📁 سگمنت‌ها", "en": "📁 Segments"},
    "seg_choose": {"fa": "📁 یک سگمنت را به‌عنوان مخاطبان انتخاب کنید (صفحهٔ {page} از {pages}):",
                   "en": "📁 Choose a segment as the audience (page {page} of {pages}):"},
    "seg_choose_exclude": {"fa": "➖ کاربران کدام سگمنت ارسال نگیرند؟ ✅ یعنی الان کنار گذاشته شده؛ "
                                 "با زدن دوباره برمی‌گردد (صفحهٔ {page} از {pages}):",
                           "en": "➖ Whose users should not get it? ✅ means left out now; press again to put "
                                 "them back (page {page} of {pages}):"},
    "seg_none": {"fa": "هنوز سگمنتی ذخیره نشده است؛ با flask segments save NAME … یکی بسازید.",
                 "en": "No segment is saved yet; create one with flask segments save NAME …"},
    "seg_none_to_exclude": {"fa": "سگمنت دیگری برای کنار گذاشتن نیست.",
                            "en": "There is no other segment to leave out."},
    "seg_gone": {"fa": "❌ این سگمنت حذف شده است؛ از فهرست تازه یکی دیگر انتخاب کنید.",
                 "en": "❌ This segment was deleted; choose another from the new list."},
    "seg_gone_draft": {"fa": "❌ سگمنتی که انتخاب کرده بودید حذف شده است؛ مخاطبان را دوباره انتخاب کنید.",
                       "en": "❌ A segment you chose was deleted; choose the audience again."},
    "btn_seg_prev": {"fa": "◀️ قبلی", "en": "◀️ Previous"},
    "btn_seg_next": {"fa": "بعدی ▶️", "en": "Next ▶️"},
    "btn_exclude_segments": {"fa": "➖ کنار گذاشتن یک سگمنت", "en": "➖ Leave out a segment"},
    "seg_line": {"fa": "📁 سگمنت: {name}\n", "en": "📁 Segment: {name}\n"},
    "seg_excluded_line": {"fa": "➖ بدون کاربرانِ: {names} — {count} نفر (بدون استثناها {whole})\n",
                          "en": "➖ Leaving out: {names} — {count} users ({whole} without the exclusions)\n"},
}
