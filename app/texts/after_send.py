"""Texts of pinning a broadcast for everyone and of its auto-expiry (delete for everyone after a time)."""
from __future__ import annotations

TEXTS: dict[str, dict[str, str]] = {
    # --- pin / unpin: action jobs over a finished broadcast's copies ---
    "action_title_pin": {"fa": "📌 سنجاق ارسال #{source} برای همه (کار #{id})",
                         "en": "📌 Pin of broadcast #{source} (job #{id})"},
    "action_title_unpin": {"fa": "📍 برداشتن سنجاق ارسال #{source} (کار #{id})",
                           "en": "📍 Unpin of broadcast #{source} (job #{id})"},
    "action_counts_pin": {
        "fa": "📌 سنجاق‌شده: {sent}\n👻 پیام دیگر وجود ندارد: {gone}\n"
              "🚫 ردشده (مسدود/نامعتبر): {skipped}\n❌ ناموفق: {failed}\n❓ نامعلوم: {unknown}",
        "en": "📌 Pinned: {sent}\n👻 Message gone: {gone}\n"
              "🚫 Skipped (blocked/invalid): {skipped}\n❌ Failed: {failed}\n❓ Unknown: {unknown}",
    },
    "action_counts_unpin": {
        "fa": "📍 سنجاق برداشته شد: {sent}\n👻 پیام دیگر وجود ندارد: {gone}\n"
              "🚫 ردشده (مسدود/نامعتبر): {skipped}\n❌ ناموفق: {failed}\n❓ نامعلوم: {unknown}",
        "en": "📍 Unpinned: {sent}\n👻 Message gone: {gone}\n"
              "🚫 Skipped (blocked/invalid): {skipped}\n❌ Failed: {failed}\n❓ Unknown: {unknown}",
    },
    "job_row_pin": {"fa": "📌 #{id} سنجاق #{source} — {status} — {done}/{total}",
                    "en": "📌 #{id} pin of #{source} — {status} — {done}/{total}"},
    "job_row_unpin": {"fa": "📍 #{id} برداشتن سنجاق #{source} — {status} — {done}/{total}",
                      "en": "📍 #{id} unpin of #{source} — {status} — {done}/{total}"},
    "btn_pin": {"fa": "📌 سنجاق برای همه", "en": "📌 Pin for everyone"},
    "btn_unpin": {"fa": "📍 برداشتن سنجاق", "en": "📍 Unpin"},
    "btn_pin_silent": {"fa": "🔕 سنجاق بی‌صدا", "en": "🔕 Pin silently"},
    "btn_pin_notify": {"fa": "🔔 سنجاق با اعلان", "en": "🔔 Pin and notify"},
    "btn_unpin_yes": {"fa": "✅ بله، سنجاق را بردار", "en": "✅ Yes, unpin"},
    "pin_confirm": {
        "fa": "📌 پیام ارسال #{id} در گفتگوی {total} نفر سنجاق شود؟\n"
              "🔕 بی‌صدا: بدون اعلان برای کاربران. 🔔 با اعلان: هر کاربر یک اعلان می‌گیرد.\n"
              "سرعت مثل یک ارسال است و بعداً با «📍 برداشتن سنجاق» برمی‌گردد.",
        "en": "📌 Pin broadcast #{id} in {total} chats?\n"
              "🔕 Silently: users get no notification. 🔔 Notify: each user gets a notification.\n"
              "It runs at a send's pace; «📍 Unpin» takes it back later.",
    },
    "unpin_confirm": {"fa": "📍 سنجاق ارسال #{id} از گفتگوی {total} نفر برداشته شود؟",
                      "en": "📍 Unpin broadcast #{id} in {total} chats?"},
    "act_started_pin": {"fa": "📌 سنجاق ارسال #{source} در {total} گفتگو آغاز شد (کار #{id}).",
                        "en": "📌 Pinning broadcast #{source} in {total} chats has started (job #{id})."},
    "act_started_unpin": {"fa": "📍 برداشتن سنجاق ارسال #{source} از {total} گفتگو آغاز شد (کار #{id}).",
                          "en": "📍 Unpinning broadcast #{source} in {total} chats has started (job #{id})."},
    "act_busy_pin": {"fa": "کار #{job} همین حالا این ارسال را سنجاق می‌کند؛ صبر کنید یا آن را لغو کنید.",
                     "en": "Job #{job} is pinning this broadcast right now; wait for it or cancel it."},
    "act_busy_unpin": {"fa": "کار #{job} همین حالا سنجاق این ارسال را برمی‌دارد؛ صبر کنید یا آن را لغو کنید.",
                       "en": "Job #{job} is unpinning this broadcast right now; wait for it or cancel it."},
    "pin_already": {"fa": "ارسال #{id} از قبل سنجاق شده است (کار #{job})؛ اول سنجاق را بردارید.",
                    "en": "Broadcast #{id} is pinned already (job #{job}); unpin it first."},
    "unpin_nothing": {"fa": "ارسال #{id} سنجاقی ندارد که برداشته شود؛ اول آن را سنجاق کنید.",
                      "en": "Broadcast #{id} has no pin to remove; pin it first."},
    "act_pinned": {"fa": "برای همه سنجاق شد", "en": "pinned for everyone"},
    "act_unpinned": {"fa": "سنجاق برداشته شد", "en": "unpinned"},
    # --- auto-expiry: delete for everyone T after each copy arrived ---
    "btn_expire": {"fa": "⏳ حذف خودکار", "en": "⏳ Auto-delete"},
    "btn_expire_h": {"fa": "⏳ {h} ساعت", "en": "⏳ {h} h"},
    "btn_expire_off": {"fa": "🚫 لغو حذف خودکار", "en": "🚫 Cancel auto-delete"},
    "expire_pick": {
        "fa": "⏳ هر نسخه‌ی ارسال #{id} چه مدت پس از رسیدن به کاربر برای همه حذف شود؟\n"
              "تلگرام فقط تا ۴۸ ساعت اجازه‌ی حذف می‌دهد؛ نسخه‌ای که تا آن موقع حذف نشود می‌ماند و «قدیمی» شمرده می‌شود.",
        "en": "⏳ How long after each copy of broadcast #{id} arrived should it be deleted for everyone?\n"
              "Telegram allows deleting for 48 hours only; a copy not reached by then stays and counts as too old.",
    },
    "expire_set": {"fa": "⏳ حذف خودکار ارسال #{id}: هر نسخه {after} پس از رسیدنش حذف می‌شود (با cron).",
                   "en": "⏳ Auto-delete for broadcast #{id}: each copy goes {after} after it arrived (run by cron)."},
    "expire_cancelled": {"fa": "🚫 حذف خودکار ارسال #{id} لغو شد.", "en": "🚫 Auto-delete of broadcast #{id} cancelled."},
    "expire_none": {"fa": "ارسال #{id} حذف خودکار ندارد.", "en": "Broadcast #{id} has no auto-delete."},
    "expiry_line_due": {"fa": "\n⏳ حذف خودکار پس از {after}: نوبت بعدی {at} ({left} دیگر)",
                        "en": "\n⏳ Auto-delete after {after}: next pass {at} (in {left})"},
    "expiry_line_now": {"fa": "\n⏳ حذف خودکار پس از {after}: موعدش رسیده؛ اجرای بعدی cron انجامش می‌دهد.",
                        "en": "\n⏳ Auto-delete after {after}: due now; the next cron run does it."},
    "expiry_line_waiting": {"fa": "\n⏳ حذف خودکار پس از {after}: از رسیدن هر نسخه شمرده می‌شود.",
                            "en": "\n⏳ Auto-delete after {after}: counted from each copy's arrival."},
    "expiry_line_done": {"fa": "\n⏳ حذف خودکار پس از {after}: انجام شد (کارهای حذف در فهرست ارسال‌ها).",
                         "en": "\n⏳ Auto-delete after {after}: done (its unsend jobs are in the list)."},
    "expiry_left": {"fa": "{h} ساعت و {m} دقیقه", "en": "{h} h {m} min"},
    "expiry_after": {"fa": "{h} ساعت", "en": "{h} h"},
    # --- the pre-send screen's auto-expiry row and line ---
    "btn_presend_expire_off": {"fa": "⏳ بدون حذف", "en": "⏳ Keep"},
    "btn_presend_expire_h": {"fa": "{h} ساعت", "en": "{h} h"},
    "wiz_expire_line": {
        "fa": "\n⏳ حذف خودکار: هر نسخه {after} پس از رسیدنش برای همه حذف می‌شود (با cron)؛ "
              "اگر اکنون ارسال شود، نخستین‌ها حدود {at}.",
        "en": "\n⏳ Auto-delete: each copy is deleted for everyone {after} after it arrived (by cron); "
              "sent now, the first go around {at}.",
    },
    "act_expiry_set": {"fa": "حذف خودکار تنظیم شد", "en": "auto-delete set"},
    "act_expiry_cancelled": {"fa": "حذف خودکار لغو شد", "en": "auto-delete cancelled"},
    "act_expired": {"fa": "حذف خودکار اجرا شد", "en": "auto-delete ran"},
}
