"""Texts of recurring broadcasts: rule errors, the /recurring list and its buttons, a job's series line."""
from __future__ import annotations

TEXTS: dict[str, dict[str, str]] = {
    "rec_err_format": {
        "fa": "❌ قاعدهٔ تکرار را نشناختم. نمونه‌ها: daily 09:00 · weekly sat,tue 10:00 (یا weekly شنبه 10:00) · "
              "monthly 1 09:00 (روز ماه شمسی) · monthly-g 15 09:00 (روز ماه میلادی) · monthly last 20:00",
        "en": "❌ I could not read the rule. Examples: daily 09:00 · weekly sat,tue 10:00 · monthly 1 09:00 "
              "(Solar Hijri month day) · monthly-g 15 09:00 (Gregorian month day) · monthly last 20:00",
    },
    "rec_err_weekday": {"fa": "❌ روز هفتهٔ «{word}» را نشناختم؛ sat … fri یا شنبه … جمعه، جدا با ویرگول.",
                        "en": "❌ Unknown weekday {word!r}: use sat … fri (or شنبه … جمعه), comma-separated."},
    "rec_err_month_day": {"fa": "❌ روز ماه «{word}» نامعتبر است؛ ۱ تا ۳۱ یا last (در ماه کوتاه‌تر: روز آخر ماه).",
                          "en": "❌ Day of the month {word!r} is invalid: 1 to 31 or last (a shorter month: its "
                                "last day)."},
    "rec_err_until_format": {"fa": "❌ تاریخ پایان را نشناختم؛ نمونه: 1405-12-29 یا 2027-03-19",
                             "en": "❌ I could not read the end date; e.g. 1405-12-29 (Solar Hijri) or 2027-03-19"},
    "rec_err_until_past": {"fa": "❌ تاریخ پایان {until} گذشته است.",
                           "en": "❌ The end date {until} has already passed."},
    "rec_err_never": {"fa": "❌ تا تاریخ پایان {until} هیچ نوبتی نمی‌رسد (نخستین نوبت: {first}).",
                      "en": "❌ No occurrence comes before the end date {until} (the first would be {first})."},
    "rec_err_count": {"fa": "❌ تعداد دفعات باید بین ۱ و {max} باشد.",
                      "en": "❌ The count must be between 1 and {max}."},
    "rec_err_if_missed": {"fa": "❌ «{value}» نامعتبر است؛ send یا skip.",
                          "en": "❌ {value!r} is invalid: send or skip."},
    "rec_none": {"fa": "🔁 هیچ ارسال تکراری‌ای ثبت نشده است.", "en": "🔁 No recurring broadcasts."},
    "rec_item": {
        "fa": "🔁 ارسال تکراری #{id} — {status}\nقاعده: {rule}\nنوبت بعد: {next}\nپایان: {end}\n"
              "ساخته‌شده: {made} از {occurrences} نوبت گذشته\nنوبت ازدست‌رفته: {missed}",
        "en": "🔁 Recurring broadcast #{id} — {status}\nRule: {rule}\nNext: {next}\nEnds: {end}\n"
              "Jobs made: {made} of {occurrences} occurrences so far\nA missed occurrence: {missed}",
    },
    "rec_no_next": {"fa": "ندارد", "en": "none"},
    "rec_times": {"fa": "پس از {n} نوبت", "en": "after {n} occurrences"},
    "rec_status_active": {"fa": "فعال", "en": "active"},
    "rec_status_paused": {"fa": "متوقف", "en": "paused"},
    "rec_status_stopped": {"fa": "پایان‌یافته به دست مدیر", "en": "stopped"},
    "rec_status_ended": {"fa": "به پایان رسیده", "en": "ended"},
    "rec_missed_send": {"fa": "وقتی cron برگردد یک بار فرستاده می‌شود", "en": "sent once when cron returns"},
    "rec_missed_skip": {"fa": "فرستاده نمی‌شود", "en": "skipped"},
    "rec_job_note": {"fa": "🔁 نوبت {when} از ارسال تکراری #{id} ({rule})",
                     "en": "🔁 The {when} occurrence of recurring broadcast #{id} ({rule})"},
    "btn_rec_pause": {"fa": "⏸ توقف", "en": "⏸ Pause"},
    "btn_rec_resume": {"fa": "▶️ ادامه", "en": "▶️ Resume"},
    "btn_rec_stop": {"fa": "⏹ پایان دائمی", "en": "⏹ Stop for good"},
    "btn_rec_stop_yes": {"fa": "✅ بله، برای همیشه پایان یابد", "en": "✅ Yes, stop it for good"},
    "btn_rec_back": {"fa": "↩️ بازگشت", "en": "↩️ Back"},
    "rec_stop_ask": {"fa": "ارسال تکراری #{id} برای همیشه پایان یابد؟ ارسال‌های ساخته‌شده دست نمی‌خورند.",
                     "en": "Stop recurring broadcast #{id} for good? Jobs it already made are not touched."},
    "rec_done_paused": {"fa": "⏸ متوقف شد", "en": "⏸ Paused"},
    "rec_done_resumed": {"fa": "▶️ ادامه یافت", "en": "▶️ Resumed"},
    "rec_done_stopped": {"fa": "⏹ پایان یافت", "en": "⏹ Stopped"},
    "rec_not_now": {"fa": "این کار اکنون ممکن نیست؛ وضعیت: {status}", "en": "Not possible now; it is {status}."},
    "rec_unknown": {"fa": "این ارسال تکراری پیدا نشد.", "en": "No such recurring broadcast."},
}
