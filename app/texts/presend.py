"""Texts of the pre-send screen: preview, filters, options, estimate, paid sends, greeting."""
from __future__ import annotations

TEXTS: dict[str, dict[str, str]] = {
    "wiz_preview": {
        "fa": "👆 پیش‌نمایش: پیام بالا دقیقاً همین‌طور برای کاربران ارسال می‌شود.\n"
              "👥 مخاطبان: {audience}{filters} — {count} نفر\n⏱ زمان تقریبی: {duration}{queue}\n⚙️ گزینه‌ها: {options}\n",
        "en": "👆 Preview: users will see exactly the message above.\n"
              "👥 Audience: {audience}{filters} — {count} users\n⏱ Estimated time: {duration}{queue}\n"
              "⚙️ Options: {options}\n",
    },
    "wiz_ask_send": {"fa": "آیا ارسال شود؟", "en": "Send it?"},
    "wiz_queue_ahead": {"fa": " (پس از {n} پیامِ در صف)", "en": " (after {n} messages already queued)"},
    "wiz_statement_cap": {"fa": " (آهسته‌تر از حد تلگرام: سقف {cap} پرس‌وجوی پایگاه‌داده در ساعتِ میزبان، حدود {rate} "
                                "پیام در ثانیه)",
                          "en": " (slower than Telegram allows: the host's cap of {cap} database queries an hour, "
                                "about {rate} messages a second)"},
    "flt_langs": {"fa": "زبان: {langs}", "en": "language: {langs}"},
    "flt_active": {"fa": "فعال در {n} روز اخیر", "en": "active in the last {n} days"},
    "flt_sources": {"fa": "از منبع {sources}", "en": "from source {sources}"},
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
        "fa": "💫 ارسال پولی: هزینه تا {stars} ستاره (۰٫۱ ستاره برای هر پیام تحویل‌شده فراتر از ۳۰ پیام رایگان در "
              "ثانیه، سقف {cap} پیام)\n",
        "en": "💫 Paid broadcast: up to {stars} Stars (0.1 Star per delivered message beyond the free 30 a second, "
              "cap {cap} messages)\n",
    },
    "wiz_paid_likely": {
        "fa": "💫 هزینه‌ی محتمل: حدود {stars} ستاره (پیام‌های درون ۳۰ پیام رایگان در ثانیه و پیام‌های تحویل‌نشده "
              "هزینه ندارند)\n",
        "en": "💫 Likely cost: about {stars} Stars (messages within the free 30 a second and undelivered ones "
              "are not billed)\n",
    },
    "wiz_balance_line": {"fa": "💰 موجودی ربات: {balance} ستاره\n", "en": "💰 Bot balance: {balance} Stars\n"},
    "wiz_balance_short": {
        "fa": "❌ موجودی ({balance} ستاره) هزینه‌ی این ارسال ({stars} ستاره) را پوشش نمی‌دهد؛ در @BotFather ستاره "
              "بخرید، مخاطبان را محدودتر کنید، یا ارسال پولی را خاموش کنید (broadcast_paid_enabled).",
        "en": "❌ The balance ({balance} Stars) cannot cover this broadcast ({stars} Stars): top up Stars in "
              "@BotFather, narrow the audience, or turn paid broadcasts off (broadcast_paid_enabled).",
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
    "wiz_paid_at_start": {
        "fa": "⏰ اگر زمان‌بندی شود، موجودی هنگام شروع ارسال خوانده می‌شود؛ اگر آن موقع کافی نباشد، ارسال متوقف "
              "(pause) می‌شود و به شما خبر داده می‌شود.\n",
        "en": "⏰ Scheduled, it reads the balance when it starts; if the balance cannot cover it then, it pauses "
              "and you are told.\n",
    },
    "wiz_paid_ask": {"fa": "با پرداخت ارسال شود؟", "en": "Pay and send?"},
    "btn_pay_confirm": {"fa": "💫 بله، با پرداخت ارسال شود", "en": "💫 Yes, pay and send"},
    "wiz_filters_empty": {"fa": "❌ با این فیلترها هیچ کاربری باقی نمی‌ماند.",
                          "en": "❌ Nobody is left with these filters."},
    "wiz_no_channel": {"fa": "کانال اصلی تنظیم نشده است؛ فقط «همه کاربران» در دسترس است.",
                       "en": "No main channel is set; only “all users” is available."},
    "wiz_album_taken": {
        "fa": "🖼 آلبوم دریافت شد. بخش‌های آلبوم دکمه نمی‌پذیرند (محدودیت تلگرام). برای کیبورد، همین حالا آن را "
              "بفرستید (هر ردیف یک خط، مانند «سایت - https://example.com»)؛ در پیامی کوتاه پس از آلبوم می‌آید.",
        "en": "🖼 Album received. Album parts cannot carry buttons (a Telegram rule). For a keyboard, send it now "
              "(a row per line, like “Site - https://example.com”); it follows the album in a short message.",
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
    "wiz_album_parts_line": {"fa": "🖼 آلبوم: {n} بخش برای هر نفر\n", "en": "🖼 Album: {n} parts to each user\n"},
    # --- personal greeting (app/services/broadcast/content/greeting.py) ---
    "greeting_fallback": {"fa": "کاربر", "en": "there"},
    "wiz_personal": {
        "fa": "👤 به جای {first_name} نام کوچک هر گیرنده نوشته می‌شود؛ اگر نامی نداشته باشد «کاربر» "
              "(برای کاربران انگلیسی‌زبان «there»).",
        "en": "👤 {first_name} becomes each recipient's first name; when they have none, “کاربر” "
              "(“there” for English-speaking users).",
    },
    "wiz_cannot_personalise": {
        "fa": "⚠️ پیام‌های کپی‌شده (عکس، ویدیو، فایل و …) شخصی‌سازی نمی‌شوند: {first_name} و {field:…} همان‌طور "
              "که نوشته‌اید ارسال می‌شوند. برای نام یا فیلد گیرنده، پیام را به صورت متن ساده بفرستید.",
        "en": "⚠️ Copied messages (photo, video, file …) cannot be personalised: {first_name} and {field:…} are "
              "sent as typed. Send a plain text message to fill them in for each recipient.",
    },
    "wiz_personal_fields": {
        "fa": "👤 به جای هر {field:…} مقدار همان فیلدِ هر گیرنده نوشته می‌شود؛ اگر آن را نداشته باشد، متنِ بعد از | "
              "(یا هیچ).",
        "en": "👤 Each {field:…} becomes the recipient's value of that field; when they have none, the text after "
              "| (or nothing).",
    },
    "wiz_bad_placeholder": {
        "fa": "❌ این متن به همین شکل به کاربران می‌رسد: {problem}",
        "en": "❌ This would reach users as typed: {problem}",
    },
}
