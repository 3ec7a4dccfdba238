"""Texts of running jobs: progress, summary, controls, statuses, stats, job list and view, audit."""
from __future__ import annotations

TEXTS: dict[str, dict[str, str]] = {
    # --- progress ---
    "progress": {
        "fa": "📢 ارسال همگانی #{id} — {status}\n{bar} {percent}٪\n✅ ارسال‌شده: {sent}\n❌ ناموفق: {failed}\n"
              "🚫 ردشده (مسدود/نامعتبر): {skipped}\n❓ نامعلوم: {unknown}\n{unsent}\n"
              "⚡️ سرعت: {rate} پیام/ثانیه — زمان باقیمانده: {eta}{reason}",
        "en": "📢 Broadcast #{id} — {status}\n{bar} {percent}%\n✅ Sent: {sent}\n❌ Failed: {failed}\n"
              "🚫 Skipped (blocked/invalid): {skipped}\n❓ Unknown: {unknown}\n{unsent}\n"
              "⚡️ Rate: {rate} msg/s — ETA: {eta}{reason}",
    },
    # The {unsent} line of progress and summary: items still to go, or what a cancel left unsent.
    "unsent_pending": {"fa": "⏳ باقیمانده: {n}", "en": "⏳ Pending: {n}"},
    "unsent_not_sent": {"fa": "⏳ ارسال‌نشده: {n}", "en": "⏳ Not sent: {n}"},
    # The clicks line under it (a job with a link button): recipients who clicked, their share, every click.
    "clicks_line": {"fa": "👆 کلیک‌کرده: {clicks} ({rate}) — کل کلیک‌ها: {total}",
                    "en": "👆 Clicked: {clicks} ({rate}) — total clicks: {total}"},
    # A job whose links went out untracked: its clicks are unknown, never shown as 0.
    "clicks_untracked_line": {"fa": "👆 کلیک‌ها شمرده نشد: هنگام ساختن این ارسال PUBLIC_URL تنظیم نبود",
                              "en": "👆 Clicks not counted: PUBLIC_URL was not set when this broadcast was made"},
    "unsent_cancelled": {"fa": "⛔️ ارسال‌نشده (لغو شد): {n}", "en": "⛔️ Not sent (cancelled): {n}"},
    "progress_reason": {"fa": "\n⚠️ علت توقف: {reason}", "en": "\n⚠️ Paused because: {reason}"},
    "remaining": {"fa": "باقیمانده: {pending} — دکمه ادامه را بزن", "en": "Remaining: {pending} — tap Continue"},
    "summary": {
        "fa": "🏁 ارسال همگانی #{id} {status}.\n✅ ارسال‌شده: {sent}\n❌ ناموفق: {failed}\n🚫 ردشده: {skipped}\n"
              "❓ نامعلوم: {unknown}\n{unsent}\n⏱ مدت: {duration}",
        "en": "🏁 Broadcast #{id} {status}.\n✅ Sent: {sent}\n❌ Failed: {failed}\n🚫 Skipped: {skipped}\n"
              "❓ Unknown: {unknown}\n{unsent}\n⏱ Took: {duration}",
    },
    "paused_alert": {
        "fa": "⏸ ارسال همگانی #{id} خودکار متوقف شد.\nعلت: {reason}\nپس از رفع مشکل «ازسرگیری» را بزنید.",
        "en": "⏸ Broadcast #{id} was paused automatically.\nReason: {reason}\nTap “Resume” once it is fixed.",
    },
    "btn_continue": {"fa": "▶️ ادامه ارسال", "en": "▶️ Continue sending"},
    "btn_cancel_job": {"fa": "⛔️ لغو ارسال", "en": "⛔️ Cancel broadcast"},
    "btn_pause": {"fa": "⏸ توقف موقت", "en": "⏸ Pause"},
    "btn_resume": {"fa": "▶️ ازسرگیری", "en": "▶️ Resume"},
    "status_queued": {"fa": "در صف", "en": "queued"},
    "status_running": {"fa": "در حال ارسال", "en": "sending"},
    "status_paused": {"fa": "متوقف", "en": "paused"},
    "status_completed": {"fa": "تمام شد", "en": "completed"},
    "status_cancelled": {"fa": "لغو شد", "en": "cancelled"},
    "status_draft": {"fa": "پیش‌نویس", "en": "draft"},
    "status_scheduled": {"fa": "زمان‌بندی‌شده", "en": "scheduled"},
    "reason_unauthorized": {"fa": "توکن ربات پذیرفته نشد (401)", "en": "the bot token was refused (401)"},
    "reason_breaker": {"fa": "{n} خطای پیاپی: {error}", "en": "{n} errors in a row: {error}"},
    "reason_no_stars": {
        "fa": "موجودی ستاره‌ها تمام شد (تلگرام پیام پولی را نپذیرفت)؛ پیام‌های ارسال‌نشده منتظرند. در @BotFather "
              "ستاره بخرید و ادامه دهید، یا broadcast_paid_enabled را خاموش کنید و «دوباره» بفرستید",
        "en": "the Stars balance ran out (Telegram refused a paid message); unsent copies wait. Top up Stars in "
              "@BotFather and resume, or turn broadcast_paid_enabled off and retry it",
    },
    "reason_stars_short": {
        "fa": "موجودی ستاره‌ها ({balance} ⭐) هزینه‌ی این ارسال پولی (تا {cost} ⭐) را پوشش نمی‌دهد. در @BotFather "
              "ستاره بخرید و ادامه دهید، یا broadcast_paid_enabled را خاموش کنید و «دوباره» بفرستید",
        "en": "the Stars balance ({balance} ⭐) cannot cover this paid broadcast (up to {cost} ⭐). Top up Stars in "
              "@BotFather and resume, or turn broadcast_paid_enabled off and retry it",
    },
    "reason_stars_unknown": {
        "fa": "موجودی ستاره‌های ربات خوانده نشد؛ ارسال پولی بدون آن آغاز نمی‌شود. کمی بعد ادامه دهید",
        "en": "the bot's Stars balance could not be read; a paid broadcast does not start without it. Resume shortly",
    },
    "job_stars_line": {"fa": "\n⭐ ستاره‌ی خرج‌شده (تلگرام): {spent} ⭐ — برآورد: {estimate} ⭐",
                       "en": "\n⭐ Stars spent (Telegram): {spent} ⭐ — estimated: {estimate} ⭐"},
    "job_stars_estimate_line": {
        "fa": "\n⭐ برآورد ستاره: {estimate} ⭐ (خرج واقعی پس از خواندن موجودی از تلگرام گزارش می‌شود)",
        "en": "\n⭐ Stars estimated: {estimate} ⭐ (the spend follows once Telegram's balance is read)"},
    "stars_spent_alert": {"fa": "💫 ارسال #{id} پایان یافت.{line}", "en": "💫 Broadcast #{id} has ended.{line}"},
    "reason_paid_cap": {"fa": "سقف پیام‌های پولی ({cap}) پر شد", "en": "the paid message cap ({cap}) was reached"},
    "reason_admin": {"fa": "توسط مدیر", "en": "by an admin"},
    "eta_unknown": {"fa": "نامشخص", "en": "unknown"},
    # --- callback answers ---
    "cb_working": {"fa": "در حال ارسال…", "en": "Sending…"},
    "cb_cancelled": {"fa": "ارسال لغو شد.", "en": "Broadcast cancelled."},
    "cb_paused": {"fa": "ارسال متوقف شد.", "en": "Broadcast paused."},
    "cb_resumed": {"fa": "ارسال ادامه یافت.", "en": "Broadcast resumed."},
    "cb_finished": {"fa": "این ارسال به پایان رسیده است.", "en": "This broadcast has ended."},
    "cb_unknown_job": {"fa": "این ارسال پیدا نشد.", "en": "Broadcast not found."},
    # --- statistics and history ---
    "stats": {
        "fa": "📊 آمار ربات\n👥 کاربران: {users}\n🟢 فعال در ۷ روز اخیر: {active_7d}\n"
              "🟢 فعال در ۳۰ روز اخیر: {active_30d}\n🚫 ربات را مسدود کرده‌اند: {blocked}\n"
              "🔕 لغو اشتراک کرده‌اند (/stop): {opted_out}\n📣 عضو کانال: {channel_members}\n"
              "🆕 جدید امروز: {new_today}\n🆕 جدید این هفته: {new_week}\n"
              "(«امروز» از ساعت ۰۰:۰۰ UTC، «این هفته» ۷ روز اخیر){clicks}",
        "en": "📊 Bot statistics\n👥 Users: {users}\n🟢 Active in the last 7 days: {active_7d}\n"
              "🟢 Active in the last 30 days: {active_30d}\n🚫 Blocked the bot: {blocked}\n"
              "🔕 Opted out (/stop): {opted_out}\n📣 Channel members: {channel_members}\n"
              "🆕 New today: {new_today}\n🆕 New this week: {new_week}\n"
              "(“today” starts at 00:00 UTC, “this week” is the last 7 days){clicks}",
    },
    # /stats of a large bot: the figures are cron's snapshot, not this moment's count.
    "stats_as_of": {"fa": "\n🕒 شمارش {minutes} دقیقه پیش ({at} UTC)؛ cron هر {every} دقیقه دوباره می‌شمارد",
                    "en": "\n🕒 Counted {minutes} min ago ({at} UTC); cron recounts every {every} minutes"},
    "stats_sources": {"fa": "🔗 منبع‌ها (نخستین /start با لینک؛ پرشمارترها):",
                      "en": "🔗 Sources (the first /start link; the largest):"},
    "stats_source_line": {
        "fa": "\n• {source}: {users} نفر — جدید ۷ روز {joined_7d}، ۳۰ روز {joined_30d} — هنوز مشترک {subscribed}",
        "en": "\n• {source}: {users} users — joined 7d {joined_7d}, 30d {joined_30d} — still subscribed {subscribed}",
    },
    # /stats' clicks line: the newest broadcast with a link button.
    "stats_clicks": {"fa": "\n👆 آخرین ارسال دکمه‌دار #{id}: {clicks} کلیک‌کرده ({rate})، کل کلیک‌ها {total}",
                     "en": "\n👆 Latest broadcast with a button #{id}: {clicks} clicked ({rate}), {total} clicks in all"},
    "jobs_title": {"fa": "📋 ارسال‌های اخیر (برای جزئیات روی هر مورد بزنید):",
                   "en": "📋 Recent broadcasts (tap one for details):"},
    "jobs_empty": {"fa": "هنوز هیچ ارسال همگانی ثبت نشده است.", "en": "There are no broadcasts yet."},
    "job_row_send": {"fa": "📢 #{id} — {status} — {done}/{total}", "en": "📢 #{id} — {status} — {done}/{total}"},
    "job_row_unsend": {"fa": "🗑 #{id} حذف #{source} — {status} — {done}/{total}",
                       "en": "🗑 #{id} unsend of #{source} — {status} — {done}/{total}"},
    "job_row_edit": {"fa": "✏️ #{id} ویرایش #{source} — {status} — {done}/{total}",
                     "en": "✏️ #{id} edit of #{source} — {status} — {done}/{total}"},
    "job_view": {
        "fa": "📢 ارسال همگانی #{id} — {status}\n👤 ایجادکننده: {author}\n👥 مخاطبان: {audience} — {total} نفر\n"
              "✅ ارسال‌شده: {sent}\n❌ ناموفق: {failed}\n🚫 ردشده: {skipped}\n❓ نامعلوم: {unknown}\n{unsent}\n"
              "⚡️ سرعت: {rate} پیام/ثانیه\n⏱ مدت: {duration}\n🕒 ایجاد: {created} (به وقت تهران){reason}\n\n"
              "📝 گزارش اقدامات:\n{audit}",
        "en": "📢 Broadcast #{id} — {status}\n👤 Author: {author}\n👥 Audience: {audience} — {total} users\n"
              "✅ Sent: {sent}\n❌ Failed: {failed}\n🚫 Skipped: {skipped}\n❓ Unknown: {unknown}\n{unsent}\n"
              "⚡️ Rate: {rate} msg/s\n⏱ Duration: {duration}\n🕒 Created: {created} (Tehran time){reason}\n\n"
              "📝 Audit log:\n{audit}",
    },
    "job_view_action": {
        "fa": "{title} — {status}\n👤 ایجادکننده: {author}\n📦 نسخه‌ها: {total}\n{counts}\n{unsent}\n"
              "⚡️ سرعت: {rate} پیام/ثانیه\n⏱ مدت: {duration}\n🕒 ایجاد: {created} (به وقت تهران){reason}\n\n"
              "📝 گزارش اقدامات:\n{audit}",
        "en": "{title} — {status}\n👤 Author: {author}\n📦 Copies: {total}\n{counts}\n{unsent}\n"
              "⚡️ Rate: {rate} msg/s\n⏱ Duration: {duration}\n🕒 Created: {created} (Tehran time){reason}\n\n"
              "📝 Audit log:\n{audit}",
    },
    "btn_jobs_back": {"fa": "📋 بازگشت به فهرست", "en": "📋 Back to the list"},
    "job_author_unknown": {"fa": "نامشخص", "en": "unknown"},
    "audit_line": {"fa": "• {at} — {actor}: {action}{detail}", "en": "• {at} — {actor}: {action}{detail}"},
    "audit_empty": {"fa": "• (موردی ثبت نشده)", "en": "• (nothing recorded)"},
    "act_created": {"fa": "ایجاد شد", "en": "created"},
    "act_confirmed": {"fa": "تأیید و ایجاد شد", "en": "confirmed"},
    "act_paused": {"fa": "متوقف شد", "en": "paused"},
    "act_resumed": {"fa": "ازسرگرفته شد", "en": "resumed"},
    "act_cancelled": {"fa": "لغو شد", "en": "cancelled"},
    "act_scheduled": {"fa": "زمان‌بندی شد", "en": "scheduled"},
    "act_setting_changed": {"fa": "تنظیم تغییر کرد", "en": "setting changed"},
    "act_opted_out": {"fa": "کاربر از پیام همگانی بیرون گذاشته شد", "en": "user opted out of broadcasts"},
    "act_opted_in": {"fa": "کاربر به پیام همگانی برگردانده شد", "en": "user opted back in to broadcasts"},
    "act_retried": {"fa": "دوباره ارسال شد", "en": "retried"},
    "act_exported": {"fa": "خروجی گرفته شد", "en": "exported"},
    # Cron watch (app/services/broadcast/schedule/cron_watch.py): one alert per outage, and a line while cron is late.
    "cron_alert": {
        "fa": "⏰ کران‌جاب اجرا نمی‌شود: آخرین اجرای cron (فراخوانی ‎/internal/pump‎) {last}.\n"
              "در انتظار ارسال:\n{waiting}\n"
              "اکنون: {draining}\n"
              "کران‌جاب را در cPanel › Cron Jobs بررسی کنید (دستور، مسیر pump.sh و فایل ‎~/.update_pack_pump.conf‎)؛ "
              "راهنما: docs/DEPLOY_CPANEL_FA.md، بخش «ارسال همگانی جلو نمی‌رود».\n"
              "تا کران‌جاب برنگردد و دوباره قطع نشود، این هشدار تکرار نمی‌شود.",
        "en": "⏰ The cron job is not running: the last cron run (a call of /internal/pump) was {last}.\n"
              "Waiting to be sent:\n{waiting}\n"
              "Meanwhile: {draining}\n"
              "Check the job in cPanel › Cron Jobs (the command, the path of pump.sh, ~/.update_pack_pump.conf); "
              "guide: docs/DEPLOY_CPANEL.md, section “A broadcast is not moving”.\n"
              "This alert is not repeated until cron comes back and goes missing again.",
    },
    "cron_never": {"fa": "هرگز ثبت نشده", "en": "never recorded"},
    "cron_minutes_ago": {"fa": "{minutes} دقیقه پیش", "en": "{minutes} min ago"},
    "cron_waiting_job": {"fa": "• #{id} ({status}): {left} مانده", "en": "• #{id} ({status}): {left} left"},
    "cron_draining_traffic": {
        "fa": "ارسال فقط با پیام‌های ورودی ربات، در برش‌های کوتاه و کندتر از کران‌جاب، جلو می‌رود.",
        "en": "the queue moves only on the bot's own incoming updates, in short slices, slower than cron.",
    },
    "cron_late_line": {"fa": "⏰ آخرین اجرای cron: {minutes} دقیقه پیش (کران‌جاب را بررسی کنید)",
                       "en": "⏰ Last cron run {minutes} min ago (check the cron job)"},
    "cron_late_never": {"fa": "⏰ هیچ اجرای cron ثبت نشده است (کران‌جاب را بررسی کنید)",
                        "en": "⏰ No cron run recorded yet (check the cron job)"},
}
