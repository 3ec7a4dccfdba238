"""The wizard's A/B test through the webhook: the job the CLI's `--ab` makes, each refusal, the pre-send screen."""
import json

import pytest
from sqlalchemy import func, select

from app.extensions import db
from app.models import BroadcastJobItem
from app.texts import t
from tests.bot.wizard import all_jobs, buttons, last_answer, offered, press, send, step_of, tap, texts_to
from tests.conftest import ADMIN_ID
from tests.factories import admin_state, create_users

pytestmark = pytest.mark.usefixtures("fast_telegram")
BUTTON = ("ببین", "https://example.com/offer")
USERS = range(6001, 6041)  # 40 recipients: 20 % of them is 8, 4 per version
# What a job is, as far as the test's creator chooses it: everything but its id, times, creator and progress chat.
SAME = ("kind", "content_type", "text", "parse_mode", "variants", "button_text", "button_url", "audience",
        "audience_langs", "audience_active_days", "audience_joined_days", "audience_sources", "audience_rule",
        "silent", "protect", "urgent", "optout_button", "paid", "expire_after", "ab_share", "ab_wait",
        "total_count", "ab_of")


@pytest.fixture
def tracked(app):
    """The app with PUBLIC_URL set (clicks are tracked, so a test by CTR is allowed) and 40 users."""
    app.config["PUBLIC_URL"] = "https://bot.example.com"
    create_users(USERS)
    yield app
    app.config["PUBLIC_URL"] = None


def draft() -> dict:
    """Return the admin's stored draft."""
    return json.loads(admin_state(ADMIN_ID).draft)


def versions_step(client, simulator, texts):
    """Start a broadcast with texts[0] and turn it into a test of these texts (no share or wait yet)."""
    send(client, simulator, "/broadcast")
    send(client, simulator, texts[0])
    press(client, simulator, "w.ab")
    for text in texts[1:]:
        send(client, simulator, text)
    if len(texts) < 5:
        press(client, simulator, "w.abv")


def wizard_test(client, simulator, texts, share="20", wait="2h") -> None:
    """Drive the wizard to the pre-send screen of an A/B test of these texts, share and wait."""
    versions_step(client, simulator, texts)
    press(client, simulator, f"w.abs:{share}")
    press(client, simulator, f"w.abw:{wait}")
    send(client, simulator, " | ".join(BUTTON))
    press(client, simulator, "w.aud:all")


def per_letter(job_id: int) -> dict[str, int]:
    """Return each version's recipients in a job's items."""
    I = BroadcastJobItem  # noqa: E741
    rows = db.session.execute(select(I.variant, func.count()).where(I.job_id == job_id).group_by(I.variant)).all()
    db.session.commit()
    return dict(rows)


def test_the_wizard_creates_the_job_the_cli_creates(tracked, client, simulator, runner):
    texts = ["نسخهٔ الف {first_name}", "نسخهٔ ب", "نسخهٔ ج"]
    wizard_test(client, simulator, texts, share="20", wait="6h")
    press(client, simulator, "w.confirm")
    [wizard_job] = all_jobs()
    result = runner.invoke(args=["broadcast", "create", "--audience", "all", *sum((["--ab", x] for x in texts), []),
                                 "--test-share", "20", "--winner-after", "6h", "--button-text", BUTTON[0],
                                 "--button-url", BUTTON[1]])
    assert result.exit_code == 0, result.output
    cli_job = all_jobs()[-1]
    assert cli_job.id == int(result.stdout)
    assert {c: getattr(wizard_job, c) for c in SAME} == {c: getattr(cli_job, c) for c in SAME}
    assert (wizard_job.ab_share, wizard_job.ab_wait, wizard_job.total_count) == (20, 6 * 3600, 8)
    assert json.loads(wizard_job.variants) == dict(zip("ABC", texts, strict=True))
    assert per_letter(wizard_job.id) == per_letter(cli_job.id) == {"A": 3, "B": 3, "C": 2}
    assert (wizard_job.created_by, wizard_job.progress_chat_id) == (ADMIN_ID, ADMIN_ID)
    # The wizard's Confirm ran the test's pumps: each recipient got the text of their own version, nobody two.
    got = {uid: [d["text"] for d in simulator.deliveries("sendMessage", uid)] for uid in USERS}
    assert sorted(len(v) for v in got.values() if v) == [1] * 8
    wanted = {"A": "نسخهٔ الف User", "B": "نسخهٔ ب", "C": "نسخهٔ ج"}
    I = BroadcastJobItem  # noqa: E741
    letters = dict(db.session.execute(select(I.user_id, I.variant).where(I.job_id == wizard_job.id)).all())
    assert {uid: got[uid] for uid in letters} == {uid: [wanted[v]] for uid, v in letters.items()}


