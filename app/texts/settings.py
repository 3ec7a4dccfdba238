"""Texts of the settings menu."""
from __future__ import annotations

TEXTS: dict[str, dict[str, str]] = {
    "settings_menu": {"fa": "⚙️ تنظیمات ارسال همگانی (برای تغییر، روی هر مورد بزنید):",
                      "en": "⚙️ Broadcast settings (tap one to change it):"},
    "settings_ask": {
        "fa": "مقدار جدید «{key}» را بفرستید.\nمقدار فعلی: {value} — مجاز: {range}\n{help}",
        "en": "Send the new value of “{key}”.\nCurrent: {value} — allowed: {range}\n{help}",
    },
    "settings_saved": {"fa": "✅ «{key}» = {value} ذخیره شد.", "en": "✅ Saved “{key}” = {value}."},
    "settings_invalid": {"fa": "❌ پذیرفته نشد: {error}", "en": "❌ Not accepted: {error}"},
    "settings_need_text": {"fa": "مقدار را به صورت متن بفرستید.", "en": "send the value as text."},
    "settings_unknown": {"fa": "این تنظیم وجود ندارد.", "en": "No such setting."},
}
