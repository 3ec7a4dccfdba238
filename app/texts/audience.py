"""Texts of the audience model: the admin's /tag and /untag, a tap button's answers."""
from __future__ import annotations

TEXTS: dict[str, dict[str, str]] = {
    "tag_usage": {
        "fa": "برای برچسب زدن: /tag برچسب شناسه شناسه …\nبرای برداشتن: /untag برچسب شناسه …\n"
              "مثال: /tag vip 123456789 987654321",
        "en": "To tag users: /tag TAG id id …\nTo remove a tag: /untag TAG id …\nExample: /tag vip 123456789 987654321",
    },
    "tag_bad": {"fa": "❌ پذیرفته نشد: {error}", "en": "❌ Not accepted: {error}"},
    "tag_bad_id": {
        "fa": "❌ «{value}» شناسهٔ کاربر نیست (عدد مثبت). چیزی تغییر نکرد.",
        "en": "❌ “{value}” is not a user id (a positive number). Nothing changed.",
    },
    "tag_too_many": {
        "fa": "❌ در هر پیام حداکثر {limit} شناسه؛ برای بیشتر از CSV و دستور users tag add استفاده کنید.",
        "en": "❌ At most {limit} ids per message; for more use a CSV and `users tag add`.",
    },
    "tag_added": {
        "fa": "🏷 برچسب «{tag}»: {changed} کاربر اضافه شد، {unchanged} کاربر از قبل داشت.",
        "en": "🏷 Tag “{tag}”: added to {changed} users, {unchanged} already had it.",
    },
    "tag_removed": {
        "fa": "🏷 برچسب «{tag}»: از {changed} کاربر برداشته شد، {unchanged} کاربر نداشت.",
        "en": "🏷 Tag “{tag}”: removed from {changed} users, {unchanged} did not have it.",
    },
    "tag_unknown_ids": {
        "fa": "⚠️ {count} شناسه کاربر ربات نیست (چیزی ساخته نشد): {first}",
        "en": "⚠️ {count} ids are no user of the bot (nothing created): {first}",
    },
    # --- a broadcast's tap button ---
    "tap_done": {"fa": "✅ ثبت شد", "en": "✅ Noted"},
    "tap_custom": {"fa": "{answer}", "en": "{answer}"},
    "tap_refused": {"fa": "این دکمه دیگر کاری انجام نمی‌دهد.", "en": "This button does nothing any more."},
    "btn_err_tap": {"fa": "دکمهٔ برچسب: {error}", "en": "tap button: {error}"},
}
