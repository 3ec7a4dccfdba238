"""Texts of automated jobs: a recurring occurrence's short summary, the chains' daily digest, /jobs' own list."""
from __future__ import annotations

TEXTS: dict[str, dict[str, str]] = {
    # One line per occurrence, its picture behind the 📊 button (drawn when pressed).
    "rec_summary": {"fa": "🔁 نوبت ارسال تکراری #{series} (کار #{id}) {status}: ✅ {sent} · ❌ {failed} · "
                          "🚫 {skipped} از {total}",
                    "en": "🔁 Recurring #{series} occurrence (job #{id}) {status}: ✅ {sent} · ❌ {failed} · "
                          "🚫 {skipped} of {total}"},
    # Once a Tehran day, for the day before: one line per chain that sent something.
    "chain_digest": {"fa": "💧 گزارش روزانهٔ زنجیره‌ها — {day}:\n{lines}\nجزئیات هر مرحله: /chains",
                     "en": "💧 Drip chains, daily report — {day}:\n{lines}\nEach step's numbers: /chains"},
    "chain_digest_line": {"fa": "#{id} «{name}»: {started} نفر آغاز کردند · {steps} مرحله فرستاده شد · "
                                "✅ {delivered} رسید · ❌ {failed} ناموفق",
                          "en": "#{id} “{name}”: {started} started · {steps} steps sent · ✅ {delivered} delivered"
                                " · ❌ {failed} failed"},
    # /jobs: the admins' own broadcasts first; automated jobs behind one button so a busy chain pushes none out.
    "btn_jobs_automated": {"fa": "🤖 ارسال‌های خودکار (زنجیره و تکراری)",
                           "en": "🤖 Automated jobs (chains and recurring)"},
    "jobs_own_empty": {"fa": "📋 هنوز هیچ ارسال همگانی‌ای از مدیران ثبت نشده است.",
                       "en": "📋 No broadcasts by the admins yet."},
    "jobs_automated_title": {"fa": "🤖 ارسال‌های خودکار اخیر (💧 زنجیره، 🔁 تکراری):",
                             "en": "🤖 Recent automated jobs (💧 chain step, 🔁 recurring):"},
    "job_row_chain": {"fa": "💧 #{id} — {status} — {done}/{total}", "en": "💧 #{id} — {status} — {done}/{total}"},
    "job_row_recurring": {"fa": "🔁 #{id} — {status} — {done}/{total}", "en": "🔁 #{id} — {status} — {done}/{total}"},
}
