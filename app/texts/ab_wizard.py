"""Texts of the wizard's A/B test: its steps, its refusals, its pre-send lines and its preview labels."""
from __future__ import annotations

TEXTS: dict[str, dict[str, str]] = {
    "btn_ab": {"fa": "🆎 آزمون A/B", "en": "🆎 A/B test"},
    "ab_ask_version": {
        "fa": "🆎 آزمون A/B: پیام شما نسخهٔ A است. نسخهٔ {v} را بفرستید: یک متن، یا یک عکس یا ویدیو با کپشن "
              "(۲ تا {most} نسخه؛ {{first_name}} در متن نام هر گیرنده را می‌گذارد). برای دکمه‌های خودِ نسخهٔ "
              "آخر، آن‌ها را به شکل «متن - https://…» بفرستید (هر ردیف یک خط)؛ بی‌آن، نسخه دکمه‌های مشترکِ "
              "آخر کار را می‌گیرد. هر کاربر فقط یک نسخه می‌گیرد، برای همیشه.",
        "en": "🆎 A/B test: your message is version A. Send version {v}: a text, or one photo or video with a "
              "caption (2 to {most} versions; {{first_name}} in a text puts each recipient's name). To give the "
              "version saved last buttons of its own, send them as “Text - https://…” (a row per line); without "
              "them it carries the shared buttons you choose at the end. Each user gets one version, ever.",
    },
    "ab_added": {
        "fa": "✅ نسخهٔ {v} ثبت شد. نسخه‌ها: {letters}.\nنسخهٔ {next} را بفرستید (متن یا رسانه)، یا دکمه‌های خودِ "
              "نسخهٔ {v} را («متن - https://…»)، یا «✅ نسخه‌ها همین‌ها» را بزنید.",
        "en": "✅ Version {v} is saved. Versions: {letters}.\nSend version {next} (a text or a media message), "
              "or version {v}'s own buttons (“Text - https://…”), or tap “✅ That's all”.",
    },
    "ab_keys_saved": {
        "fa": "✅ نسخهٔ {v} دکمه‌های خودش را دارد: {labels}. نسخهٔ بعد را بفرستید، یا از دو نسخه به بعد «✅ نسخه‌ها "
              "همین‌ها» را بزنید.",
        "en": "✅ Version {v} has buttons of its own: {labels}. Send the next version, or (from two versions on) "
              "tap “✅ That's all”.",
    },
    "ab_keys_refused": {"fa": "❌ دکمه‌های نسخهٔ {v} پذیرفته نشد: {reason}",
                        "en": "❌ Version {v}'s buttons are refused: {reason}"},
    "ab_keys_need_link": {
        "fa": "❌ دکمه‌های نسخهٔ {v} لینکی ندارند، پس کلیک‌هایش شمرده نمی‌شود. دست‌کم یک دکمهٔ لینک بگذارید "
              "(متن - https://…).",
        "en": "❌ Version {v}'s buttons have no link, so its clicks could not be counted. Put at least one link "
              "button (Text - https://…).",
    },
    "ab_album": {
        "fa": "❌ آلبوم نمی‌تواند نسخهٔ آزمون باشد: تلگرام زیر آلبوم دکمه‌ای نمی‌گذارد، پس کلیک‌هایش شمرده نمی‌شود. "
              "یک عکس یا ویدیو با کپشن بفرستید.",
        "en": "❌ An album cannot be a version: Telegram puts no button under an album, so its clicks could not be "
              "counted. Send one photo or video with a caption.",
    },
    "ab_copy_placeholder": {
        "fa": "❌ نسخهٔ رسانه‌ای همان‌طور که هست کپی می‌شود: {first_name} یا {field:…} در کپشنش همان‌طور که "
              "نوشته‌اید به کاربران می‌رسد. کپشن را بدون آن بفرستید، یا نسخه را متنی بفرستید.",
        "en": "❌ A media version is copied as it is: {first_name} or {field:…} in its caption would reach users "
              "as typed. Send the caption without it, or make the version a text.",
    },
    "btn_ab_done": {"fa": "✅ نسخه‌ها همین‌ها", "en": "✅ That's all"},
    "ab_need_text": {"fa": "❌ هر نسخهٔ آزمون A/B یک متن یا یک عکس، ویدیو یا فایل (با کپشنش) است. نسخه را بفرستید.",
                     "en": "❌ Each version of an A/B test is a text or one photo, video or file (with its caption). "
                           "Send the version."},
    "ab_same": {"fa": "❌ این متن همان نسخهٔ {v} است؛ نسخه‌ها باید با هم فرق کنند. متن دیگری بفرستید.",
                "en": "❌ This text is version {v} again; the versions must differ. Send another text."},
    "ab_refused": {"fa": "❌ نسخهٔ {v} پذیرفته نشد ({reason}). متن دیگری بفرستید.",
                   "en": "❌ Version {v} is refused ({reason}). Send another text."},
    "ab_need_two": {"fa": "❌ آزمون A/B دست‌کم دو نسخه دارد: اول متن نسخهٔ B را بفرستید.",
                    "en": "❌ An A/B test has at least two versions: send version B's text first."},
    "ab_ask_share": {
        "fa": "✅ {n} نسخه: {letters}.\nچند درصد مخاطبان در آزمون باشند؟ این سهم به‌تصادف و مساوی بین نسخه‌ها "
              "تقسیم می‌شود؛ بقیه بعداً فقط نسخهٔ برنده را می‌گیرند.",
        "en": "✅ {n} versions: {letters}.\nWhich share of the audience takes part in the test? It is split evenly "
              "at random among the versions; the rest later get the winner only.",
    },
    "btn_ab_share": {"fa": "{p}٪", "en": "{p}%"},
    "ab_ask_wait": {
        "fa": "سهم آزمون: {p}٪.\nبرنده چه مدت پس از پایان ارسال آزمون برای بقیه برود؟ برنده نسخه‌ای است که نرخ "
              "کلیکش (کلیک یکتا روی دکمهٔ لینک ÷ رسیده) بیشتر است، یا در صفحهٔ آخر: کلیک روی یک دکمهٔ انتخابی؛ "
              "کران آن را خودکار می‌فرستد و اگر پیشتاز روشنی نباشد (هیچ کلیک یا نرخ برابر) از شما می‌پرسد.",
        "en": "Test share: {p}%.\nHow long after the test finishes sending should the winner go to the rest? The "
              "winner is the version with the best CTR (unique clicks on the link button ÷ delivered), or, on the "
              "last screen, by clicks on one button you choose; cron sends it automatically, and asks you when no "
              "version leads (no click, or a tie).",
    },
    "ab_hours": {"fa": "{n} ساعت", "en": "{n} h"},
    "ab_minutes": {"fa": "{n} دقیقه", "en": "{n} min"},
    "ab_ask_button": {
        "fa": "✅ {p}٪ مخاطبان در آزمون؛ برنده {wait} پس از پایان آن.\nحالا دکمهٔ لینک را بفرستید "
              "(متن دکمه | https://example.com): برنده با کلیک روی همین دکمه انتخاب می‌شود.",
        "en": "✅ {p}% of the audience in the test; the winner {wait} after it ends.\nNow send the link button "
              "(Button text | https://example.com): the winner is chosen by clicks on it.",
    },
    "ab_need_link": {
        "fa": "❌ آزمون A/B دکمهٔ لینک لازم دارد (متن دکمه | https://…): برنده با کلیک روی آن انتخاب می‌شود. "
              "دکمهٔ برچسب‌زن یا «بدون دکمه» نمی‌شود.",
        "en": "❌ An A/B test needs a link button (Button text | https://…): the winner is chosen by clicks on it. "
              "A tag button or no button cannot be used.",
    },
    "ab_no_variants": {
        "fa": "❌ آزمون A/B با نسخه‌های زبانی جمع نمی‌شود: هر کاربر فقط یک نسخه می‌گیرد. برای آزمون، /broadcast "
              "را از نو بزنید و نسخهٔ زبانی نیفزایید.",
        "en": "❌ An A/B test cannot have language versions: each user gets one version. For a test, start "
              "/broadcast again and add no language version.",
    },
    "ab_media": {
        "fa": "❌ آلبوم نمی‌تواند آزمون A/B شود: تلگرام زیر آلبوم دکمه‌ای نمی‌گذارد، پس کلیک‌هایش شمرده نمی‌شود. "
              "/broadcast را بزنید و یک متن یا یک عکس یا ویدیو بفرستید.",
        "en": "❌ An album cannot be an A/B test: Telegram puts no button under an album, so its clicks could not be "
              "counted. Start /broadcast and send a text or one photo or video.",
    },
    "ab_no_public_url": {
        "fa": "❌ آزمون A/B برنده را با کلیک انتخاب می‌کند و کلیک‌ها فقط با PUBLIC_URL شمرده می‌شوند: آن را در "
              "تنظیمات محیطی برنامه بگذارید.",
        "en": "❌ An A/B test picks its winner by clicks, and clicks are counted only with PUBLIC_URL: set it in "
              "the app's environment.",
    },
    "ab_no_schedule": {
        "fa": "❌ آزمون A/B زمان‌بندی نمی‌شود: با «تأیید» همین حالا شروع می‌شود، یا لغوش کنید.",
        "en": "❌ An A/B test cannot be scheduled: Confirm starts it now, or abort it.",
    },
    "ab_preview_label": {"fa": "🆎 نسخهٔ {v}:", "en": "🆎 Version {v}:"},
    "ab_presend_title": {
        "fa": "\n🆎 آزمون A/B، {k} نسخه: {share}٪ از {count} نفر = {size} نفر اکنون، به‌تصادف و مساوی:",
        "en": "\n🆎 A/B test, {k} versions: {share}% of {count} = {size} recipients now, split evenly at random:",
    },
    "ab_presend_row": {"fa": "\n• نسخهٔ {v} ({n} نفر): {words}", "en": "\n• Version {v} ({n} recipients): {words}"},
    "ab_presend_media": {"fa": "📎 رسانه: {words}", "en": "📎 media: {words}"},
    "ab_presend_keys": {"fa": "\n   دکمه‌های خودش: {labels}", "en": "\n   its own buttons: {labels}"},
    "ab_presend_rule_ctr": {"fa": "\n🏆 برنده: بیشترین نرخ کلیک (کلیک یکتا روی هر لینک ÷ رسیده).",
                            "en": "\n🏆 Winner: the best CTR (unique clicks on any link ÷ delivered)."},
    "ab_presend_rule_button": {"fa": "\n🏆 برنده: بیشترین سهم گیرندگانی که روی «{text}» زده‌اند (÷ رسیده).",
                               "en": "\n🏆 Winner: the largest share of recipients who clicked «{text}» (÷ delivered)."},
    "btn_ab_goal_ctr": {"fa": "🏆 نرخ کلیک", "en": "🏆 by CTR"},
    "btn_ab_goal": {"fa": "🏆 «{text}»", "en": "🏆 by «{text}»"},
    "ab_presend_winner": {
        "fa": "\n{wait} پس از پایان ارسال آزمون، کران برنده را برای بقیه (اکنون {rest} نفر) می‌فرستد؛ بی‌پیشتاز "
              "روشن، از شما می‌پرسد. اطمینان (آزمون z دو نسبت) پس از نتیجه در صفحهٔ ارسال و نمودار می‌آید.",
        "en": "\n{wait} after the test finishes sending, cron sends the winner to the rest (now {rest}); with no "
              "clear leader it asks you. The confidence (two-proportion z-test) shows once there are results, in "
              "the job view and the chart.",
    },
    "ab_presend_few": {
        "fa": "\n❌ {share}٪ از {count} نفر {size} نفر است: کمتر از یک نفر برای هر نسخه ({k}). مخاطبان بیشتری "
              "انتخاب کنید یا /broadcast را با سهم بزرگ‌تر از نو بزنید.",
        "en": "\n❌ {share}% of {count} is {size}: fewer than one recipient per version ({k}). Choose a wider "
              "audience, or start /broadcast again with a larger share.",
    },
}
