"""Texts of the keyboard builder: each refusal naming its row and button, the presses' answers, the preview."""
from __future__ import annotations

# A text sent to everyone as typed (content/placeholders.fixed): the place, then why.
_AS_TYPED = {"fa": "{placeholder} برای همه به همین شکل نوشته می‌شود: دکمه‌ها و پاسخ‌هایشان برای همه یکی است و "
                   "فقط متنِ یک ارسالِ متنی برای هر گیرنده پر می‌شود.",
             "en": "{placeholder} would reach every user as typed: buttons and their answers are the same for "
                   "everyone; only a text broadcast's text is filled in for each recipient."}
_PLACES = {"label": ("متن دکمه", "the button's label"), "answer": ("پاسخ دکمه", "the button's answer"),
           "copy": ("متن کپی", "the text to copy"), "note": ("متن پیام زیر آلبوم", "the text under the album"),
           "link": ("متن دکمهٔ لینک", "the link button's text"), "tap": ("متن دکمهٔ برچسب", "the tap button's text"),
           "tap_answer": ("پاسخ دکمهٔ برچسب", "the tap button's answer")}

TEXTS: dict[str, dict[str, str]] = {
    **{f"ph_fixed_{place}": {"fa": f"{fa}: " + _AS_TYPED["fa"], "en": f"{en}: " + _AS_TYPED["en"]}
       for place, (fa, en) in _PLACES.items()},
    "key_err_at": {"fa": "ردیف {row}، دکمهٔ {button}: {reason}", "en": "row {row}, button {button}: {reason}"},
    "key_err_none": {"fa": "کیبورد هیچ دکمه‌ای ندارد.", "en": "the keyboard has no button."},
    "key_err_too_many": {"fa": "کیبورد {count} دکمه دارد؛ تلگرام حداکثر ۱۰۰ دکمه می‌پذیرد.",
                         "en": "the keyboard has {count} buttons; Telegram allows at most 100."},
    "key_err_empty_row": {"fa": "ردیف {number} خالی است؛ هر ردیف دست‌کم یک دکمه لازم دارد.",
                          "en": "row {number} is empty; every row needs at least one button."},
    "key_err_row_full": {"fa": "این ردیف {count} دکمه دارد؛ تلگرام در هر ردیف حداکثر ۸ دکمه می‌پذیرد.",
                         "en": "this row has {count} buttons; Telegram allows at most 8 in a row."},
    "key_err_format": {
        "fa": "شکل دکمه شناخته نشد. نمونه‌ها: «متن - https://example.com»، «متن - copy:متن کپی»، "
              "«متن - tag:برچسب:پاسخ»، «متن - menu:پاسخ».",
        "en": "the button's form is not understood. Examples: “Text - https://example.com”, “Text - copy:TEXT”, "
              "“Text - tag:TAG:ANSWER”, “Text - menu:ANSWER”.",
    },
    "key_err_label": {"fa": "متن دکمه {length} نویسه است؛ باید ۱ تا ۶۴ نویسه باشد.",
                      "en": "the button's label is {length} characters; it must be 1 to 64."},
    "key_err_url": {"fa": "{reason}", "en": "{reason}"},
    "key_err_copy": {"fa": "متن کپی {length} نویسه است؛ باید ۱ تا ۲۵۶ نویسه باشد.",
                     "en": "the text to copy is {length} characters; it must be 1 to 256."},
    "key_err_answer": {"fa": "پاسخ دکمه {length} نویسه است؛ باید حداکثر ۲۰۰ نویسه باشد (دکمهٔ منو: دست‌کم ۱).",
                       "en": "the button's answer is {length} characters; at most 200 (a menu button needs one)."},
    "key_err_tag": {"fa": "برچسب پذیرفته نشد: {error}", "en": "the tag is refused: {error}"},
    "key_err_note": {"fa": "متن پیام زیر آلبوم {length} نویسه است؛ حداکثر ۴۰۹۶ نویسه مجاز است.",
                     "en": "the text under the album is {length} characters; at most 4096 are allowed."},
    "wiz_bad_key": {"fa": "❌ کیبورد پذیرفته نشد: {reason}\nپیش‌نویس نگه داشته شد؛ کیبورد را درست کنید و دوباره بفرستید.",
                    "en": "❌ Keyboard not accepted: {reason}\nThe draft is kept; correct the keyboard and send it again."},
    "key_preview": {"fa": "این پیش‌نمایش است؛ در پیام کاربران این دکمه پاسخ می‌دهد یا برچسب می‌زند.",
                    "en": "This is the preview; in users' copies this button answers or tags."},
    "key_refused": {"fa": "این دکمه دیگر کاری انجام نمی‌دهد.", "en": "This button does nothing any more."},
    # A keyboard's numbers per button (reporting/key_stats.py): the job view and the results picture.
    "key_kind_url": {"fa": "لینک", "en": "link"},
    "key_kind_tap": {"fa": "برچسب", "en": "tag"},
    "key_kind_menu": {"fa": "منو", "en": "menu"},
    "key_stat_url": {"fa": "«{text}» ({kind}): {clicks} کلیک، {first} کلیک اول",
                     "en": "“{text}” ({kind}): {clicks} clicks, {first} first clicks"},
    "key_stat_press": {"fa": "«{text}» ({kind}): {presses} بار زده شد", "en": "“{text}” ({kind}): {presses} presses"},
    "key_stats_title": {"fa": "🔘 دکمه‌ها (پرکارترین اول):", "en": "🔘 Buttons (busiest first):"},
    "key_stats_more": {"fa": "… و {n} دکمهٔ دیگر (همهٔ دکمه‌ها: broadcast status {id})",
                       "en": "… and {n} more (every button: broadcast status {id})"},
    "key_stats_copies": {"fa": "دکمه‌های کپی: {n} (تلگرام کپی‌کردن را به ربات خبر نمی‌دهد؛ شمرده نمی‌شوند)",
                         "en": "Copy buttons: {n} (Telegram does not tell the bot of a copy: not counted)"},
}
