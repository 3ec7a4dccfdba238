"""A/B versions that differ by buttons and media: each copy carries its own version's, clicks resolve and count per
version, the winner job sends the winner's, and a winner by a chosen button beats the CTR's when the data say so."""
from __future__ import annotations

import json
from datetime import timedelta

import pytest
from matplotlib.text import Text
from sqlalchemy import select, update

from app.bot import ab_screen
from app.extensions import db
from app.models import BroadcastButton, BroadcastItemClick, BroadcastJob, BroadcastJobItem
from app.repository.db_clock import db_utcnow
from app.services.audience import key_press
from app.services.broadcast.ab import report, split, winner
from app.services.broadcast.actions import retry
from app.services.broadcast.jobs import control
from app.services.broadcast.reporting import clicks
from app.services.broadcast.reporting.chart import figure
from app.services.broadcast.reporting.chart_style import number, percent
from app.services.broadcast.reporting.results import compute
from app.services.broadcast.sending.drain import pump
from app.texts import t
from tests.audience.helpers import ok
from tests.broadcast.helpers import BASE_ID, create_users, engine_settings, reload
from tests.conftest import ADMIN_ID

PUBLIC = "https://bot.example.com"
SETTINGS = engine_settings(broadcast_rate_per_second=28)
I = BroadcastJobItem  # noqa: E741
SHOP_A, SHOP_B = "https://a.example.com/shop", "https://b.example.com/shop"


@pytest.fixture
def tracked(app):
    """The app with PUBLIC_URL set: clicks are tracked."""
    app.config["PUBLIC_URL"] = PUBLIC
    yield app
    app.config["PUBLIC_URL"] = None


def create(runner, *args) -> int:
    """Create a test of everyone with `broadcast create` and these options; return its id."""
    return int(ok(runner, "broadcast", "create", "--audience", "all", *args).strip())


def send(job_id: int) -> None:
    """Pump a job to its end."""
    assert pump(job_id, 30, settings=SETTINGS).stop == "done"


def letters(job_id: int) -> dict[int, str]:
    """Return {user: version letter} of a job's items."""
    rows = db.session.execute(select(I.user_id, I.variant).where(I.job_id == job_id)).all()
    db.session.commit()
    return dict(rows)


def copies(simulator) -> dict[int, list[dict]]:
    """Return every recipient's deliveries (admins' messages left out)."""
    got: dict[int, list[dict]] = {}
    for d in simulator.deliveries():
        if d["chat_id"] >= BASE_ID:
            got.setdefault(d["chat_id"], []).append(d)
    return got


def rows_of(delivery: dict) -> list[list[dict]]:
    """Return a delivery's inline keyboard rows."""
    return delivery["reply_markup"]["inline_keyboard"]


def follow(client, link: str) -> str:
    """Click a tracked link as a recipient's browser does; return where it redirects."""
    assert link.startswith(PUBLIC + clicks.PATH), link
    response = client.get(link[len(PUBLIC):])
    assert response.status_code == 302
    return response.headers["Location"]


def counters(job_id: int) -> dict[tuple[str, int], tuple[int, int]]:
    """Return {(variant, position): (clicks, first clicks)} of a job's button rows."""
    db.session.rollback()
    rows = db.session.execute(select(BroadcastButton.variant, BroadcastButton.position, BroadcastButton.clicks,
                                     BroadcastButton.first_clicks).where(BroadcastButton.job_id == job_id))
    return {(v, pos): (c, f) for v, pos, c, f in rows}


def test_each_version_carries_its_own_keyboard_and_its_links_go_and_count_there(tracked, runner, simulator, client):
    create_users(20)
    test_id = create(runner, "--ab", "Offer A", "--ab", "Offer B", "--key", f"url:Shop|{SHOP_A}",
                     "--ab-key", "B", f"url:Shop now|{SHOP_B}", "--ab-key", "b", "copy:Code|SALE20",
                     "--test-share", "50")
    send(test_id)
    tested, got = letters(test_id), copies(simulator)
    assert len(tested) == 10 and sorted(len(got[u]) for u in tested) == [1] * 10, "each user got one version"
    for user, letter in tested.items():
        [copy] = got[user]
        labels = [[b["text"] for b in row] for row in rows_of(copy)]
        assert (copy["text"], labels) == ({"A": ("Offer A", [["Shop"]]), "B": ("Offer B", [["Shop now", "Code"]])}
                                          [letter])
    user_a = next(u for u, v in tested.items() if v == "A")
    user_b = next(u for u, v in tested.items() if v == "B")
    assert rows_of(got[user_b][0])[0][1] == {"text": "Code", "copy_text": {"text": "SALE20"}}
    assert follow(client, rows_of(got[user_b][0])[0][0]["url"]) == SHOP_B
    assert follow(client, rows_of(got[user_b][0])[0][0]["url"]) == SHOP_B
    assert follow(client, rows_of(got[user_a][0])[0][0]["url"]) == SHOP_A
    # B's button counts on B's row, A's on the shared keyboard's: never on each other's.
    assert counters(test_id) == {("", 1): (1, 1), ("B", 1): (2, 1), ("B", 2): (0, 0)}
    clicked = db.session.execute(select(BroadcastItemClick.item_id, BroadcastItemClick.position)).all()
    db.session.commit()
    assert len(clicked) == 2, "a repeated click is kept once per (recipient, button)"
    info = report.summary(reload(test_id))
    assert [(v["version"], v["clicks"]) for v in info["versions"]] == [("A", 1), ("B", 1)]


