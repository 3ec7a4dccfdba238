"""Texts of the broadcast wizard: the message, its button, the audience, albums, confirming."""
from __future__ import annotations

TEXTS: dict[str, dict[str, str]] = {
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
        "fa": "دکمه‌ی لینک‌دار می‌خواهید؟ به این شکل بفرستید:\nمتن دکمه | https://example.com\n"
              "یا دکمه‌ای که به هر کس آن را بزند برچسب می‌دهد:\nمتن دکمه | tag:برچسب | پاسخ کوتاه\n"
              "یا یک کیبورد: هر ردیف یک خط، دکمه‌های یک ردیف با « | »، هر دکمه به یکی از این شکل‌ها:\n"
              "فروشگاه - https://example.com | کد تخفیف - copy:SALE20\n"
              "می‌آیم - tag:برچسب:ثبت شد | ساعت کار - menu:شنبه تا چهارشنبه ۹ تا ۱۷\n"
              "(تا ۸ دکمه در ردیف و ۱۰۰ دکمه در کل) یا «بدون دکمه» را بزنید.",
        "en": "Want a link button? Send it like this:\nButton text | https://example.com\n"
              "or a button that tags whoever taps it:\nButton text | tag:TAG | short answer\n"
              "or a keyboard: a row per line, buttons in a row separated by “ | ”, each one of these:\n"
              "Shop - https://example.com | Code - copy:SALE20\n"
              "I'm in - tag:TAG:Noted | Hours - menu:Sat–Wed 9 to 17\n"
              "(up to 8 buttons a row, 100 in all), or tap “No button”.",
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
    "wiz_album_late": {
        "fa": "🖼 بخش دیگری از آلبوم رسید؛ پیش‌نمایش تازه با همه‌ی {n} بخش در پایین است و دکمه‌های "
              "پیش‌نمایش قبلی دیگر کار نمی‌کنند.",
        "en": "🖼 Another part of the album arrived; the new preview below has all {n} parts, and the earlier"
              " preview's buttons no longer work.",
    },
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
    "wiz_cancelled_preparing": {
        "fa": "⛔️ ارسال همگانی #{id} هنگام آماده‌سازی لغو شد؛ چیزی ارسال نشد و نخواهد شد "
              "({count} گیرنده ارسال‌نشده).",
        "en": "⛔️ Broadcast #{id} was cancelled while it was being prepared; nothing was or will be sent "
              "({count} recipients not sent).",
    },
    "wiz_create_failed": {"fa": "❌ ساخت ارسال همگانی ممکن نشد: {error}",
                          "en": "❌ The broadcast could not be created: {error}"},
    "btn_err_url_host": {
        "fa": "نشانی لینک باید یک نام دامنه‌ی واقعی داشته باشد، مانند example.com یا t.me؛ تلگرام نشانی بی‌دامنه "
              "(مانند https://intranet) را نمی‌پذیرد و نشانی IP هم پذیرفته نیست.",
        "en": "the link must name a real domain such as example.com or t.me; Telegram refuses an address without "
              "one (like https://intranet), and IP addresses are not accepted either.",
    },
}
