"""A keyboard's numbers in the bot's job view: each button's clicks or presses, busiest first, within 4096."""
from __future__ import annotations

import pytest

from app.extensions import db
from app.services import audit
from app.services.broadcast.content import keyboard
from app.services.broadcast.content.text_rules import utf16_len
from app.services.broadcast.reporting import key_stats
from app.texts import t
from tests.bot.wizard import tap
from tests.broadcast.keyed_job import big_keyboard, counters_of, keyed_job
from tests.conftest import ADMIN_ID

pytestmark = pytest.mark.usefixtures("fast_telegram")


def view_of(client, simulator, job_id: int, lang: str) -> str:
    """Open the job's view as the admin (in lang) and return the text Telegram took."""
    tap(client, simulator, f"j.view:{job_id}", language_code=lang)
    header = t("job_view", lang).split("{status}")[0].format(id=job_id)
    views = [d for d in simulator.deliveries("sendMessage", ADMIN_ID) if d["text"].startswith(header)]
    assert len(views) == 1, "the view did not reach the admin: Telegram refuses a text over 4096 characters"
    return views[0]["text"]


@pytest.mark.parametrize("lang", ["fa", "en"])
def test_the_view_lists_each_buttons_numbers_from_its_counters_busiest_first(client, simulator, lang):
    job_id = keyed_job()
    text = view_of(client, simulator, job_id, lang)
    counted = counters_of(job_id)
    kind = {k: t(f"key_kind_{k}", lang) for k in ("url", "tap", "menu")}
    # Hours pressed 12 times, Shop clicked 9 times (4 first clicks), VIP pressed 6, Blog clicked 3 (2 first).
    block = "\n".join([
        t("key_stats_title", lang),
        "• " + t("key_stat_press", lang, text="Hours", kind=kind["menu"], presses=counted[5][2]),
        "• " + t("key_stat_url", lang, text="Shop", kind=kind["url"], clicks=counted[1][0], first=counted[1][1]),
        "• " + t("key_stat_press", lang, text="VIP", kind=kind["tap"], presses=counted[4][2]),
        "• " + t("key_stat_url", lang, text="Blog", kind=kind["url"], clicks=counted[2][0], first=counted[2][1]),
        t("key_stats_copies", lang, n=1),
    ])
    assert block in text
    assert (counted[5][2], counted[1][:2]) == (12, (9, 4))
    assert t("key_stats_more", lang, n=1, id=job_id).split("1")[0] not in text, "all four fit: nothing more"


@pytest.mark.parametrize("lang", ["fa", "en"])
def test_the_largest_keyboard_is_cut_to_its_busiest_and_the_view_stays_within_4096(client, simulator, lang):
    kb = big_keyboard()  # 100 buttons of 64-character labels
    kinds = dict(keyboard.buttons(kb))
    # Six-digit counts, every one different: the longest numbers a line can carry at this size.
    counters = {pos: (900_000 + pos, 100_000 + pos, 0) if b["kind"] == "url" else (0, 0, 900_000 + pos)
                for pos, b in kinds.items()}
    job_id = keyed_job(kb, counters, delivered=30)
    for n in range(14):  # a long trail: the view shows its newest 15 entries
        audit.record("admin:1001", audit.PAUSED if n % 2 == 0 else audit.RESUMED, job_id,
                     detail="paused by an admin to check the landing page before the evening rush")
    db.session.commit()
    text = view_of(client, simulator, job_id, lang)
    assert utf16_len(text) <= 4096  # Telegram took it (the simulator refuses longer, as Telegram does)
    top = sorted((p for p, b in kinds.items() if b["kind"] != "copy"), key=lambda p: -max(counters[p]))
    shown = [line for line in text.split("\n") if line.startswith("• ") and "(" in line and ":" in line
             and line[2] in "«“"]
    assert len(shown) == key_stats.VIEW_TOP
    for line, pos in zip(shown, top, strict=False):
        label = key_stats.cut(kinds[pos]["text"])
        assert label.endswith("…") and len(label) <= key_stats.LABEL_CHARS
        assert line.startswith("• " + ("«" if lang == "fa" else "“") + label), (line, pos)
        assert str(max(counters[pos])) in line
    assert t("key_stats_more", lang, n=75 - key_stats.VIEW_TOP, id=job_id) in text
    assert t("key_stats_copies", lang, n=25) in text