def test_the_winner_job_sends_the_winners_keyboard(tracked, runner, simulator, client):
    create_users(20)
    test_id = create(runner, "--ab", "Offer A", "--ab", "Offer B", "--key", f"url:Shop|{SHOP_A}",
                     "--ab-key", "B", f"url:Shop now|{SHOP_B}", "--test-share", "50")
    send(test_id)
    made = winner.pick(test_id, "B", actor="cli", settings=SETTINGS)
    job = reload(made)
    assert (job.text, json.loads(job.keyboard), job.ab_content) == (
        "Offer B", {"rows": [[{"kind": "url", "text": "Shop now", "url": SHOP_B}]]}, None)
    send(made)
    rest = letters(made)
    got = copies(simulator)
    assert len(rest) == 10 and all(len(got[u]) == 1 and got[u][0]["text"] == "Offer B" for u in rest)
    link = rows_of(got[next(iter(rest))][0])[0][0]
    assert link["text"] == "Shop now" and follow(client, link["url"]) == SHOP_B
    assert counters(made) == {("", 1): (1, 1)}


def clicks_on(client, got: dict, users, position: int) -> None:
    """Click the link at position (reading order, among url buttons) in each of these users' copies."""
    for user in users:
        links = [b["url"] for row in rows_of(got[user][0]) for b in row if "url" in b]
        follow(client, links[position - 1])


def test_a_winner_by_a_chosen_button_beats_the_ctr_leader(tracked, runner, simulator, client):
    create_users(40)
    keys = ("--key", "url:Read more|https://example.com/blog", "--key", "url:Buy|https://example.com/buy")
    test_id = create(runner, "--ab", "Offer A", "--ab", "Offer B", *keys, "--test-share", "50",
                     "--winner-by", "Buy")
    send(test_id)
    tested, got = letters(test_id), copies(simulator)
    group = {v: [u for u, x in tested.items() if x == v] for v in "AB"}
    clicks_on(client, got, group["A"][:6], 1)  # A: 6 of 10 read more (CTR 60 %), nobody buys
    clicks_on(client, got, group["B"][:3], 2)  # B: 3 of 10 buy (CTR 30 %)
    versions = {v.letter: v for v in winner.versions_of(test_id)}
    assert (versions["A"].ctr, versions["B"].ctr) == (0.6, 0.3), "by CTR A would win"
    info = report.summary(reload(test_id))
    assert info["rule"] == {"by": "button", "position": 2, "text": "Buy"} and info["leader"] == "B"
    assert [(v["goal_clicks"], v["goal_rate"]) for v in info["versions"]] == [(0, 0.0), (3, 0.3)]
    db.session.execute(update(BroadcastJob).where(BroadcastJob.id == test_id)
                       .values(finished_at=db_utcnow() - timedelta(hours=3)))
    db.session.commit()
    [made], _ = winner.release_due(SETTINGS)
    assert reload(test_id).ab_winner == "B" and reload(made).text == "Offer B"
    table = ok(runner, "broadcast", "ab", str(test_id))
    assert "winner by: clicks on «Buy» (button 2)" in table and "BUTTON CLICKS" in table


def test_by_ctr_the_same_clicks_pick_the_other_version(tracked, runner, simulator, client):
    create_users(40)
    keys = ("--key", "url:Read more|https://example.com/blog", "--key", "url:Buy|https://example.com/buy")
    test_id = create(runner, "--ab", "Offer A", "--ab", "Offer B", *keys, "--test-share", "50")
    send(test_id)
    tested, got = letters(test_id), copies(simulator)
    clicks_on(client, got, [u for u, x in tested.items() if x == "A"][:6], 1)
    clicks_on(client, got, [u for u, x in tested.items() if x == "B"][:3], 2)
    info = report.summary(reload(test_id))
    assert info["rule"] == {"by": "ctr"} and info["leader"] == "A" and "goal_clicks" not in info["versions"][0]


