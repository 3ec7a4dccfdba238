"""Sending rules: quiet hours, the daily cap per user, urgent broadcasts and the per-broadcast unsubscribe button."""

TEXTS: dict[str, dict[str, str]] = {
    "reason_quiet_hours": {
        "fa": "ساعات سکوت {window} (تهران): ارسال تا {until} متوقف است",
        "en": "quiet hours {window} (Tehran): sending stops until {until}",
    },
    "quiet_paused_alert": {
        "fa": "🌙 ارسال همگانی #{id} به ساعات سکوت رسید و متوقف شد.\n{reason}\n"
              "پس از آن خودکار ادامه می‌یابد؛ کاری لازم نیست. "
              "برای ارسال در ساعات سکوت، در صفحهٔ پیش از ارسال «⚡️ فوری» را بزنید.",
        "en": "🌙 Broadcast #{id} reached quiet hours and paused.\n{reason}\n"
              "It resumes on its own afterwards; nothing to do. "
              "To send during quiet hours, tap “⚡️ Urgent” on the pre-send screen.",
    },
    # --- the pre-send screen ---
    "wiz_quiet_now": {
        "fa": "\n⏰ ساعات سکوت {window} (تهران): ارسال تا {until} متوقف می‌شود و سپس خودکار شروع می‌شود.",
        "en": "\n⏰ Quiet hours {window} (Tehran): sending waits until {until}, then starts on its own.",
    },
    "wiz_quiet_rule": {
        "fa": "\n⏰ ساعات سکوت {window} (تهران): اگر ارسال به آن برسد تا {until} متوقف می‌شود و خودکار ادامه می‌یابد.",
        "en": "\n⏰ Quiet hours {window} (Tehran): if sending reaches them it pauses until {until}, "
              "then resumes on its own.",
    },
    "wiz_quiet_urgent": {
        "fa": "\n⚡️ فوری: ساعات سکوت ({window}) نادیده گرفته می‌شود.",
        "en": "\n⚡️ Urgent: quiet hours ({window}) are ignored.",
    },
    "wiz_cap_rule": {
        "fa": "\n🔁 سقف ارسال: حداکثر {cap} پیام در روز برای هر کاربر؛ بیشتر از آن رد می‌شود.",
        "en": "\n🔁 Daily cap: at most {cap} broadcasts a day per user; more are skipped.",
    },
    "wiz_unsub_on": {
        "fa": "\n🚫 زیر هر پیام دکمهٔ لغو اشتراک هست.",
        "en": "\n🚫 Each copy carries an unsubscribe button.",
    },
    "wiz_unsub_album": {
        "fa": "\n🚫 آلبوم دکمه نمی‌پذیرد: کاربران با /stop لغو اشتراک می‌کنند.",
        "en": "\n🚫 An album carries no button: users unsubscribe with /stop.",
    },
    "btn_opt_urgent": {"fa": "⚡️ فوری", "en": "⚡️ Urgent"},
    "btn_opt_unsub": {"fa": "🚫 دکمهٔ لغو اشتراک", "en": "🚫 Unsubscribe button"},
    # --- a job's view ---
    "job_unsubscribed_line": {"fa": "\n🚫 لغو عضویت: {n}", "en": "\n🚫 Unsubscribed: {n}"},
    "job_capped_line": {"fa": "\n🔁 رد شده با سقف روزانه: {n}", "en": "\n🔁 Skipped by the daily cap: {n}"},
    "job_urgent_line": {"fa": "\n⚡️ فوری (بی‌توجه به ساعات سکوت)", "en": "\n⚡️ Urgent (ignores quiet hours)"},
    # --- the unsubscribe button under a copy ---
    "unsub_unknown_button": {
        "fa": "این دکمه شناخته نشد؛ برای لغو اشتراک /stop را بفرستید.",
        "en": "This button is not recognised; send /stop to unsubscribe.",
    },
}
