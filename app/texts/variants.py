"""Language variants: the wizard's "add a version" step, its refusals, the pre-send lines and the edit per variant."""
from __future__ import annotations

TEXTS: dict[str, dict[str, str]] = {
    "btn_add_english": {"fa": "➕ نسخه‌ی انگلیسی", "en": "➕ English version"},
    "btn_add_variant": {"fa": "🌐 نسخه به زبانی دیگر", "en": "🌐 Version in another language"},
    "var_ask_code": {
        "fa": "کد دوحرفی زبان را بفرستید (مانند ar یا ru یا de). کاربرانی که زبان تلگرامشان با این کد شروع "
              "می‌شود (en-US یعنی en) این نسخه را می‌گیرند.",
        "en": "Send the two-letter language code (such as ar, ru or de). Users whose Telegram language starts "
              "with it (en-US is en) get this version.",
    },
    "var_ask_text": {
        "fa": "متن نسخه‌ی «{code}» را بفرستید (حداکثر {limit} نویسه). {{first_name}} نام هر گیرنده را می‌گذارد. "
              "نسخه‌ای که دوباره بفرستید جای قبلی را می‌گیرد.",
        "en": "Send the text of the “{code}” version (at most {limit} characters). {{first_name}} puts each "
              "recipient's name. Sending a version again replaces the earlier one.",
    },
    "var_ask_caption": {
        "fa": "توضیح (کپشن) نسخه‌ی «{code}» را بفرستید (حداکثر {limit} نویسه)؛ همان رسانه با این توضیح "
              "ارسال می‌شود. نسخه‌ای که دوباره بفرستید جای قبلی را می‌گیرد.",
        "en": "Send the caption of the “{code}” version (at most {limit} characters); the same media goes out "
              "with it. Sending a version again replaces the earlier one.",
    },
    "var_copy_unknown": {
        "fa": "❌ نسخه‌های زبانی یک پیام کپی‌شده فقط توضیح (کپشن) یک رسانه را عوض می‌کنند و نوع این پیام معلوم "
              "نیست؛ پیام متنی کپی‌شده متن خودش را نگه می‌دارد و همه متن پیش‌فرض را می‌گرفتند. پیام را دوباره "
              "بفرستید و نسخه‌ها را در همین گفتگو اضافه کنید.",
        "en": "❌ Language versions of a copied message only replace a media message's caption, and this "
              "message's kind is not known; a copied text message keeps its own text, so everyone would get the "
              "default. Send the message again and add the versions in this chat.",
    },
    "var_added": {
        "fa": "✅ نسخه‌ی «{code}» ثبت شد. نسخه‌ها: {codes}.\nحالا دکمه‌ی لینک‌دار را بفرستید "
              "(متن دکمه | https://example.com)، «بدون دکمه» را بزنید یا نسخه‌ی دیگری اضافه کنید.",
        "en": "✅ The “{code}” version is saved. Versions: {codes}.\nNow send the link button "
              "(Button text | https://example.com), tap “No button”, or add another version.",
    },
    "var_default": {"fa": "پیش‌فرض", "en": "default"},
    "var_bad_code": {
        "fa": "❌ «{code}» کد زبان نیست؛ دو حرف انگلیسی بفرستید، مانند ar یا ru (بخش اول کد زبان تلگرام).",
        "en": "❌ “{code}” is not a language code; send two letters such as ar or ru (the first part of a "
              "Telegram language code).",
    },
    "var_too_many": {"fa": "❌ حداکثر {max} نسخه‌ی زبانی ممکن است.", "en": "❌ At most {max} language versions."},
    "var_same": {
        "fa": "❌ نسخه‌ی «{code}» همان پیام اصلی است؛ لازم نیست: هر کس نسخه‌ای نداشته باشد پیام اصلی را می‌گیرد. "
              "متن دیگری بفرستید.",
        "en": "❌ The “{code}” version is the same as the main message; it is not needed: everyone without a "
              "version gets the main message. Send a different text.",
    },
    "var_copy_greeting": {
        "fa": "❌ توضیح رسانه‌ی کپی‌شده همان‌طور که هست فرستاده می‌شود و نام یا فیلد هر گیرنده را نمی‌گذارد "
              "({{first_name}}، {{field:…}})؛ فقط پیام متنی می‌تواند. توضیح را بدون آن بفرستید.",
        "en": "❌ A copied media message's caption is sent as it is: it cannot carry each recipient's name or "
              "field ({{first_name}}, {{field:…}}); only a text message can. Send the caption without it.",
    },
    "var_album": {
        "fa": "❌ آلبوم نسخه‌ی زبانی نمی‌پذیرد (تلگرام توضیح‌های آلبوم کپی‌شده را تغییر نمی‌دهد). برای هر زبان "
              "یک آلبوم جدا با فیلتر زبان بفرستید.",
        "en": "❌ An album takes no language versions (Telegram cannot change a copied album's captions). Send "
              "one album per language with the language filter.",
    },
    "var_need_text": {"fa": "❌ متن نسخه را بفرستید (یا رسانه‌ای با توضیح).",
                      "en": "❌ Send the version's text (or media with a caption)."},
    "var_twice": {"fa": "❌ نسخه‌ی «{code}» دو بار آمده است.", "en": "❌ The “{code}” version is given twice."},
    "var_text_refused": {"fa": "❌ نسخه‌ی «{code}» پذیرفته نشد: {reason}",
                         "en": "❌ The “{code}” version was refused: {reason}"},
    "var_presend_line": {"fa": "🌐 نسخه‌ها (گیرندگان هر کدام): {counts}\n",
                         "en": "🌐 Versions (recipients of each): {counts}\n"},
    "var_preview_label": {"fa": "👇 نسخه‌ی «{code}»:", "en": "👇 The “{code}” version:"},
    # --- edit per variant ---
    "edit_pick_variant": {
        "fa": "✏️ ارسال #{id} چند نسخه‌ی زبانی دارد. کدام نسخه ویرایش شود؟ هر نسخه فقط با متن خودش عوض می‌شود و "
              "نسخه‌های دیگر دست نمی‌خورند.",
        "en": "✏️ Broadcast #{id} has language versions. Which version do you want to edit? Each version is "
              "changed only with its own text; the others stay as they are.",
    },
    "btn_edit_variant": {"fa": "{name} ({n} نسخه)", "en": "{name} ({n} copies)"},
    "edit_ask_variant": {
        "fa": "✏️ متن تازه‌ی نسخه‌ی «{name}» ارسال #{id} را بفرستید (حداکثر {limit} نویسه). فقط {n} نسخه‌ی "
              "همین زبان عوض می‌شود.",
        "en": "✏️ Send the new text of the “{name}” version of broadcast #{id} (at most {limit} characters). "
              "Only its {n} copies change.",
    },
    "edit_confirm_variant": {
        "fa": "✏️ نسخه‌های «{name}» ارسال #{id} به متن بالا تغییر کنند؟ نسخه‌های دیگر دست نمی‌خورند.",
        "en": "✏️ Change the “{name}” copies of broadcast #{id} to the text above? The other versions stay "
              "as they are.",
    },
    "act_no_variants": {"fa": "❌ ارسال #{id} نسخه‌ی زبانی ندارد.", "en": "❌ Broadcast #{id} has no language versions."},
    "act_no_such_variant": {"fa": "❌ ارسال #{id} نسخه‌ی «{code}» ندارد (نسخه‌ها: {have}).",
                            "en": "❌ Broadcast #{id} has no “{code}” version (its versions: {have})."},
    "act_variant_empty": {"fa": "❌ از نسخه‌ی «{variant}» ارسال #{id} هیچ پیامی تحویل نشده که ویرایش شود.",
                          "en": "❌ No copy of the “{variant}” version of broadcast #{id} was delivered to edit."},
}