def test_media_versions_are_copied_with_their_own_buttons_and_the_winner_copies_its_message(
        tracked, runner, simulator, client):
    create_users(20)
    photo = simulator.add_message(ADMIN_ID, caption="Photo offer", photo=True)
    test_id = create(runner, "--ab", "Text offer", "--ab-copy", str(photo), "--copy-from", str(ADMIN_ID),
                     "--key", f"url:Shop|{SHOP_A}", "--ab-key", "B", f"url:Shop|{SHOP_B}", "--test-share", "50")
    send(test_id)
    tested, got = letters(test_id), copies(simulator)
    for user, letter in tested.items():
        [copy] = got[user]
        if letter == "A":
            assert (copy["method"], copy["text"]) == ("sendMessage", "Text offer")
            assert follow(client, rows_of(copy)[0][0]["url"]) == SHOP_A
        else:
            assert (copy["method"], copy["source_message_id"], copy["caption"]) == ("copyMessage", photo,
                                                                                    "Photo offer")
            assert follow(client, rows_of(copy)[0][0]["url"]) == SHOP_B
    made = winner.pick(test_id, "B", actor="cli", settings=SETTINGS)
    send(made)
    rest = copies(simulator)
    for user in letters(made):
        [copy] = rest[user]
        assert (copy["method"], copy["source_message_id"], copy["from_chat_id"]) == ("copyMessage", photo, ADMIN_ID)
        assert follow(client, rows_of(copy)[0][0]["url"]) == SHOP_B


def test_a_retry_keeps_each_versions_own_buttons(tracked, runner, simulator):
    create_users(20)
    test_id = create(runner, "--ab", "Offer A", "--ab", "Offer B", "--key", f"url:Shop|{SHOP_A}",
                     "--ab-key", "B", f"url:Shop now|{SHOP_B}", "--test-share", "50")
    tested = letters(test_id)
    assert control.cancel_job(test_id)
    again = retry.retry_job(test_id, settings=SETTINGS)
    send(again.id)
    got = copies(simulator)
    for user, letter in tested.items():
        assert rows_of(got[user][-1])[0][0]["text"] == {"A": "Shop", "B": "Shop now"}[letter]
    assert set(counters(again.id)) == {("", 1), ("B", 1)}


LINK = ("--key", f"url:Shop|{SHOP_A}")


@pytest.mark.parametrize("args,message", [
    (["--ab", "a", "--ab", "b", *LINK, "--ab-key", "C", "url:x|https://c.example.com"], "--ab-key C: the test's "
                                                                                         "versions are A, B"),
    (["--ab", "a", "--ab", "b", *LINK, "--ab-key", "B", "link:x"], "--ab-key B: "),
    (["--ab", "a", "--ab", "b", *LINK, "--ab-key", "B", "url:x|notaurl"], "--ab-key B: "),
    (["--ab", "a", "--ab", "b", *LINK, "--ab-key", "B", "copy:Code|X"], "version B's own buttons have no link"),
    (["--ab", "a", "--ab-copy", "7"], "--ab-copy needs --copy-from"),
    (["--ab", "a", "--ab", "b", "--copy-from", "1001", *LINK], "--copy-from goes with --ab-copy"),
    (["--ab", "a", "--ab", "b", "--copy-from", "1001", "--message-ids", "1,2", *LINK], "an album cannot be a version"),
    (["--ab", "a", "--ab", "b", *LINK, "--winner-by", "3"], "version A has no link button there"),
    (["--ab", "a", "--ab", "b", *LINK, "--winner-by", "Nope"], "version A has no link button with that text"),
    (["--ab", "a", "--ab", "b", *LINK, "--ab-key", "B", "copy:c|x", "--ab-key", "B", "url:Shop|https://b.example.com",
      "--winner-by", "Shop"], "different positions (1 in A, 2 in B)"),
    (["--ab", "a", "--ab", "a", *LINK], "same text, media and buttons"),
    (["--text", "x", "--winner-by", "1"], "--winner-by goes with --ab"),
    (["--text", "x", "--ab-key", "A", "url:x|https://a.example.com"], "--ab-key goes with --ab"),
])
def test_bad_input_is_refused_in_one_line(tracked, runner, args, message):
    create_users(20)
    result = runner.invoke(args=["broadcast", "create", "--audience", "all", *args])
    # One line says why (a usage error's comes after click's usage lines, as every option clash's does).
    line = result.output.strip().splitlines()[-1]
    assert result.exit_code == 2 and message in line and result.output.count(message) == 1, result.output
    assert db.session.execute(select(BroadcastJob.id)).first() is None


