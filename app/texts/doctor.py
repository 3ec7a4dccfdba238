"""Texts of `flask doctor`: each finding, what to change when it does not fit, and the summary (Persian first)."""
from __future__ import annotations

TEXTS: dict[str, dict[str, str]] = {
    "doc_title": {"fa": "🩺 بررسی میزبان برای ربات آپدیت پک ({processes} پردازش Passenger)",
                  "en": "🩺 Checking the host for the Update Pack bot ({processes} Passenger processes)"},
    "doc_state_ok": {"fa": "✅ جا می‌شود", "en": "✅ fits"},
    "doc_state_fail": {"fa": "❌ جا نمی‌شود", "en": "❌ does not fit"},
    "doc_state_unknown": {"fa": "❔ خوانده نشد", "en": "❔ could not read"},
    "doc_state_info": {"fa": "ℹ️", "en": "ℹ️"},
    "doc_fix_line": {"fa": "   ← چه باید کرد: {fix}", "en": "   → what to change: {fix}"},
    "doc_summary_ok": {"fa": "همه‌چیز جا می‌شود (کد خروج ۰).", "en": "Everything fits (exit code 0)."},
    "doc_summary_fail": {"fa": "{count} مورد جا نمی‌شود؛ پیشنهادهای بالا را ببینید (کد خروج ۱).",
                         "en": "{count} item(s) do not fit; see what to change above (exit code 1)."},
    "doc_this_command": {"fa": "این فرمان خودش: {rss} مگابایت حافظه، {threads} رشته.",
                         "en": "This command itself: {rss} MB of memory, {threads} thread(s)."},
    # Memory: processes x a worker's RSS + one cron run.
    "doc_memory_fits": {
        "fa": "حافظه: {processes} پردازش × {rss} مگابایت + cron {cron} مگابایت = {need} مگابایت، در {usable} "
              "مگابایت (۸۵٪ از سقف {limit} مگابایت) جا می‌شود.",
        "en": "Memory: {processes} processes × {rss} MB + cron {cron} MB = {need} MB fits in {usable} MB "
              "(85% of the {limit} MB limit)."},
    "doc_memory_over": {
        "fa": "حافظه: {processes} پردازش × {rss} مگابایت + cron {cron} مگابایت = {need} مگابایت، بیش از {usable} "
              "مگابایت (۸۵٪ از سقف {limit} مگابایت) است.",
        "en": "Memory: {processes} processes × {rss} MB + cron {cron} MB = {need} MB is more than {usable} MB "
              "(85% of the {limit} MB limit)."},
    "doc_memory_unlimited": {
        "fa": "حافظه: برای این حساب سقفی تعیین نشده؛ نیاز: {need} مگابایت ({processes} × {rss} + cron {cron}).",
        "en": "Memory: no limit is set for this account; needed: {need} MB ({processes} × {rss} + cron {cron})."},
    "doc_memory_unread": {
        "fa": "حافظه: سقف حافظه خوانده نشد (cgroup و ‎/proc/lve/list‎)؛ نیاز: {need} مگابایت ({processes} × {rss} + "
              "cron {cron}). آن را با «Physical Memory» در صفحهٔ آمار منابع cPanel مقایسه کنید.",
        "en": "Memory: could not read the memory limit (cgroup, /proc/lve/list); needed: {need} MB ({processes} × "
              "{rss} + cron {cron}). Compare it with Physical Memory in cPanel's resource usage page."},
    "doc_as_unlimited": {"fa": "فضای نشانی هر پردازش (RLIMIT_AS): بی‌سقف.",
                         "en": "Address space per process (RLIMIT_AS): no limit."},
    "doc_as_set": {"fa": "فضای نشانی هر پردازش (RLIMIT_AS): {limit} مگابایت.",
                   "en": "Address space per process (RLIMIT_AS): {limit} MB."},
    "doc_as_over": {"fa": "فضای نشانی هر پردازش (RLIMIT_AS): {limit} مگابایت، کمتر از {rss} مگابایتی که یک "
                          "اجرای cron لازم دارد.",
                    "en": "Address space per process (RLIMIT_AS): {limit} MB, less than the {rss} MB a cron run "
                          "needs."},
    # Processes: every thread counts against NPROC.
    "doc_nproc_fits": {"fa": "پردازش‌ها: {processes} پردازش × {threads} رشته + cron و پوسته‌ها = {need}، در سقف "
                             "{limit} (NPROC) جا می‌شود.",
                       "en": "Processes: {processes} processes × {threads} threads + cron and shells = {need} fits "
                             "in the limit of {limit} (NPROC)."},
    "doc_nproc_over": {"fa": "پردازش‌ها: {processes} پردازش × {threads} رشته + cron و پوسته‌ها = {need}، بیش از سقف "
                             "{limit} (NPROC) است؛ رشته‌ها هم شمرده می‌شوند.",
                       "en": "Processes: {processes} processes × {threads} threads + cron and shells = {need} is "
                             "more than the limit of {limit} (NPROC); threads count too."},
    "doc_nproc_unlimited": {"fa": "پردازش‌ها: سقفی تعیین نشده؛ نیاز: {need}.",
                            "en": "Processes: no limit is set; needed: {need}."},
    "doc_nproc_unread": {"fa": "پردازش‌ها: سقف پردازش‌ها خوانده نشد (pids.max، ‎/proc/lve/list‎، RLIMIT_NPROC)؛ "
                               "نیاز: {need}.",
                         "en": "Processes: could not read the process limit (pids.max, /proc/lve/list, "
                               "RLIMIT_NPROC); needed: {need}."},
    # Database connections at once, and per hour.
    "doc_conn_fits": {"fa": "اتصال‌های پایگاه داده: ۲ × ({processes} پردازش + cron + یک فرمان) = {need}، در سقف {limit} "
                            "جا می‌شود.",
                      "en": "Database connections: 2 × ({processes} processes + cron + one command) = {need} fits in "
                            "the limit of {limit}."},
    "doc_conn_over": {"fa": "اتصال‌های پایگاه داده: ۲ × ({processes} پردازش + cron + یک فرمان) = {need}، بیش از سقف "
                            "{limit} (max_user_connections) است.",
                      "en": "Database connections: 2 × ({processes} processes + cron + one command) = {need} is more "
                            "than the limit of {limit} (max_user_connections)."},
    "doc_conn_unlimited": {"fa": "اتصال‌های پایگاه داده: سقفی ندارد (SQLite)؛ نیاز: {need}.",
                           "en": "Database connections: no limit (SQLite); needed: {need}."},
    "doc_conn_unread": {"fa": "اتصال‌های پایگاه داده: max_user_connections خوانده نشد؛ نیاز: {need}.",
                        "en": "Database connections: could not read max_user_connections; needed: {need}."},
    "doc_connh_fits": {"fa": "اتصال در ساعت: حدود {need}، در سقف {limit} جا می‌شود.",
                       "en": "Connections per hour: about {need} fits in the cap of {limit}."},
    "doc_connh_over": {"fa": "اتصال در ساعت: حدود {need}، بیش از سقف {limit} (MAX_CONNECTIONS_PER_HOUR) است.",
                       "en": "Connections per hour: about {need} is more than the cap of {limit} "
                             "(MAX_CONNECTIONS_PER_HOUR)."},
    "doc_connh_unlimited": {"fa": "اتصال در ساعت: سقفی ندارد (حدود {need}).",
                            "en": "Connections per hour: no cap (about {need})."},
    "doc_connh_unread": {"fa": "اتصال در ساعت: سقف ساعتی خوانده نشد (SHOW GRANTS)؛ حدود {need}.",
                         "en": "Connections per hour: could not read the hourly cap (SHOW GRANTS); about {need}."},
    # Statements per hour: a full hour of broadcasting plus updates and cron runs.
    "doc_queries_fit": {"fa": "پرس‌وجو در ساعت: یک ساعت ارسال با {rate} پیام/ثانیه + {updates} پیام کاربر = حدود "
                              "{need}، در سقف {limit} جا می‌شود.",
                        "en": "Queries per hour: an hour of broadcasting at {rate} msg/s + {updates} user updates = "
                              "about {need}, fits in the cap of {limit}."},
    "doc_queries_over": {"fa": "پرس‌وجو در ساعت: یک ساعت ارسال با {rate} پیام/ثانیه + {updates} پیام کاربر = حدود "
                               "{need}، بیش از سقف {limit} (MAX_QUERIES_PER_HOUR) است.",
                         "en": "Queries per hour: an hour of broadcasting at {rate} msg/s + {updates} user updates = "
                               "about {need}, more than the cap of {limit} (MAX_QUERIES_PER_HOUR)."},
    "doc_queries_unlimited": {"fa": "پرس‌وجو در ساعت: سقفی ندارد (حدود {need} با {rate} پیام/ثانیه).",
                              "en": "Queries per hour: no cap (about {need} at {rate} msg/s)."},
    "doc_queries_unread": {"fa": "پرس‌وجو در ساعت: سقف ساعتی خوانده نشد؛ حدود {need} با {rate} پیام/ثانیه.",
                           "en": "Queries per hour: could not read the hourly cap; about {need} at {rate} msg/s."},
    # Cron: its budget against its interval, and its last run.
    "doc_cron_fits": {"fa": "cron: شروع و بودجهٔ {seconds} ثانیه = {need} ثانیه، در فاصلهٔ {interval} ثانیه جا می‌شود.",
                      "en": "Cron: its start and its {seconds} s budget = {need} s fit in its {interval} s interval."},
    "doc_cron_over": {"fa": "cron: شروع و بودجهٔ {seconds} ثانیه = {need} ثانیه، از فاصلهٔ {interval} ثانیه بیشتر است.",
                      "en": "Cron: its start and its {seconds} s budget = {need} s are more than its {interval} s "
                            "interval."},
    "doc_cron_ran": {"fa": "آخرین اجرای cron: {minutes} دقیقه پیش، {ms} میلی‌ثانیه.",
                     "en": "Cron's last run: {minutes} min ago, {ms} ms."},
    "doc_cron_long": {"fa": "آخرین اجرای cron: {ms} میلی‌ثانیه طول کشید، بیش از فاصلهٔ {interval} ثانیه.",
                      "en": "Cron's last run took {ms} ms, longer than its {interval} s interval."},
    "doc_cron_late": {"fa": "cron دیر کرده: آخرین اجرا {minutes} دقیقه پیش، و کاری منتظر است.",
                      "en": "Cron is late: its last run was {minutes} min ago, and work is waiting."},
    "doc_cron_never": {"fa": "cron هنوز هیچ‌بار اجرا نشده است.", "en": "Cron has not run yet."},
    "doc_cron_unread": {"fa": "cron: اجراهای ثبت‌شده خوانده نشد (پایگاه داده).",
                        "en": "Cron: could not read its recorded runs (the database)."},
    # The webhook, as Telegram sees it.
    "doc_webhook_ok": {"fa": "وبهوک: {url}، {pending} به‌روزرسانی در صف.",
                       "en": "Webhook: {url}, {pending} update(s) pending."},
    "doc_webhook_none": {"fa": "وبهوک: تنظیم نشده است.", "en": "Webhook: not set."},
    "doc_webhook_elsewhere": {"fa": "وبهوک: {url} با PUBLIC_URL ({public_url}) جور نیست.",
                              "en": "Webhook: {url} does not match PUBLIC_URL ({public_url})."},
    "doc_webhook_error": {"fa": "وبهوک: تلگرام در ساعت گذشته خطا دیده: {error} ({pending} در صف).",
                          "en": "Webhook: Telegram saw an error in the last hour: {error} ({pending} pending)."},
    "doc_webhook_pending": {"fa": "وبهوک: {pending} به‌روزرسانی در صف تلگرام مانده است.",
                            "en": "Webhook: {pending} updates are waiting at Telegram."},
    "doc_webhook_unread": {"fa": "وبهوک: از تلگرام خوانده نشد (توکن یا شبکه).",
                           "en": "Webhook: could not read it from Telegram (token or network)."},
    # Disk space and inodes.
    "doc_disk_ok": {"fa": "دیسک {path}: {free} مگابایت و {inodes} inode آزاد.",
                    "en": "Disk {path}: {free} MB and {inodes} inodes free."},
    "doc_disk_ok_no_inodes": {"fa": "دیسک {path}: {free} مگابایت آزاد (شمار inode گزارش نمی‌شود).",
                              "en": "Disk {path}: {free} MB free (no inode count reported)."},
    "doc_disk_low": {"fa": "دیسک {path}: {free} مگابایت و {inodes} inode آزاد؛ کمتر از {min_mb} مگابایت یا "
                           "{min_inodes} inode.",
                     "en": "Disk {path}: {free} MB and {inodes} inodes free; less than {min_mb} MB or "
                           "{min_inodes} inodes."},
    "doc_disk_unread": {"fa": "دیسک {path}: فضای آزاد خوانده نشد.", "en": "Disk {path}: could not read free space."},
    # What to change.
    "doc_fix_processes": {
        "fa": "پردازش‌های Passenger را به {processes} کم کنید (از میزبان بخواهید PassengerMaxPoolSize را {processes} "
              "بگذارد) یا سقف بزرگ‌تری بخواهید؛ سپس ‎flask doctor --processes {processes}‎ را اجرا کنید.",
        "en": "lower Passenger's processes to {processes} (ask the host to set PassengerMaxPoolSize {processes}) "
              "or ask for a larger limit; then run flask doctor --processes {processes}."},
    "doc_fix_host": {"fa": "از میزبان سقف بزرگ‌تری بخواهید.", "en": "ask the host for a larger limit."},
    "doc_fix_rate": {"fa": "سرعت ارسال را کم کنید: ‎flask --app wsgi settings set broadcast_rate_per_second {rate}‎",
                     "en": "lower the broadcast rate: flask --app wsgi settings set broadcast_rate_per_second {rate}"},
    "doc_fix_queries_cap": {"fa": "هیچ سرعتی جا نمی‌شود: از میزبان سقف پرس‌وجوی بزرگ‌تری بخواهید.",
                            "en": "no rate fits: ask the host for a larger query cap."},
    "doc_fix_cron_seconds": {"fa": "‎flask --app wsgi settings set cron_pump_seconds {seconds}‎",
                             "en": "flask --app wsgi settings set cron_pump_seconds {seconds}"},
    "doc_fix_cron": {"fa": "کران‌جاب cPanel را بررسی کنید (بخش ۸ راهنما) و ‎~/logs/update_pack_pump.log‎ را ببینید.",
                     "en": "check cPanel's cron job (the guide's step 8) and read ~/logs/update_pack_pump.log."},
    "doc_fix_webhook": {"fa": "‎flask --app wsgi telegram set-webhook PUBLIC_URL/telegram/webhook‎",
                        "en": "flask --app wsgi telegram set-webhook PUBLIC_URL/telegram/webhook"},
    "doc_fix_webhook_error": {"fa": "‎/healthz‎ و لاگ Passenger را ببینید؛ خطای تلگرام را در ‎telegram webhook-info‎ "
                                    "بخوانید.",
                              "en": "open /healthz and the Passenger log; read Telegram's error in "
                                    "telegram webhook-info."},
    "doc_fix_disk": {"fa": "فایل‌های کهنه (لاگ‌ها، خروجی‌ها، ‎~/.cache/pip‎) را پاک کنید یا فضای بیشتری بخواهید.",
                     "en": "delete old files (logs, exports, ~/.cache/pip) or ask for more space."},
}
