"""Texts of drip chains: the /chains list, its buttons and their answers."""
from __future__ import annotations

TEXTS: dict[str, dict[str, str]] = {
    "chain_none": {"fa": "💧 هیچ زنجیرهٔ پیامی ثبت نشده است (ساختن: flask chains create).",
                   "en": "💧 No drip chains (create one with: flask chains create)."},
    "chain_item": {"fa": "💧 زنجیرهٔ #{id} «{name}» — {status}\nآغازگر: {trigger}\n{steps}",
                   "en": "💧 Drip chain #{id} “{name}” — {status}\nTrigger: {trigger}\n{steps}"},
    "chain_step": {"fa": "{position}. پس از {delay}: {text}\n   گرفته: {claimed} · رسیده: {delivered} · "
                         "ناموفق: {failed} · در صف: {pending}",
                   "en": "{position}. after {delay}: {text}\n   claimed: {claimed} · delivered: {delivered} · "
                         "failed: {failed} · pending: {pending}"},
    "chain_step_waiting": {"fa": " · منتظر روز بعد (سقف روزانه): {n}", "en": " · waiting a day (daily cap): {n}"},
    "chain_status_active": {"fa": "فعال", "en": "active"},
    "chain_status_paused": {"fa": "متوقف", "en": "paused"},
    "chain_status_stopped": {"fa": "پایان‌یافته", "en": "stopped"},
    "btn_chain_pause": {"fa": "⏸ توقف", "en": "⏸ Pause"},
    "btn_chain_resume": {"fa": "▶️ ادامه", "en": "▶️ Resume"},
    "btn_chain_stop": {"fa": "⏹ پایان دائمی", "en": "⏹ Stop for good"},
    "btn_chain_stop_yes": {"fa": "✅ بله، برای همیشه پایان یابد", "en": "✅ Yes, stop it for good"},
    "btn_chain_back": {"fa": "↩️ بازگشت", "en": "↩️ Back"},
    "chain_stop_ask": {"fa": "زنجیرهٔ #{id} برای همیشه پایان یابد؟ دیگر کسی وارد آن نمی‌شود و بازگشتی ندارد؛ "
                             "ارسال‌های ساخته‌شده همچنان فرستاده می‌شوند.",
                       "en": "Stop drip chain #{id} for good? Nobody new gets its steps and it cannot be resumed; "
                             "step broadcasts already made still go out."},
    "chain_done_paused": {"fa": "⏸ متوقف شد؛ کسی تازه وارد نمی‌شود", "en": "⏸ Paused: nobody new is claimed"},
    "chain_done_resumed": {"fa": "▶️ ادامه یافت", "en": "▶️ Resumed"},
    "chain_done_stopped": {"fa": "⏹ برای همیشه پایان یافت", "en": "⏹ Stopped for good"},
    "chain_not_now": {"fa": "این کار اکنون ممکن نیست؛ این زنجیره اکنون {status} است. پیام به‌روز شد.",
                      "en": "Not possible now: this chain is {status}. The message now shows it as it is."},
    "chain_unknown": {"fa": "این زنجیره دیگر وجود ندارد.", "en": "This chain no longer exists."},
}
