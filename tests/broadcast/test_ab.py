"""A/B tests: the split at population, the winner made once, nobody of the test gets the winner, the z-test, picks."""
from __future__ import annotations

import math
import threading
from datetime import timedelta

import pytest
from sqlalchemy import delete, select, update

from app.extensions import db
from app.models import BroadcastJob, BroadcastJobItem
from app.repository import ab as repo
from app.repository.db_clock import db_utcnow
from app.services.broadcast.ab import cron, report, split, stats, winner
from app.services.broadcast.ab.versions import ASKED, SENT, sample_size
from app.services.broadcast.actions import retry
from app.services.broadcast.jobs import control
from app.services.broadcast.sending.drain import pump
from app.texts import t
from tests.broadcast.helpers import BASE_ID, at_once, create_users, engine_settings, reload
from tests.conftest import ADMIN_ID

PUBLIC = "https://bot.example.com"
SETTINGS = engine_settings(broadcast_rate_per_second=28)
TEXTS = ["<b>نسخه الف</b>", "<b>نسخه ب</b>", "<b>نسخه ج</b>"]
I = BroadcastJobItem  # noqa: E741


@pytest.fixture
def tracked(app):
    """The app with PUBLIC_URL set: clicks are tracked, so an A/B test by CTR is allowed."""
    app.config["PUBLIC_URL"] = PUBLIC
    yield app
    app.config["PUBLIC_URL"] = None


def make_test(texts=TEXTS[:2], share=10, wait=timedelta(hours=2)):
    """Create an A/B test job with a tracked link button."""
    return split.create_test(audience="all", texts=texts, share=share, wait=wait, button_text="ببین",
                             button_url="https://example.com/offer", created_by=1001, settings=SETTINGS)


def letters(job_id: int) -> dict[int, str]:
    """Return {user: version letter} of a job's items."""
    rows = db.session.execute(select(I.user_id, I.variant).where(I.job_id == job_id)).all()
    db.session.commit()
    return dict(rows)


def send(job_id: int) -> None:
    """Pump a job to its end."""
    assert pump(job_id, 30, settings=SETTINGS).stop == "done"


def click(job_id: int, users) -> None:
    """Record a unique click for each of these recipients of a job, as the /r/ redirect does."""
    db.session.execute(update(I).where(I.job_id == job_id, I.user_id.in_(list(users))).values(clicked_at=db_utcnow()))
    db.session.commit()


def wait_over(job_id: int) -> None:
    """Age the test's end past its wait, as if two hours went by."""
    db.session.execute(update(BroadcastJob).where(BroadcastJob.id == job_id)
                       .values(finished_at=db_utcnow() - timedelta(hours=3)))
    db.session.commit()


def test_the_split_is_the_share_rounded_even_random_and_reproducible(tracked):
    create_users(205)
    job = make_test(TEXTS, share=10)  # 20.5 rounds to 21: 7 per version
    got = letters(job.id)
    assert len(got) == sample_size(205, 10) == 21 == reload(job.id).total_count
    counts = {v: list(got.values()).count(v) for v in "ABC"}
    assert counts == {"A": 7, "B": 7, "C": 7}
    assert sorted(got) != list(range(BASE_ID, BASE_ID + 21)), "the test took the first users, not a random share"
    # The same (job, user) always lands in the same place: populating again gives the same letters.
    db.session.execute(delete(I).where(I.job_id == job.id))
    assert repo.populate_split(job.id, "all", None, "ABC", 21) == 21
    db.session.commit()
    assert letters(job.id) == got


@pytest.mark.parametrize("n,share,k", [(100, 10, 3), (57, 33, 4), (1000, 7, 5), (11, 50, 2)])
def test_every_version_differs_by_at_most_one(tracked, n, share, k):
    create_users(n)
    job = make_test(TEXTS[:2] + [f"<i>{i}</i>" for i in range(k - 2)], share=share)
    got = list(letters(job.id).values())
    sizes = [got.count(v) for v in "ABCDE"[:k]]
    assert sum(sizes) == sample_size(n, share) and max(sizes) - min(sizes) <= 1


def test_z_test_matches_hand_computed_numbers():
    # 30/200 vs 15/200: pooled p = 45/400 = 0.1125, se = sqrt(.1125 * .8875 * (1/200 + 1/200)) = 0.03159806.
    result = stats.z_test(30, 200, 15, 200)
    assert result.z == pytest.approx(0.075 / 0.03159806, rel=1e-6) == pytest.approx(2.37356, rel=1e-4)
    assert result.p_value == pytest.approx(math.erfc(2.37356 / math.sqrt(2)), rel=1e-4) == pytest.approx(0.01762,
                                                                                                         abs=1e-4)
    assert result.significant
    weak = stats.z_test(12, 100, 10, 100)  # se = sqrt(.11 * .89 * .02) = .044249, z = .45198, p = 0.6513
    assert weak.p_value == pytest.approx(0.6513, abs=1e-4) and not weak.significant
    assert stats.z_test(0, 50, 0, 50).p_value is None


def test_the_leader_needs_a_click_and_a_strict_lead():
    v = stats.Version
    assert stats.leader([v("A", 10, 10, 0), v("B", 10, 10, 0)]) is None
    assert stats.leader([v("A", 10, 10, 2), v("B", 10, 10, 2)]) is None
    assert stats.leader([v("A", 10, 10, 1), v("B", 10, 5, 1)]).letter == "B"


