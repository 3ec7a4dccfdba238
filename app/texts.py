"""Every user-facing text, Persian first and English second; no copy lives in handlers."""
from __future__ import annotations

TEXTS: dict[str, dict[str, str]] = {
    # --- everyone ---
    "welcome": {
        "fa": "سلام {name}! 👋\nبه ربات آپدیت پک خوش آمدید. از این پس اطلاعیه‌ها و به‌روزرسانی‌ها را اینجا دریافت می‌کنید.",
        "en": "Hi {name}! 👋\nWelcome to Update Pack bot. You will receive announcements and updates here.",
    },
    "unknown_command": {
        "fa": "متوجه نشدم. برای شروع دوباره /start را بزنید.",
        "en": "Sorry, I did not understand. Send /start to begin again.",
    },
    "not_admin": {"fa": "⛔️ این بخش فقط برای مدیران است.", "en": "⛔️ This section is for admins only."},
    # --- admin menu ---
    "admin_menu": {"fa": "🛠 منوی مدیریت:", "en": "🛠 Admin menu:"},
    "menu_broadcast": {"fa": "📢 پیامرسانی همگانی", "en": "📢 Broadcast"},
    "menu_settings": {"fa": "⚙️ تنظیمات ارسال", "en": "⚙️ Broadcast settings"},
    "menu_jobs": {"fa": "📋 ارسال‌های اخیر", "en": "📋 Recent broadcasts"},
    # --- broadcast wizard ---
    "wiz_send_message": {
        "fa": "پیامی را که می‌خواهید برای کاربران ارسال شود بفرستید (متن، عکس، ویدیو، فایل و …).\nبرای انصراف /cancel را بزنید.",
        "en": "Send the message to broadcast (text, photo, video, file …).\nSend /cancel to stop.",
    },
    "wiz_empty": {"fa": "❌ پیام خالی است؛ یک پیام بفرستید.", "en": "❌ The message is empty; please send a message."},
    "wiz_text_too_long": {
        "fa": "❌ متن پیام {length} نویسه است؛ حداکثر ۴۰۹۶ نویسه مجاز است. کوتاه‌ترش کنید و دوباره بفرستید.",
        "en": "❌ The text is {length} characters; at most 4096 are allowed. Shorten it and send again.",
    },
    "wiz_caption_too_long": {
        "fa": "❌ توضیح (کپشن) {length} نویسه است؛ حداکثر ۱۰۲۴ نویسه مجاز است.",
        "en": "❌ The caption is {length} characters; at most 1024 are allowed.",
    },
    "wiz_unsupported": {
        "fa": "❌ این نوع پیام قابل ارسال همگانی نیست. متن، عکس، ویدیو، فایل، صدا یا استیکر بفرستید.",
        "en": "❌ This kind of message cannot be broadcast. Send text, a photo, video, file, audio or sticker.",
    },
    "wiz_ask_button": {
        "fa": "دکمه‌ی لینک‌دار می‌خواهید؟ به این شکل بفرستید:\nمتن دکمه | https://example.com\nیا «بدون دکمه» را بزنید.",
        "en": "Want a link button? Send it like this:\nButton text | https://example.com\nor tap “No button”.",
    },
    "wiz_bad_button": {
        "fa": "❌ دکمه پذیرفته نشد: {reason}\nنمونه: مشاهده سایت | https://example.com",
        "en": "❌ Button not accepted: {reason}\nExample: Visit site | https://example.com",
    },
    "btn_no_button": {"fa": "بدون دکمه ⏭", "en": "No button ⏭"},
    "wiz_choose_audience": {"fa": "👥 مخاطبان را انتخاب کنید:", "en": "👥 Choose the audience:"},
    "aud_all": {"fa": "همه کاربران ({count})", "en": "All users ({count})"},
    "aud_non_members": {"fa": "غیرعضوهای کانال ({count})", "en": "Not in the channel ({count})"},
    "aud_members": {"fa": "اعضای کانال ({count})", "en": "Channel members ({count})"},
    "aud_name_all": {"fa": "همه کاربران", "en": "all users"},
    "aud_name_non_members": {"fa": "غیرعضوهای کانال", "en": "users not in the channel"},
    "aud_name_members": {"fa": "اعضای کانال", "en": "channel members"},
    "wiz_empty_audience": {"fa": "❌ هیچ کاربری در این گروه نیست؛ گروه دیگری انتخاب کنید.",
                           "en": "❌ Nobody is in this audience; choose another."},
    "wiz_preview": {
        "fa": "👆 پیش‌نمایش: پیام بالا دقیقاً همین‌طور برای کاربران ارسال می‌شود.\n"
              "👥 مخاطبان: {audience}{filters} — {count} نفر\n⏱ زمان تقریبی: {duration}{queue}\n⚙️ گزینه‌ها: {options}\n",
        "en": "👆 Preview: users will see exactly the message above.\n"
              "👥 Audience: {audience}{filters} — {count} users\n⏱ Estimated time: {duration}{queue}\n"
              "⚙️ Options: {options}\n",
    },
    "wiz_ask_send": {"fa": "آیا ارسال شود؟", "en": "Send it?"},
    "wiz_queue_ahead": {"fa": " (پس از {n} پیامِ در صف)", "en": " (after {n} messages already queued)"},
    "flt_langs": {"fa": "زبان: {langs}", "en": "language: {langs}"},
    "flt_active": {"fa": "فعال در {n} روز اخیر", "en": "active in the last {n} days"},
    "flt_joined": {"fa": "عضو‌شده در {n} روز اخیر", "en": "joined in the last {n} days"},
    "flt_sep": {"fa": "؛ ", "en": "; "},
    "list_sep": {"fa": "، ", "en": ", "},
    "lang_fa": {"fa": "فارسی", "en": "Persian"},
    "lang_en": {"fa": "انگلیسی", "en": "English"},
    "lang_other": {"fa": "سایر زبان‌ها", "en": "other languages"},
    "opt_silent": {"fa": "🔕 بی‌صدا", "en": "🔕 silent"},
    "opt_protect": {"fa": "🔒 محافظت از محتوا", "en": "🔒 protected content"},
    "opt_none": {"fa": "بدون گزینه", "en": "none"},
    "btn_opt_silent": {"fa": "🔕 بی‌صدا", "en": "🔕 Silent"},
    "btn_opt_protect": {"fa": "🔒 محافظت", "en": "🔒 Protect"},
    "btn_opt_fa": {"fa": "🌐 فارسی", "en": "🌐 Persian"},
    "btn_opt_en": {"fa": "🌐 انگلیسی", "en": "🌐 English"},
    "btn_opt_other": {"fa": "🌐 سایر", "en": "🌐 Other"},
    "btn_opt_a7": {"fa": "🕒 فعال ۷ روز", "en": "🕒 Active 7d"},
    "btn_opt_a30": {"fa": "🕒 فعال ۳۰ روز", "en": "🕒 Active 30d"},
    "btn_opt_j7": {"fa": "🆕 جدید ۷ روز", "en": "🆕 Joined 7d"},
    "btn_opt_j30": {"fa": "🆕 جدید ۳۰ روز", "en": "🆕 Joined 30d"},
    "dur_seconds": {"fa": "{n} ثانیه", "en": "{n} s"},
    "dur_minutes": {"fa": "{n} دقیقه", "en": "{n} min"},
    "dur_hours": {"fa": "{h} ساعت و {m} دقیقه", "en": "{h} h {m} min"},
    "wiz_paid_line": {
        "fa": "💫 ارسال پولی: هزینه تا {stars} ستاره (۰٫۱ ستاره برای هر پیام، سقف {cap} پیام)\n",
        "en": "💫 Paid broadcast: up to {stars} Stars (0.1 Star per message, cap {cap} messages)\n",
    },
    "wiz_balance_line": {"fa": "💰 موجودی ربات: {balance} ستاره\n", "en": "💰 Bot balance: {balance} Stars\n"},
    "wiz_balance_short": {
        "fa": "❌ موجودی ({balance} ستاره) هزینه‌ی این ارسال ({stars} ستاره) را پوشش نمی‌دهد؛ ستاره بخرید یا "
              "مخاطبان را محدودتر کنید.",
        "en": "❌ The balance ({balance} Stars) cannot cover this broadcast ({stars} Stars); buy Stars or narrow "
              "the audience.",
    },
    "wiz_balance_unknown": {
        "fa": "❌ موجودی ستاره‌های ربات خوانده نشد؛ ارسال پولی ممکن نیست. کمی بعد دوباره امتحان کنید.",
        "en": "❌ The bot's Star balance could not be read; a paid broadcast cannot start. Try again shortly.",
    },
    "wiz_paid_confirm": {
        "fa": "⚠️ تأیید دوم: این ارسال پولی برای {count} نفر است و از موجودی ستاره‌های ربات برداشت می‌شود.\n",
        "en": "⚠️ Second confirmation: this paid broadcast goes to {count} users and is paid from the bot's "
              "Star balance.\n",
    },
    "wiz_paid_refused": {"fa": "❌ ارسال پولی آغاز نشد:\n{line}", "en": "❌ The paid broadcast did not start:\n{line}"},
    "wiz_paid_ask": {"fa": "با پرداخت ارسال شود؟", "en": "Pay and send?"},
    "btn_pay_confirm": {"fa": "💫 بله، با پرداخت ارسال شود", "en": "💫 Yes, pay and send"},
    "wiz_filters_empty": {"fa": "❌ با این فیلترها هیچ کاربری باقی نمی‌ماند.",
                          "en": "❌ Nobody is left with these filters."},
    "wiz_no_channel": {"fa": "کانال اصلی تنظیم نشده است؛ فقط «همه کاربران» در دسترس است.",
                       "en": "No main channel is set; only “all users” is available."},
    "wiz_album_taken": {
        "fa": "🖼 آلبوم دریافت شد. آلبوم‌ها دکمه نمی‌پذیرند (محدودیت تلگرام)، پس بدون دکمه ارسال می‌شود.",
        "en": "🖼 Album received. Albums cannot carry a button (a Telegram rule), so it goes without one.",
    },
    "wiz_album_not_now": {
        "fa": "🖼 این آلبوم استفاده نشد: آلبوم فقط وقتی پذیرفته می‌شود که ربات پیامِ ارسال همگانی را بخواهد"
              " (با /broadcast شروع کنید).",
        "en": "🖼 This album was not used: an album is taken only when the bot asks for the message to"
              " broadcast (start with /broadcast).",
    },
    "wiz_album_gone": {
        "fa": "❌ قسمت‌های آلبوم دیگر در دسترس نیست؛ با /broadcast دوباره شروع کنید و آلبوم را بفرستید.",
        "en": "❌ The album's parts are no longer available; start again with /broadcast and send the album.",
    },
    "wiz_album_free_line": {
        "fa": "ℹ️ آلبوم با سرعت رایگان ارسال می‌شود (تلگرام برای آلبوم ارسال پولی ندارد). هر عکس یک پیام حساب می‌شود.\n",
        "en": "ℹ️ An album goes at the free rate (Telegram has no paid option for albums). Each photo counts as"
              " one message.\n",
    },
    "btn_confirm": {"fa": "✅ تأیید و ارسال", "en": "✅ Confirm and send"},
    "btn_abort": {"fa": "❌ انصراف", "en": "❌ Cancel"},
    "wiz_aborted": {"fa": "ارسال همگانی لغو شد.", "en": "Broadcast cancelled."},
    "wiz_expired": {"fa": "این مرحله منقضی شده است؛ دوباره از منو شروع کنید.",
                    "en": "This step has expired; start again from the menu."},
    "wiz_stale": {"fa": "⌛ این پیش‌نمایش منقضی شده است؛ از دکمه‌های آخرین پیام استفاده کنید.",
                  "en": "⌛ This preview has expired; use the buttons of the latest message."},
    "wiz_queued": {
        "fa": "⏳ ارسال #{id} در صف است و پس از پایان ارسال جاری شروع می‌شود.",
        "en": "⏳ Broadcast #{id} is queued and starts when the current one ends.",
    },
    "wiz_preview_failed": {
        "fa": "❌ پیش‌نمایش به دست شما نرسید، پس دکمه‌ی تأیید نمایش داده نمی‌شود (شاید پیام اصلی پاک شده یا "
              "تلگرام لحظه‌ای شلوغ است). برای تلاش دوباره مخاطبان را انتخاب کنید، یا با /broadcast از نو شروع کنید.",
        "en": "❌ The preview did not reach you, so there is no Confirm button (the original message may have been"
              " deleted, or Telegram is busy for a moment). Choose the audience to try again, or start over with"
              " /broadcast.",
    },
    "wiz_album_parts_line": {"fa": "🖼 آلبوم: {n} بخش برای هر نفر\n", "en": "🖼 Album: {n} parts to each user\n"},
    "wiz_album_late": {
        "fa": "🖼 بخش دیگری از آلبوم رسید؛ پیش‌نمایش تازه با همه‌ی {n} بخش در پایین است و دکمه‌های "
              "پیش‌نمایش قبلی دیگر کار نمی‌کنند.",
        "en": "🖼 Another part of the album arrived; the new preview below has all {n} parts, and the earlier"
              " preview's buttons no longer work.",
    },
    # --- scheduling (app/bot/schedule_wizard.py) ---
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
    # --- personal greeting (app/services/broadcast/greeting.py) ---
    "greeting_fallback": {"fa": "کاربر", "en": "there"},
    "wiz_personal": {
        "fa": "👤 به جای {first_name} نام کوچک هر گیرنده نوشته می‌شود؛ اگر نامی نداشته باشد «کاربر» "
              "(برای کاربران انگلیسی‌زبان «there»).",
        "en": "👤 {first_name} becomes each recipient's first name; when they have none, “کاربر” "
              "(“there” for English-speaking users).",
    },
    "wiz_cannot_personalise": {
        "fa": "⚠️ پیام‌های کپی‌شده (عکس، ویدیو، فایل و …) شخصی‌سازی نمی‌شوند: {first_name} همان‌طور که نوشته‌اید "
              "ارسال می‌شود. برای نام گیرنده، پیام را به صورت متن ساده بفرستید.",
        "en": "⚠️ Copied messages (photo, video, file …) cannot be personalised: {first_name} is sent as typed. "
              "Send a plain text message to greet each recipient by name.",
    },
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
    "unsent_cancelled": {"fa": "⛔️ ارسال‌نشده (لغو شد): {n}", "en": "⛔️ Not sent (cancelled): {n}"},
    "progress_reason": {"fa": "\n⚠️ علت توقف: {reason}", "en": "\n⚠️ Paused because: {reason}"},
    "remaining": {"fa": "باقیمانده: {pending} — دکمه ادامه را بزن", "en": "Remaining: {pending} — tap Continue"},
    "summary": {
        "fa": "🏁 ارسال همگانی #{id} {status}.\n✅ ارسال‌شده: {sent}\n❌ ناموفق: {failed}\n🚫 ردشده: {skipped}\n"
              "❓ نامعلوم: {unknown}\n{unsent}\n⏱ مدت: {duration}",
        "en": "🏁 Broadcast #{id} {status}.\n✅ Sent: {sent}\n❌ Failed: {failed}\n🚫 Skipped: {skipped}\n"
              "❓ Unknown: {unknown}\n{unsent}\n⏱ Took: {duration}",
    },
    # --- unsend and edit: action jobs over a finished broadcast's copies ---
    "action_title_unsend": {"fa": "🗑 حذف ارسال #{source} از همه (کار #{id})",
                            "en": "🗑 Unsend of broadcast #{source} (job #{id})"},
    "action_title_edit": {"fa": "✏️ ویرایش ارسال #{source} برای همه (کار #{id})",
                          "en": "✏️ Edit of broadcast #{source} (job #{id})"},
    "action_counts_unsend": {
        "fa": "🗑 حذف‌شده: {sent}\n👻 از قبل حذف شده بود: {gone}\n⌛️ قدیمی‌تر از ۴۸ ساعت (حذف‌نشدنی): {too_old}\n"
              "🚫 ردشده (مسدود/نامعتبر): {skipped}\n❌ ناموفق: {failed}\n❓ نامعلوم: {unknown}",
        "en": "🗑 Deleted: {sent}\n👻 Already gone: {gone}\n⌛️ Older than 48 h (cannot delete): {too_old}\n"
              "🚫 Skipped (blocked/invalid): {skipped}\n❌ Failed: {failed}\n❓ Unknown: {unknown}",
    },
    "action_counts_edit": {
        "fa": "✏️ ویرایش‌شده: {sent}\n👻 پیام دیگر وجود ندارد: {gone}\n"
              "🚫 ردشده (مسدود/نامعتبر): {skipped}\n❌ ناموفق: {failed}\n❓ نامعلوم: {unknown}",
        "en": "✏️ Edited: {sent}\n👻 Message gone: {gone}\n"
              "🚫 Skipped (blocked/invalid): {skipped}\n❌ Failed: {failed}\n❓ Unknown: {unknown}",
    },
    "progress_action": {
        "fa": "{title} — {status}\n{bar} {percent}٪\n{counts}\n{unsent}\n"
              "⚡️ سرعت: {rate} پیام/ثانیه — زمان باقیمانده: {eta}{reason}",
        "en": "{title} — {status}\n{bar} {percent}%\n{counts}\n{unsent}\n⚡️ Rate: {rate} msg/s — ETA: {eta}{reason}",
    },
    "summary_action": {"fa": "🏁 {title} {status}.\n{counts}\n{unsent}\n⏱ مدت: {duration}",
                       "en": "🏁 {title} {status}.\n{counts}\n{unsent}\n⏱ Took: {duration}"},
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
    "reason_paid_cap": {"fa": "سقف پیام‌های پولی ({cap}) پر شد", "en": "the paid message cap ({cap}) was reached"},
    "reason_admin": {"fa": "توسط مدیر", "en": "by an admin"},
    "eta_unknown": {"fa": "نامشخص", "en": "unknown"},
    # --- callback answers ---
    "cb_working": {"fa": "در حال ارسال…", "en": "Sending…"},
    "cb_cancelled": {"fa": "ارسال لغو شد.", "en": "Broadcast cancelled."},
    "cb_paused": {"fa": "ارسال متوقف شد.", "en": "Broadcast paused."},
    "cb_resumed": {"fa": "ارسال ادامه یافت.", "en": "Broadcast resumed."},
    "cb_finished": {"fa": "این ارسال به پایان رسیده است.", "en": "This broadcast has ended."},
    "cb_busy": {"fa": "ارسال دیگری در جریان است؛ کمی بعد دوباره بزنید.", "en": "Another pump is running; tap again shortly."},
    "cb_unknown_job": {"fa": "این ارسال پیدا نشد.", "en": "Broadcast not found."},
    # --- settings menu ---
    "settings_menu": {"fa": "⚙️ تنظیمات ارسال همگانی (برای تغییر، روی هر مورد بزنید):",
                      "en": "⚙️ Broadcast settings (tap one to change it):"},
    "settings_ask": {
        "fa": "مقدار جدید «{key}» را بفرستید.\nمقدار فعلی: {value} — مجاز: {range}\n{help}",
        "en": "Send the new value of “{key}”.\nCurrent: {value} — allowed: {range}\n{help}",
    },
    "settings_saved": {"fa": "✅ «{key}» = {value} ذخیره شد.", "en": "✅ Saved “{key}” = {value}."},
    "settings_invalid": {"fa": "❌ پذیرفته نشد: {error}", "en": "❌ Not accepted: {error}"},
    # --- statistics and history ---
    "stats": {
        "fa": "📊 آمار ربات\n👥 کاربران: {users}\n🟢 فعال در ۷ روز اخیر: {active_7d}\n"
              "🟢 فعال در ۳۰ روز اخیر: {active_30d}\n🚫 ربات را مسدود کرده‌اند: {blocked}\n"
              "📣 عضو کانال: {channel_members}\n🆕 جدید امروز: {new_today}\n🆕 جدید این هفته: {new_week}\n"
              "(«امروز» از ساعت ۰۰:۰۰ UTC، «این هفته» ۷ روز اخیر)",
        "en": "📊 Bot statistics\n👥 Users: {users}\n🟢 Active in the last 7 days: {active_7d}\n"
              "🟢 Active in the last 30 days: {active_30d}\n🚫 Blocked the bot: {blocked}\n"
              "📣 Channel members: {channel_members}\n🆕 New today: {new_today}\n🆕 New this week: {new_week}\n"
              "(“today” starts at 00:00 UTC, “this week” is the last 7 days)",
    },
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
              "⚡️ سرعت: {rate} پیام/ثانیه\n⏱ مدت: {duration}\n🕒 ایجاد: {created} (UTC){reason}\n\n"
              "📝 گزارش اقدامات:\n{audit}",
        "en": "📢 Broadcast #{id} — {status}\n👤 Author: {author}\n👥 Audience: {audience} — {total} users\n"
              "✅ Sent: {sent}\n❌ Failed: {failed}\n🚫 Skipped: {skipped}\n❓ Unknown: {unknown}\n{unsent}\n"
              "⚡️ Rate: {rate} msg/s\n⏱ Duration: {duration}\n🕒 Created: {created} (UTC){reason}\n\n"
              "📝 Audit log:\n{audit}",
    },
    "job_view_action": {
        "fa": "{title} — {status}\n👤 ایجادکننده: {author}\n📦 نسخه‌ها: {total}\n{counts}\n{unsent}\n"
              "⚡️ سرعت: {rate} پیام/ثانیه\n⏱ مدت: {duration}\n🕒 ایجاد: {created} (UTC){reason}\n\n"
              "📝 گزارش اقدامات:\n{audit}",
        "en": "{title} — {status}\n👤 Author: {author}\n📦 Copies: {total}\n{counts}\n{unsent}\n"
              "⚡️ Rate: {rate} msg/s\n⏱ Duration: {duration}\n🕒 Created: {created} (UTC){reason}\n\n"
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
    "sched_not_paid": {"fa": "ارسال پولی زمان‌بندی نمی‌شود: موجودی ستاره باید هنگام ارسال تأیید شود.",
                       "en": "A paid broadcast cannot be scheduled: its Star balance is confirmed when it is sent."},
    "act_setting_changed": {"fa": "تنظیم تغییر کرد", "en": "setting changed"},
    "act_retried": {"fa": "دوباره ارسال شد", "en": "retried"},
    "act_exported": {"fa": "خروجی گرفته شد", "en": "exported"},
    "btn_unsend": {"fa": "🗑 حذف از همه", "en": "🗑 Delete from everyone"},
    "btn_edit_all": {"fa": "✏️ ویرایش همه", "en": "✏️ Edit everywhere"},
    "btn_unsend_yes1": {"fa": "🗑 بله، حذف شود", "en": "🗑 Yes, delete it"},
    "btn_unsend_yes2": {"fa": "⚠️ بله، از همه حذف کن", "en": "⚠️ Yes, delete from everyone"},
    "btn_edit_yes": {"fa": "✏️ بله، ویرایش شود", "en": "✏️ Yes, edit it"},
    "btn_act_abort": {"fa": "↩️ انصراف", "en": "↩️ Abort"},
    "unsend_confirm1": {
        "fa": "🗑 ارسال #{id} از گفتگوی {total} کاربر حذف شود؟\nتلگرام فقط پیام‌های کمتر از ۴۸ ساعت را حذف می‌کند.",
        "en": "🗑 Delete broadcast #{id} from the chats of {total} users?\n"
              "Telegram only deletes messages younger than 48 hours.",
    },
    "unsend_confirm2": {"fa": "⚠️ مطمئن هستید؟ حذف ارسال #{id} برگشت‌پذیر نیست.",
                        "en": "⚠️ Are you sure? Deleting broadcast #{id} cannot be undone."},
    "edit_ask_text": {"fa": "✏️ متن تازه‌ی ارسال #{id} را بفرستید (حداکثر {limit} نویسه).",
                      "en": "✏️ Send the new text of broadcast #{id} (at most {limit} characters)."},
    "edit_ask_caption": {"fa": "✏️ توضیح (کپشن) تازه‌ی ارسال #{id} را بفرستید (حداکثر {limit} نویسه).",
                         "en": "✏️ Send the new caption of broadcast #{id} (at most {limit} characters)."},
    "edit_need_text": {"fa": "❌ فقط متن بفرستید (یا رسانه با توضیح).", "en": "❌ Send a text (or media with a caption)."},
    "edit_too_long": {"fa": "❌ متن تازه {length} نویسه است (آن‌گونه که تلگرام می‌شمارد)؛ حداکثر {limit} نویسه مجاز است. "
                            "کوتاه‌ترش کنید و دوباره بفرستید.",
                      "en": "❌ The new text is {length} characters as Telegram counts them; at most {limit} are "
                            "allowed. Shorten it and send again."},
    "edit_confirm": {"fa": "✏️ همه‌ی نسخه‌های ارسال #{id} به متن بالا تغییر کنند؟",
                     "en": "✏️ Change every copy of broadcast #{id} to the text above?"},
    "act_aborted": {"fa": "لغو شد؛ چیزی تغییر نکرد.", "en": "Aborted; nothing changed."},
    "act_too_old": {"fa": "⌛ همه‌ی نسخه‌های ارسال #{id} قدیمی‌تر از ۴۸ ساعت‌اند؛ تلگرام اجازه‌ی حذف نمی‌دهد.",
                    "en": "⌛ Every copy of broadcast #{id} is older than 48 hours; Telegram no longer allows deleting them."},
    "act_nothing": {"fa": "این ارسال نسخه‌ی تحویل‌شده‌ای ندارد.", "en": "This broadcast has no delivered copy."},
    "act_not_finished": {"fa": "ارسال #{id} هنوز تمام نشده است؛ صبر کنید یا آن را لغو کنید.",
                         "en": "Broadcast #{id} has not finished; wait for it or cancel it first."},
    "act_is_action": {"fa": "کار #{id} خودش یک حذف یا ویرایش است، نه یک ارسال.",
                      "en": "Job #{id} is itself an unsend or edit, not a broadcast."},
    "act_retry_busy": {"fa": "ارسال دوباره‌ی #{retry} (از ارسال #{id}) هنوز تمام نشده است؛ حذف و ویرایش نسخه‌های آن را هم "
                             "در بر می‌گیرد. صبر کنید یا آن را لغو کنید.",
                       "en": "Retry #{retry} of broadcast #{id} has not finished; an unsend or edit covers its copies "
                             "too. Wait for it or cancel it first."},
    "act_busy_unsend": {"fa": "کار #{job} همین حالا این ارسال را از همه حذف می‌کند؛ صبر کنید یا آن را لغو کنید.",
                        "en": "Job #{job} is already deleting this broadcast; wait for it or cancel it first."},
    "act_busy_edit": {"fa": "کار #{job} همین حالا این ارسال را ویرایش می‌کند؛ صبر کنید یا آن را لغو کنید.",
                      "en": "Job #{job} is already editing this broadcast; wait for it or cancel it first."},
    "act_in_flight": {"fa": "⏳ {n} نسخه از ارسال #{id} هنوز در راه است؛ چند ثانیه دیگر دوباره امتحان کنید.",
                      "en": "⏳ {n} copies of broadcast #{id} are still on their way; try again in a few seconds."},
    "act_all_deleted": {"fa": "همه‌ی نسخه‌های ارسال #{id} قبلاً حذف شده‌اند (کار #{job}).",
                        "en": "Every copy of broadcast #{id} was already deleted (job #{job})."},
    "act_started_unsend": {"fa": "🗑 حذف ارسال #{source} از {total} گفتگو آغاز شد (کار #{id}).",
                           "en": "🗑 Deleting broadcast #{source} from {total} chats has started (job #{id})."},
    "act_started_edit": {"fa": "✏️ ویرایش ارسال #{source} در {total} گفتگو آغاز شد (کار #{id}).",
                         "en": "✏️ Editing broadcast #{source} in {total} chats has started (job #{id})."},
    "act_unsent": {"fa": "از همه حذف شد", "en": "unsent"},
    "act_edited": {"fa": "برای همه ویرایش شد", "en": "edited everywhere"},
    "act_rescheduled": {"fa": "زمان ارسال تغییر کرد", "en": "rescheduled"},
    "act_sent_now": {"fa": "بی‌درنگ به صف ارسال رفت", "en": "sent now (released from its schedule)"},
    "edit_confirm_personal": {
        "fa": "✏️ همه‌ی نسخه‌های ارسال #{id} به متن بالا تغییر کنند؟\n👤 نمونه با نام شماست؛ هر گیرنده نام کوچک خودش را "
              "می‌بیند (بی‌نام‌ها «کاربر» یا «there»). نامی بسیار بلند ممکن است نسخه‌ی همان گیرنده را از حد تلگرام "
              "بلندتر کند.",
        "en": "✏️ Change every copy of broadcast #{id} to the text above?\n👤 The sample carries your name; each "
              "recipient sees their own first name (“کاربر” or “there” when they have none). A very long name can "
              "make that recipient's copy too long for Telegram.",
    },
    "edit_bad_html": {"fa": "❌ تلگرام این قالب‌بندی را نمی‌پذیرد ({problem})؛ متن را دوباره بفرستید.",
                      "en": "❌ Telegram cannot parse this formatting ({problem}); send the text again."},
    # --- the ledger: retry and export ---
    "btn_retry": {"fa": "🔁 ارسال دوباره به ناموفق‌ها", "en": "🔁 Send again to the failed"},
    "btn_retry_not_sent": {"fa": "🔁 ارسال به ارسال‌نشده‌ها (لغو شد)", "en": "🔁 Send to the not sent (cancelled)"},
    "btn_retry_both": {"fa": "🔁 ارسال به ناموفق‌ها و ارسال‌نشده‌ها", "en": "🔁 Send to the failed and the not sent"},
    "btn_retry_unknown": {"fa": "🔁 ناموفق‌ها + نامعلوم‌ها ⚠️", "en": "🔁 Failed + unknown ⚠️"},
    "btn_export": {"fa": "📄 خروجی CSV", "en": "📄 Export CSV"},
    "retry_unknown_warning": {
        "fa": "⚠️ {n} پیام نامعلوم است: شاید به بعضی از این کاربران رسیده باشد. با «ناموفق‌ها + نامعلوم‌ها» "
              "ممکن است بعضی از آن‌ها یک نسخه‌ی دوم دریافت کنند.",
        "en": "⚠️ {n} messages are unknown: some of these users may have received it. “Failed + unknown” "
              "may give some of them a second copy.",
    },
    "retry_paused_note": {
        "fa": "ℹ️ ارسال دوباره، این ارسالِ متوقف‌شده را لغو می‌کند و باقیمانده‌هایش را هم در ارسال تازه می‌فرستد.",
        "en": "ℹ️ Sending again cancels this paused broadcast and sends its remaining messages in the new one.",
    },
    "cb_retried": {"fa": "ارسال تازه #{id} برای {total} نفر ساخته شد.",
                   "en": "New broadcast #{id} created for {total} users."},
    "cb_retry_nothing": {"fa": "کسی برای ارسال دوباره نمانده است.", "en": "Nobody is left to send to again."},
    "cb_retry_refused": {"fa": "این ارسال هنوز در جریان است؛ ابتدا آن را متوقف یا لغو کنید.",
                         "en": "This broadcast is still under way; pause or cancel it first."},
    "cb_retry_blocked": {"fa": "این ارسال در حال حذف/ویرایش است یا از همه حذف شده؛ ارسال دوباره ممکن نیست.",
                         "en": "This broadcast is being unsent or edited, or was deleted from everyone; it cannot be "
                               "sent again."},
    "retry_screen": {
        "fa": "👆 پیش‌نمایش: پیام بالا دقیقاً همین‌طور ارسال می‌شود.\n🔁 ارسال دوباره‌ی #{id}\n"
              "👥 گیرندگان: {who} — {count} نفر\n⏱ زمان تقریبی: {duration}{queue}\n⚙️ گزینه‌ها: {options}\n",
        "en": "👆 Preview: users will see exactly the message above.\n🔁 Sending broadcast #{id} again\n"
              "👥 Recipients: {who} — {count} users\n⏱ Estimated time: {duration}{queue}\n⚙️ Options: {options}\n",
    },
    "retry_who_failed": {"fa": "❌ ناموفق: {n}", "en": "❌ failed: {n}"},
    "retry_who_not_sent": {"fa": "⏹ ارسال‌نشده (لغو شد): {n}", "en": "⏹ not sent (cancelled): {n}"},
    "retry_who_not_sent_paused": {"fa": "⏹ ارسال‌نشده (متوقف): {n}", "en": "⏹ not sent (paused): {n}"},
    "retry_who_unknown": {"fa": "❓ نامعلوم: {n}", "en": "❓ unknown: {n}"},
    "retry_paid_changed": {"fa": "⚠️ تنظیم ارسال پولی پس از این پیش‌نمایش تغییر کرده است؛ پیش‌نمایش تازه را ببینید.",
                           "en": "⚠️ The paid-broadcast setting changed after this preview; see the new one."},
    "retry_balance_refused": {"fa": "❌ ارسال دوباره انجام نشد:\n{line}", "en": "❌ Nothing was sent again:\n{line}"},
    "cb_exporting": {"fa": "در حال ساخت فایل…", "en": "Preparing the file…"},
    "export_caption": {"fa": "📄 گزارش ارسال همگانی #{id}: {rows} ردیف", "en": "📄 Ledger of broadcast #{id}: {rows} rows"},
    "export_failed": {"fa": "❌ فرستادن فایل گزارش ارسال #{id} ناموفق بود؛ دوباره امتحان کنید.",
                      "en": "❌ The ledger file of broadcast #{id} could not be sent; try again."},
    "cb_export_purged": {
        "fa": "فهرست گیرندگان ارسال #{id} پاک‌سازی شده (purge)؛ فایلی برای خروجی نیست. شمارنده‌ها در همین صفحه می‌مانند.",
        "en": "The per-recipient ledger of broadcast #{id} was purged; there is nothing to export. "
              "Its counters remain in this view.",
    },
    "export_purged": {
        "fa": "ℹ️ فهرست گیرندگان ارسال #{id} پاک‌سازی شده (purge)؛ فایلی برای خروجی نیست. شمارنده‌ها می‌مانند.",
        "en": "ℹ️ The per-recipient ledger of broadcast #{id} was purged; there is nothing to export. "
              "Its counters remain.",
    },
    # --- bot handlers (webhook) ---
    "cancelled": {"fa": "✅ لغو شد.", "en": "✅ Cancelled."},
    "nothing_to_cancel": {"fa": "کاری برای لغو در جریان نیست.", "en": "There is nothing to cancel."},
    "wiz_use_buttons": {"fa": "از دکمه‌های پیام بالا استفاده کنید یا برای انصراف /cancel را بزنید.",
                        "en": "Use the buttons of the message above, or send /cancel to stop."},
    "btn_err_format": {"fa": "متن دکمه و لینک را با «|» جدا کنید.",
                       "en": "separate the button text and the link with “|”."},
    "btn_err_text_long": {"fa": "متن دکمه {length} نویسه است؛ حداکثر ۶۴ نویسه مجاز است.",
                          "en": "the button text is {length} characters; at most 64 are allowed."},
    "btn_err_url": {"fa": "لینک باید با http:// یا https:// شروع شود، نام دامنه داشته باشد و فاصله نداشته باشد.",
                    "en": "the link must start with http:// or https://, name a host and contain no spaces."},
    "btn_err_url_long": {"fa": "لینک {length} نویسه است؛ حداکثر ۵۱۲ نویسه مجاز است.",
                         "en": "the link is {length} characters; at most 512 are allowed."},
    "wiz_create_failed": {"fa": "❌ ساخت ارسال همگانی ممکن نشد: {error}",
                          "en": "❌ The broadcast could not be created: {error}"},
    "settings_need_text": {"fa": "مقدار را به صورت متن بفرستید.", "en": "send the value as text."},
    "settings_unknown": {"fa": "این تنظیم وجود ندارد.", "en": "No such setting."},
    "btn_err_url_host": {
        "fa": "نشانی لینک باید یک نام دامنه‌ی واقعی داشته باشد، مانند example.com یا t.me؛ تلگرام نشانی بی‌دامنه "
              "(مانند https://intranet) را نمی‌پذیرد و نشانی IP هم پذیرفته نیست.",
        "en": "the link must name a real domain such as example.com or t.me; Telegram refuses an address without "
              "one (like https://intranet), and IP addresses are not accepted either.",
    },
}

DEFAULT_LANG = "fa"


def lang_of(language_code: str | None) -> str:
    """Pick Persian unless the user's Telegram language is clearly English-first."""
    if language_code and language_code.lower().startswith("en"):
        return "en"
    return DEFAULT_LANG


def t(key: str, lang: str = DEFAULT_LANG, /, **values) -> str:
    """Return the text for key in lang (falling back to Persian), formatted with values."""
    entry = TEXTS[key]
    template = entry.get(lang) or entry[DEFAULT_LANG]
    return template.format(**values) if values else template


def all_variants(key: str) -> set[str]:
    """Return every language's text for key (to recognise reply-keyboard buttons)."""
    return set(TEXTS[key].values())
