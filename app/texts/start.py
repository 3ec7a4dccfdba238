"""Texts for everyone and the admin menu: /start, unknown input, /cancel."""
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
    # --- /cancel ---
    "cancelled": {"fa": "✅ لغو شد.", "en": "✅ Cancelled."},
    "nothing_to_cancel": {"fa": "کاری برای لغو در جریان نیست.", "en": "There is nothing to cancel."},
}
