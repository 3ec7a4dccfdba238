"""Texts of the after-send actions: unsend, edit everywhere, retry and export."""
from __future__ import annotations

TEXTS: dict[str, dict[str, str]] = {
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
    "act_landing": {"fa": "⏳ پاسخ تلگرام برای {n} نسخه از ارسال #{id} نرسید و ممکن است هنوز برسند؛ "
                          "{s} ثانیه‌ی دیگر دوباره امتحان کنید.",
                    "en": "⏳ Telegram's answer for {n} copies of broadcast #{id} never came and they may still "
                          "arrive; try again in {s} s."},
    "act_unreachable": {"fa": "\n⚠️ {n} نسخه نامعلوم است: پاسخ تلگرام برای آن‌ها گم شد، پس ربات نمی‌داند رسیده‌اند "
                              "یا نه و شناسه‌ی پیامشان را ندارد؛ این نسخه‌ها اگر رسیده باشند دست‌نخورده می‌مانند.",
                        "en": "\n⚠️ {n} copies are unknown: Telegram's answer for them was lost, so the bot does not "
                              "know whether they arrived and has no message id for them; if they did arrive, they "
                              "stay as they are."},
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
    # The retry screen's preview did not arrive: no screen, no Confirm; Try again sends a new preview.
    "retry_preview_failed": {
        "fa": "❌ پیش‌نمایش به دست شما نرسید، پس دکمه‌ی تأیید نمایش داده نمی‌شود و چیزی ارسال نشد (شاید پیام اصلی "
              "پاک شده یا تلگرام لحظه‌ای شلوغ است). برای تلاش دوباره «🔁 تلاش دوباره» را بزنید.",
        "en": "❌ The preview did not reach you, so there is no Confirm button and nothing was sent (the original "
              "message may have been deleted, or Telegram is busy for a moment). Tap “🔁 Try again” to try once more.",
    },
    "btn_retry_again": {"fa": "🔁 تلاش دوباره", "en": "🔁 Try again"},
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
}