def test_the_same_text_with_other_buttons_is_a_version(tracked, runner):
    create_users(20)
    test_id = create(runner, "--ab", "Offer", "--ab", "Offer", *LINK, "--ab-key", "B", f"url:Shop|{SHOP_B}")
    assert json.loads(reload(test_id).variants) == {"A": "Offer", "B": "Offer"}


@pytest.mark.parametrize("lang", ["fa", "en"])
def test_the_job_view_and_the_picture_say_which_rule_picks_the_winner(tracked, runner, simulator, client, lang):
    create_users(40)
    keys = ("--key", "url:Read more|https://example.com/blog", "--key", "url:Buy|https://example.com/buy")
    test_id = create(runner, "--ab", "Offer A", "--ab", "Offer B", *keys, "--ab-key", "B", "url:More|https://b.example",
                     "--ab-key", "B", "url:Buy|https://example.com/buy-b", "--test-share", "50", "--winner-by", "2")
    send(test_id)
    tested, got = letters(test_id), copies(simulator)
    clicks_on(client, got, [u for u, x in tested.items() if x == "A"][:6], 1)
    clicks_on(client, got, [u for u, x in tested.items() if x == "B"][:3], 2)
    view = ab_screen.versions_text(report.summary(reload(test_id)), lang)
    assert t("ab_title", lang, share=50, n=2, rule=t("ab_rule_button", lang, text="Buy")) in view
    assert t("ab_row_goal", lang, goal=3, text="Buy", rate="30.0") in view
    results = compute(test_id)
    drawn = [text.get_text() for text in figure(results, lang).findobj(Text)]
    assert t("chart_ab_title_button", lang, share=number(50, lang), text="Buy") in drawn
    assert t("chart_ab_bar", lang, ctr=percent(0.3, lang), clicks=number(3, lang), delivered=number(10, lang)) in drawn
    # Each version's own buttons are listed with their version and their own counts.
    assert [(b.get("version"), b["text"], b["unique"]) for b in results.buttons] == [
        (None, "Read more", 6), (None, "Buy", 0), ("B", "More", 0), ("B", "Buy", 3)]


def test_a_text_version_beside_a_media_version_a_greets_by_name(tracked, simulator):
    create_users(20)
    photo = simulator.add_message(ADMIN_ID, caption="Photo offer", photo=True)
    # The wizard's order: version A the admin's photo, B a text that greets (the CLI letters texts first).
    job = split.create_test(audience="all", texts=[{"copy": photo, "caption": "Photo offer"}, "Hi {first_name}"],
                            share=50, wait=timedelta(hours=2), button_text=None, button_url=None, created_by=1001,
                            settings=SETTINGS, kb={"rows": [[{"kind": "url", "text": "Shop", "url": SHOP_A}]]},
                            copy_from=ADMIN_ID)
    assert (job.content_type, json.loads(job.variants)) == ("copy", {"A": "Photo offer", "B": "Hi {first_name}"})
    send(job.id)
    got = copies(simulator)
    for user, letter in letters(job.id).items():
        [copy] = got[user]
        wanted = ("copyMessage", "Photo offer") if letter == "A" else ("sendMessage", f"Hi کاربر {user} 🎉")
        assert (copy["method"], copy["caption"] if letter == "A" else copy["text"]) == wanted


def test_a_press_on_a_versions_own_menu_button_answers_for_that_version_only(tracked, runner, simulator):
    create_users(20)
    test_id = create(runner, "--ab", "Offer A", "--ab", "Offer B", *LINK, "--ab-key", "B", f"url:Shop|{SHOP_B}",
                     "--ab-key", "B", "menu:Hours|Sat–Wed", "--test-share", "50")
    tested = letters(test_id)
    user_a = next(u for u, v in tested.items() if v == "A")
    user_b = next(u for u, v in tested.items() if v == "B")
    data = key_press.callback_data(test_id, 2)
    _, _, mac = key_press.parse_signed(data.split(":", 1)[1])
    assert key_press.press(test_id, 2, mac, user_b) == ("menu", "Sat–Wed")
    assert key_press.press(test_id, 2, mac, user_a) == (None, None), "A's keyboard has no button 2"
    db.session.commit()
    presses = db.session.execute(select(BroadcastButton.variant, BroadcastButton.presses)
                                 .where(BroadcastButton.job_id == test_id, BroadcastButton.position == 2)).all()
    assert presses == [("B", 1)]