def test_the_presend_screen_shows_the_versions_side_by_side(tracked, client, simulator):
    long = "یک دو سه چهار پنج شش هفت هشت"
    wizard_test(client, simulator, ["خبر تازه", long], share="50", wait="24h")
    to_admin = texts_to(simulator)
    screen = to_admin[-1]
    expected = (t("ab_presend_title", share=50, count=40, size=20, k=2)
                + t("ab_presend_row", v="A", n=10, words="خبر تازه")
                + t("ab_presend_row", v="B", n=10, words="یک دو سه چهار پنج شش …")
                + t("ab_presend_rule_ctr") + t("ab_presend_winner", wait=t("ab_hours", n=24), rest=20))
    assert expected in screen and screen.endswith(t("wiz_ask_send"))
    # Each version previewed under its label, with the link button, before the screen.
    assert to_admin[-5:-1] == [t("ab_preview_label", v="A"), "خبر تازه", t("ab_preview_label", v="B"), long]
    keyboard = buttons(simulator.deliveries("sendMessage", ADMIN_ID)[-1])
    assert any(b.startswith("w.confirm:") for b in keyboard)
    assert not any(b.startswith(("w.sched:", "w.opt:x")) for b in keyboard)  # never scheduled, never expires


def test_a_test_too_small_for_its_versions_is_refused_on_the_screen(tracked, client, simulator):
    versions = ["الف", "ب", "ج", "د", "ه"]
    wizard_test(client, simulator, versions, share="10")  # 10 % of 40 is 4: fewer than 5 versions
    screen = simulator.deliveries("sendMessage", ADMIN_ID)[-1]
    assert screen["text"].endswith(t("ab_presend_few", share=10, count=40, size=4, k=5))
    assert not any(b.startswith("w.confirm:") for b in buttons(screen))
    tap(client, simulator, f"w.confirm:{draft()['confirm_id']}")  # a forged Confirm creates nothing either
    assert all_jobs() == []


def test_the_fifth_version_goes_on_to_the_share(tracked, client, simulator):
    versions_step(client, simulator, ["۱", "۲", "۳", "۴", "۵"])
    assert step_of() == "wiz:ab_share"
    assert texts_to(simulator)[-1] == t("ab_ask_share", n=5, letters="ABCDE")


@pytest.mark.parametrize("message, answer", [
    ({}, ("ab_need_text", {})),  # neither a text nor a media message
    ({"text": "نسخهٔ الف"}, ("ab_same", {"v": "A"})),
    ({"text": "x" * 4097}, ("edit_too_long", {"length": 4097, "limit": 4096})),
])
def test_a_version_that_cannot_go_is_refused_and_the_draft_kept(tracked, client, simulator, message, answer):
    send(client, simulator, "/broadcast")
    send(client, simulator, "نسخهٔ الف")
    press(client, simulator, "w.ab")
    assert texts_to(simulator)[-1] == t("ab_ask_version", v="B", most=5)
    text = message.pop("text", None)
    send(client, simulator, text, **message)
    assert texts_to(simulator)[-1] == t(answer[0], **answer[1])
    assert (step_of(), draft()["ab"]) == ("wiz:ab_version", {"versions": ["نسخهٔ الف"]})
    send(client, simulator, "نسخهٔ ب")
    assert draft()["ab"] == {"versions": ["نسخهٔ الف", "نسخهٔ ب"]}


