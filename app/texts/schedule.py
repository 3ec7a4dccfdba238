"""Texts of scheduling: the time step, presets, the scheduled list."""
from __future__ import annotations

TEXTS: dict[str, dict[str, str]] = {
    "btn_schedule": {"fa": "⏰ زمان‌بندی", "en": "⏰ Schedule"},
    "sched_ask": {
        "fa": "⏰ چه زمانی ارسال شود؟ (به وقت تهران)\nیکی از دکمه‌ها را بزنید یا تاریخ و ساعت را بفرستید، "
              "شمسی یا میلادی، با رقم فارسی یا لاتین:\n۱۴۰۵/۱۰/۰۳ ۲۱:۰۰\n2026-12-24 21:00\n"
              "یا فقط ساعت (امروز): ۲۱:۳۰\nاکنون: {now}\nبرای انصراف /cancel را بزنید.",
        "en": "⏰ When should it be sent? (Tehran time)\nTap a button or send a date and time, Solar Hijri or "
              "Gregorian, in Persian or Latin digits:\n1405/10/03 21:00\n2026-12-24 21:00\n"
              "or just a time (today): 21:30\nNow: {now}\nSend /cancel to stop.",
    },
    "btn_preset_hour": {"fa": "یک ساعت دیگر", "en": "In one hour"},
    "btn_preset_tonight": {"fa": "امشب ساعت ۲۱:۰۰", "en": "Tonight 21:00"},
    "btn_preset_tomorrow": {"fa": "فردا ساعت ۰۹:۰۰", "en": "Tomorrow 09:00"},
    "sched_err_format": {
        "fa": "❌ تاریخ و ساعت را نشناختم. نمونه: ۱۴۰۵/۱۰/۰۳ ۲۱:۰۰ یا 2026-12-24 21:00 (به وقت تهران)",
        "en": "❌ I could not read that date and time. Example: 1405/10/03 21:00 or 2026-12-24 21:00 (Tehran time)",
    },
    "sched_err_time": {"fa": "❌ ساعت نامعتبر است؛ ساعت ۰ تا ۲۳ و دقیقه ۰ تا ۵۹ باشد.",
                       "en": "❌ Invalid time: hours are 0–23 and minutes 0–59."},
    "sched_err_date": {"fa": "❌ تاریخ {year}/{month}/{day} وجود ندارد.",
                       "en": "❌ The date {year}/{month}/{day} does not exist."},
    "sched_err_past": {"fa": "❌ زمان {when} گذشته است (اکنون: {now})؛ زمانی در آینده بفرستید.",
                       "en": "❌ {when} has already passed (now: {now}); send a time in the future."},
    "sched_err_far": {"fa": "❌ زمان {when} بیش از یک سال دیگر است؛ سال را بررسی کنید.",
                      "en": "❌ {when} is more than a year ahead; check the year."},
    "sched_err_iso": {"fa": "❌ زمان باید به شکل ISO 8601 باشد، مانند 2026-12-24T21:00+03:30",
                      "en": "expected an ISO 8601 time such as 2026-12-24T21:00+03:30 (no offset: Tehran time)"},
    "sched_done": {
        "fa": "⏰ ارسال همگانی #{id} برای {when} زمان‌بندی شد.\nمخاطبان: {audience} — {count} نفر\n"
              "تا پیش از شروع می‌توانید زمانش را تغییر دهید یا آن را لغو کنید.",
        "en": "⏰ Broadcast #{id} is scheduled for {when}.\nAudience: {audience} — {count} users\n"
              "Until it starts you can change its time or cancel it.",
    },
    "sched_retimed": {"fa": "🕒 زمان ارسال #{id} به {when} تغییر کرد.",
                      "en": "🕒 Broadcast #{id} now goes out at {when}."},
    "btn_retime": {"fa": "🕒 تغییر زمان", "en": "🕒 Change time"},
    "sched_gone": {"fa": "این ارسال دیگر در انتظار زمانش نیست (شروع یا لغو شده است).",
                   "en": "This broadcast no longer waits for its time (it started or was cancelled)."},
    "sched_missed_ask": {
        "fa": "⚠️ ارسال زمان‌بندی‌شده‌ی #{id} در زمان خودش ({when}) انجام نشد؛ احتمالاً سایت در دسترس نبود.\n"
              "هنوز برای کسی ارسال نشده است. مخاطبان: {audience} — {count} نفر\nهمین حالا ارسال شود یا لغو شود؟",
        "en": "⚠️ Scheduled broadcast #{id} did not go out at its time ({when}); the site was probably down.\n"
              "Nobody has received it yet. Audience: {audience} — {count} users\nSend it now, or cancel it?",
    },
    "btn_send_now": {"fa": "🚀 همین حالا ارسال شود", "en": "🚀 Send now"},
    "sched_item": {
        "fa": "⏰ ارسال #{id} — {when}\nمخاطبان: {audience} — {count} نفر{missed}",
        "en": "⏰ Broadcast #{id} — {when}\nAudience: {audience} — {count} users{missed}",
    },
    "sched_item_missed": {"fa": "\n⚠️ زمانش گذشته و منتظر تصمیم شماست.",
                          "en": "\n⚠️ Its time was missed; it waits for your decision."},
    "sched_none": {"fa": "هیچ ارسال زمان‌بندی‌شده‌ای در انتظار نیست.", "en": "No broadcast is scheduled."},
    "sched_err_range": {"fa": "❌ این زمان خارج از محدوده است؛ زمانی از اکنون تا حداکثر یک سال دیگر ({latest}) "
                              "بفرستید.",
                        "en": "❌ That time is out of range; send a time between now and one year from now "
                              "({latest})."},
}
