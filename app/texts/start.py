"""Texts for everyone and the admin menu: /start, /help, unknown input, /cancel."""
from __future__ import annotations

TEXTS: dict[str, dict[str, str]] = {
    # --- everyone ---
    "welcome": {
        "fa": "سلام {name}! 👋\nبه ربات آپدیت پک خوش آمدید. از این پس اطلاعیه‌ها و به‌روزرسانی‌ها را اینجا دریافت می‌کنید.",
        "en": "Hi {name}! 👋\nWelcome to Update Pack bot. You will receive announcements and updates here.",
    },
    # --- /stop, /subscribe and their buttons ---
    "optout_done": {
        "fa": "🔕 اشتراک شما لغو شد: دیگر پیام‌های همگانی برایتان فرستاده نمی‌شود. "
              "هر وقت خواستید با /subscribe یا دکمهٔ زیر دوباره مشترک شوید.",
        "en": "🔕 You are unsubscribed: broadcasts will no longer be sent to you. "
              "Send /subscribe or press the button below whenever you want them again.",
    },
    "optin_done": {
        "fa": "🔔 دوباره مشترک شدید: اطلاعیه‌ها و به‌روزرسانی‌ها را اینجا دریافت می‌کنید. برای لغو، /stop را بزنید.",
        "en": "🔔 You are subscribed again: announcements and updates arrive here. Send /stop to unsubscribe.",
    },
    "btn_subscribe": {"fa": "🔔 اشتراک دوباره", "en": "🔔 Subscribe again"},
    "btn_optout": {"fa": "🔕 لغو اشتراک", "en": "🔕 Unsubscribe"},
    "unknown_command": {
        "fa": "متوجه نشدم. برای شروع دوباره /start را بزنید.",
        "en": "Sorry, I did not understand. Send /start to begin again.",
    },
    # --- /help: what the bot is for (everyone), what an admin can do (admins) ---
    "help_user": {
        "fa": "ℹ️ این ربات آپدیت پک است: اطلاعیه‌ها و به‌روزرسانی‌های آپدیت پک را برایتان می‌فرستد.\n"
              "کاری لازم نیست انجام دهید؛ پیام‌ها همین‌جا می‌رسند. اگر دیگر پیامی نمی‌رسد، /start را بزنید.\n"
              "برای لغو اشتراک /stop و برای اشتراک دوباره /subscribe را بزنید.",
        "en": "ℹ️ This is the Update Pack bot: it sends you Update Pack's announcements and updates.\n"
              "There is nothing you need to do; they arrive right here. If they stop arriving, send /start.\n"
              "Send /stop to unsubscribe and /subscribe to get them again.",
    },
    "help_admin": {
        "fa": "ℹ️ کارهایی که شما به‌عنوان مدیر می‌توانید انجام دهید:\n\n"
              "{menu_broadcast} یا /broadcast — پیامی برای همهٔ کاربران، یا اعضا / غیراعضای کانال: پیام را بفرستید "
              "(متن، عکس، ویدیو، فایل یا آلبوم)، در صورت نیاز دکمهٔ لینک‌دار یا کیبوردی از چند ردیف دکمه (لینک، کپی متن، برچسب، پاسخ در ربات)، مخاطبان و گزینه‌ها (بی‌صدا، محافظت، زبان، "
              "کاربران فعال یا جدید) یا زمان ارسال (⏰ زمان‌بندی) را انتخاب کنید، پیش‌نمایش را ببینید و تأیید کنید.\n"
              "{menu_jobs} یا /jobs — ارسال‌های اخیر: پیشرفت، توقف موقت / ازسرگیری / لغو، ارسال دوباره به ناموفق‌ها، "
              "خروجی CSV، حذف از همه یا ویرایش همه.\n"
              "/scheduled — ارسال‌های زمان‌بندی‌شده: تغییر زمان، ارسال همین حالا یا لغو.\n"
              "/recurring — ارسال‌های تکرارشونده (روزانه، هفتگی، ماهانه): توقف موقت، ازسرگیری یا پایان.\n"
              "/chains — زنجیره‌های پیام (drip): آمار هر مرحله، توقف موقت، ازسرگیری یا پایان.\n"
              "/tag و /untag — دادن یا برداشتن برچسب: ‎/tag vip 123 456‎ (برچسب‌ها در سگمنت‌ها به کار می‌آیند).\n"
              "{menu_settings} یا /settings — تنظیمات ارسال (سرعت، اندازهٔ دسته و …).\n"
              "/stats — شمار کاربران، فعال‌ها، مسدودکرده‌ها، لغو اشتراک‌کرده‌ها و اعضای کانال.\n"
              "/stop و /subscribe — لغو اشتراک و اشتراک دوباره (برای هر کاربر؛ لغوکرده‌ها در هیچ ارسالی نیستند).\n"
              "/cancel — خروج از کاری که در میانهٔ آن هستید.\n"
              "/start — منوی مدیریت.",
        "en": "ℹ️ What you can do as an admin:\n\n"
              "{menu_broadcast} or /broadcast — a message to every user, or to the channel's members / non-members: "
              "send the message (text, photo, video, file or album), an optional link button or a keyboard of several rows (links, copy text, tag, an answer in the bot), choose the audience "
              "and options (silent, protect, language, active or new users) or a send time (⏰ Schedule), check the "
              "preview and confirm.\n"
              "{menu_jobs} or /jobs — recent broadcasts: progress, pause / resume / cancel, send again to the failed, "
              "export CSV, delete from everyone or edit everywhere.\n"
              "/scheduled — scheduled broadcasts: change the time, send now or cancel.\n"
              "/recurring — recurring broadcasts (daily, weekly, monthly): pause, resume or stop.\n"
              "/chains — drip chains: each step's numbers, pause, resume or stop.\n"
              "/tag and /untag — give users a tag or take it off: /tag vip 123 456 (tags build segments).\n"
              "{menu_settings} or /settings — the sending settings (rate, batch size…).\n"
              "/stats — how many users, active, blocked, opted out, channel members.\n"
              "/stop and /subscribe — unsubscribe and subscribe again (any user; opted-out users are in no broadcast).\n"
              "/cancel — leave what you are in the middle of.\n"
              "/start — the admin menu.",
    },
    "not_admin": {"fa": "⛔️ این بخش فقط برای مدیران است.", "en": "⛔️ This section is for admins only."},
    # --- admin menu ---
    "admin_menu": {"fa": "🛠 منوی مدیریت:", "en": "🛠 Admin menu:"},
    "menu_broadcast": {"fa": "📢 پیامرسانی همگانی", "en": "📢 Broadcast"},
    "menu_settings": {"fa": "⚙️ تنظیمات ارسال", "en": "⚙️ Broadcast settings"},
    "menu_jobs": {"fa": "📋 ارسال‌های اخیر", "en": "📋 Recent broadcasts"},
    # --- /cancel ---
    "cancelled": {"fa": "✅ لغو شد.", "en": "✅ Cancelled."},
    "nothing_to_cancel": {"fa": "کاری برای لغو در جریان نیست.", "en": "There is nothing to cancel."},
}