def test_done_with_one_version_is_refused(tracked, client, simulator):
    send(client, simulator, "/broadcast")
    send(client, simulator, "نسخهٔ الف")
    press(client, simulator, "w.ab")
    tap(client, simulator, f"w.abv:{draft()['draft_id']}")
    assert last_answer(simulator)["text"] == t("ab_need_two")
    assert step_of() == "wiz:ab_version"


def test_a_test_needs_a_link_button(tracked, client, simulator):
    versions_step(client, simulator, ["الف", "ب"])
    press(client, simulator, "w.abs:10")
    press(client, simulator, "w.abw:1h")
    assert texts_to(simulator)[-1] == t("ab_ask_button", p="10", wait=t("ab_hours", n=1))
    tap(client, simulator, f"w.no_button:{draft()['draft_id']}")  # under the earlier button step
    assert last_answer(simulator)["text"] == t("ab_need_link")
    send(client, simulator, "عضو شو | tag:vip")
    assert texts_to(simulator)[-1] == t("ab_need_link")
    assert step_of() == "wiz:button"
    send(client, simulator, "کد تخفیف - copy:OFF20 | منو - menu:قیمت‌ها")  # a keyboard with no link in it
    assert texts_to(simulator)[-1] == t("ab_need_link")
    assert step_of() == "wiz:button"
    send(client, simulator, " | ".join(BUTTON))
    assert step_of() == "wiz:audience"


def test_a_test_takes_a_keyboard_with_a_link_and_counts_on_it(tracked, client, simulator):
    versions_step(client, simulator, ["الف", "ب"])
    press(client, simulator, "w.abs:10")
    press(client, simulator, "w.abw:1h")
    send(client, simulator, "سایت - https://example.com/a | کد - copy:OFF20")
    assert step_of() == "wiz:audience"
    rows = draft()["keyboard"]["rows"]
    assert [[b["kind"] for b in row] for row in rows] == [["url", "copy"]]


def test_a_test_is_never_scheduled(tracked, client, simulator):
    wizard_test(client, simulator, ["الف", "ب"])
    tap(client, simulator, f"w.sched:{draft()['preview_id']}")
    assert last_answer(simulator)["text"] == t("ab_no_schedule")
    assert step_of() == "wiz:preview"


def ask_button(simulator) -> dict:
    """Return the newest button step's message (the one offering "no button")."""
    return offered(simulator, "w.no_button")


def test_what_cannot_be_a_test_is_not_offered_and_refused(tracked, app, client, simulator):
    send(client, simulator, "/broadcast")
    send(client, simulator, "خبر")
    assert any(b.startswith("w.ab:") for b in buttons(ask_button(simulator)))
    # With a language version: no 🆎, and a press of the earlier one is refused.
    press(client, simulator, "w.var:en")
    send(client, simulator, "News")
    assert not any(b.startswith("w.ab:") for b in buttons(ask_button(simulator)))
    tap(client, simulator, f"w.ab:{draft()['draft_id']}")
    assert last_answer(simulator)["text"] == t("ab_no_variants")
    # A photo: 🆎 (a version may be a media message, copied as it is).
    send(client, simulator, "/broadcast")
    send(client, simulator, photo=True, caption="عکس")
    assert any(b.startswith("w.ab:") for b in buttons(ask_button(simulator)))
    # Without PUBLIC_URL no click would be counted: no 🆎 either.
    app.config["PUBLIC_URL"] = None
    send(client, simulator, "/broadcast")
    send(client, simulator, "خبر")
    assert not any(b.startswith("w.ab:") for b in buttons(ask_button(simulator)))
    tap(client, simulator, f"w.ab:{draft()['draft_id']}")
    assert last_answer(simulator)["text"] == t("ab_no_public_url")
    assert step_of() == "wiz:button" and "ab" not in draft()


def test_a_test_takes_no_language_version(tracked, client, simulator):
    send(client, simulator, "/broadcast")
    send(client, simulator, "خبر")
    press(client, simulator, "w.ab")
    send(client, simulator, "خبر دیگر")
    press(client, simulator, "w.abv")
    press(client, simulator, "w.abs:10")
    press(client, simulator, "w.abw:1h")
    tap(client, simulator, f"w.var:en:{draft()['draft_id']}")
    assert last_answer(simulator)["text"] == t("ab_no_variants")
    assert "variants" not in draft()
