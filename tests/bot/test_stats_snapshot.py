"""/stats of a large bot: cron's snapshot shown with its age, recounted by housekeeping, exact after the recount."""
from datetime import timedelta

import pytest

from app.extensions import db
from app.models import StatsSnapshot, User
from app.services import stats
from app.texts import t
from tests.bot.wizard import send, texts_to
from tests.conftest import ADMIN_ID, PUMP_TOKEN
from tests.factories import create_user, create_users

pytestmark = pytest.mark.usefixtures("fast_telegram")
PUMP = ("/internal/pump", {"Authorization": f"Bearer {PUMP_TOKEN}"})
EVERY = int(stats.SNAPSHOT_EVERY.total_seconds() // 60)


def stats_text(users: int, new: int, lang: str = "fa") -> str:
    """The /stats text of `users` users, all new today and active, none blocked or in a channel."""
    return t("stats", lang, users=users, active_7d=users, active_30d=users, blocked=0, opted_out=0,
             channel_members=0, new_today=new, new_week=new, clicks="")


def sources(**by_source) -> None:
    """Give users their first /start source."""
    for source, ids in by_source.items():
        db.session.execute(db.update(User).where(User.id.in_(ids)).values(start_source=source))


def age_snapshot(minutes: int) -> None:
    """Move the snapshot's count time into the past, as if counted minutes ago."""
    snapshot = db.session.get(StatsSnapshot, 1)
    snapshot.taken_at -= timedelta(minutes=minutes)
    db.session.commit()


@pytest.fixture
def large(monkeypatch):
    """Make three users a large bot: /stats shows the snapshot from then on."""
    monkeypatch.setattr(stats, "LIVE_UP_TO_USERS", 3)


def test_a_small_bot_is_counted_live_on_every_stats(client, simulator):
    create_users([8001, 8002])
    create_user(ADMIN_ID)
    send(client, simulator, "/stats")
    assert texts_to(simulator)[-1] == stats_text(3, 3)
    create_users([8003])
    send(client, simulator, "/stats")
    assert texts_to(simulator)[-1] == stats_text(4, 4)  # no snapshot age: as of now


def test_a_large_bot_sees_the_snapshot_with_its_age_until_cron_recounts_it(client, simulator, large):
    create_users([8101, 8102])
    create_user(ADMIN_ID)
    send(client, simulator, "/stats")  # no snapshot yet: counted now, and stored
    assert texts_to(simulator)[-1] == stats_text(3, 3)
    taken = db.session.get(StatsSnapshot, 1).taken_at

    create_users([8103, 8104])
    send(client, simulator, "/stats", language_code="en")  # three users stored: the snapshot, with its age
    assert texts_to(simulator)[-1] == stats_text(3, 3, "en") + t(
        "stats_as_of", "en", minutes=0, at=taken.strftime("%H:%M"), every=EVERY)

    # Cron's call within SNAPSHOT_EVERY leaves it alone; the admin sees how old it is.
    assert client.get(PUMP[0], headers=PUMP[1]).get_json()["ok"] is True
    db.session.expire_all()
    assert db.session.get(StatsSnapshot, 1).taken_at == taken
    age_snapshot(EVERY - 1)
    send(client, simulator, "/stats")
    assert texts_to(simulator)[-1] == stats_text(3, 3) + t(
        "stats_as_of", minutes=EVERY - 1, at=(taken - timedelta(minutes=EVERY - 1)).strftime("%H:%M"), every=EVERY)

    # Once it is SNAPSHOT_EVERY old, cron's housekeeping recounts it: right again, age 0.
    age_snapshot(1)
    aged = taken - timedelta(minutes=EVERY)
    assert db.session.get(StatsSnapshot, 1).taken_at == aged
    assert client.get(PUMP[0], headers=PUMP[1]).get_json()["ok"] is True
    db.session.expire_all()
    recount = db.session.get(StatsSnapshot, 1).taken_at
    # Counted again now: MariaDB's DATETIME keeps whole seconds, so "now" may equal the first count's second.
    assert recount >= taken > aged
    send(client, simulator, "/stats")
    assert texts_to(simulator)[-1] == stats_text(5, 5) + t(
        "stats_as_of", minutes=0, at=recount.strftime("%H:%M"), every=EVERY)


def test_the_recount_keeps_sources_and_every_figure(app, large):
    create_users([8201, 8202, 8203, 8204])
    create_users([8205, 8206], is_blocked=True)
    sources(ads=(8201, 8202, 8203, 8204), friend=(8205, 8206))
    db.session.execute(db.update(User).where(User.id == 8206).values(is_blocked=False))
    db.session.commit()
    first = stats.figures()
    assert first.live and first.counts["users"] == 6 and first.counts["blocked"] == 1
    create_users([8207])
    shown = stats.figures()
    assert not shown.live and shown.counts == first.counts and shown.sources == first.sources
    assert stats.refresh_if_due(shown.taken_at + stats.SNAPSHOT_EVERY) is True
    after = stats.figures()
    assert after.counts == stats.user_stats() and after.sources == stats.source_stats()
    assert after.counts["users"] == 7 and after.counts["blocked"] == 1
    assert [(r["source"], r["users"], r["subscribed"]) for r in after.sources] == [("ads", 4, 4), ("friend", 2, 1)]