def test_two_cron_passes_make_exactly_one_winner_and_nobody_of_the_test_gets_it(tracked, simulator, app):
    create_users(40)
    job = make_test(share=50)
    send(job.id)
    tested = letters(job.id)
    click(job.id, [u for u, v in tested.items() if v == "B"][:5])
    click(job.id, [u for u, v in tested.items() if v == "A"][:1])
    wait_over(job.id)
    results = at_once(app, lambda: winner.release_due(SETTINGS), 2)
    made = [job_id for jobs, _ in results for job_id in jobs]
    assert len(made) == 1
    winners = db.session.execute(select(BroadcastJob.id).where(BroadcastJob.ab_of == job.id)).scalars().all()
    assert winners == made and reload(job.id).ab_state == SENT and reload(job.id).ab_winner == "B"
    send(made[0])
    rest = letters(made[0])
    assert len(rest) == 20 and not set(rest) & set(tested)
    texts = {}
    for d in simulator.deliveries("sendMessage"):
        if d["chat_id"] >= BASE_ID:
            texts.setdefault(d["chat_id"], []).append(d["text"])
    assert all(len(got) == 1 for got in texts.values()), "someone got two copies"
    assert set(texts) == set(tested) | set(rest)
    for user in tested:
        assert texts[user] == [{"A": TEXTS[0], "B": TEXTS[1]}[tested[user]]]
    assert all(texts[user] == [TEXTS[1]] for user in rest)


def test_no_click_waits_for_the_admin_who_picks_once(tracked, simulator):
    create_users(20)
    job = make_test(share=50)
    send(job.id)
    wait_over(job.id)
    assert winner.release_due(SETTINGS) == ([], [job.id])
    assert winner.release_due(SETTINGS) == ([], [])  # told once
    assert reload(job.id).ab_state == ASKED and repo.winner_job_of(job.id) is None
    assert report.summary(reload(job.id))["winner_goes"] == report.GOES_ADMIN
    made = winner.pick(job.id, "a", actor="cli")
    assert reload(made).total_count == 10 and reload(made).ab_of == job.id and reload(made).text == TEXTS[0]
    with pytest.raises(winner.NotPickable, match="already chosen"):
        winner.pick(job.id, "B", actor="cli")


def test_an_admin_picks_before_the_wait_and_cron_makes_nothing_more(tracked, simulator):
    create_users(20)
    job = make_test(share=50)
    send(job.id)
    made = winner.pick(job.id, "B", actor="cli")
    wait_over(job.id)
    assert winner.release_due(SETTINGS) == ([], [])
    assert db.session.execute(select(BroadcastJob.id).where(BroadcastJob.ab_of == job.id)).scalars().all() == [made]


def test_a_cancelled_test_sends_no_winner(tracked, simulator):
    create_users(20)
    job = make_test(share=50)
    assert control.cancel_job(job.id)
    wait_over(job.id)
    assert winner.release_due(SETTINGS) == ([], [])
    with pytest.raises(winner.NotPickable, match="cancelled"):
        winner.pick(job.id, "A", actor="cli")
    assert report.summary(reload(job.id))["winner_goes"] == report.GOES_NEVER


def test_an_empty_rest_makes_no_winner_job(tracked, simulator):
    create_users(10)
    job = make_test(share=99)  # 9.9 rounds to 10: the test holds everyone
    send(job.id)
    assert winner.pick(job.id, "A", actor="cli") is None
    assert reload(job.id).ab_state == SENT and repo.winner_job_of(job.id) is None
    assert report.summary(reload(job.id))["winner_goes"] == report.GOES_EMPTY


def test_a_retry_keeps_each_recipients_version(tracked, simulator):
    create_users(20)
    job = make_test(share=50)
    tested = letters(job.id)
    assert control.cancel_job(job.id)
    again = retry.retry_job(job.id, settings=SETTINGS)
    assert letters(again.id) == tested and reload(again.id).ab_state is None


def test_a_test_without_a_tracked_link_or_enough_users_is_refused(app):
    create_users(5)
    with pytest.raises(ValueError, match="PUBLIC_URL"):
        make_test()
    app.config["PUBLIC_URL"] = PUBLIC
    try:
        with pytest.raises(ValueError, match="fewer than one recipient per version"):
            make_test(share=10)  # 0.5 rounds to 1: two versions need two
    finally:
        app.config["PUBLIC_URL"] = None


def test_two_cron_passes_at_once_ask_the_admins_once(tracked, simulator, app, monkeypatch):
    """No clear leader, two cron passes that both read the test before either marked it: one alert per admin."""
    create_users(20)
    job = make_test(share=50)
    send(job.id)
    wait_over(job.id)
    both_read, judge = threading.Barrier(2, timeout=20), stats.leader

    def judged_after_both_read(versions):
        both_read.wait()  # each pass has read the test as still testing
        return judge(versions)

    monkeypatch.setattr(winner.stats, "leader", judged_after_both_read)
    assert sorted(at_once(app, lambda: cron.run(SETTINGS), 2)) == [[], []]
    assert reload(job.id).ab_state == ASKED and repo.winner_job_of(job.id) is None
    alerts = [d for d in simulator.deliveries("sendMessage", chat_id=ADMIN_ID) if cron.PICK_PREFIX in str(d)]
    assert len(alerts) == 1 and alerts[0]["text"] == t("ab_alert", "fa", id=job.id)
