"""`flask broadcast create` with paid broadcasts on reads the Stars balance first and refuses what it cannot pay."""
import json

from sqlalchemy import func, select

from app.extensions import db
from app.models import BroadcastJob
from app.services.settings import set_setting
from tests.broadcast.helpers import create_users, reload


def jobs() -> int:
    n = db.session.execute(select(func.count()).select_from(BroadcastJob)).scalar_one()
    db.session.commit()
    return n


def create(runner, *args):
    return runner.invoke(args=["broadcast", "create", "--audience", "all", "--text", "paid news", *args])


def test_a_paid_broadcast_the_balance_cannot_cover_is_refused_with_what_to_do(runner, simulator):
    create_users(5)
    set_setting("broadcast_paid_enabled", "on")
    simulator.set_stars(0, 200_000_000)  # 0.2 Star; five copies may cost 0.5
    result = create(runner)
    assert result.exit_code == 1, result.output
    assert "paid broadcast not started: the Stars balance (0.2 ⭐) cannot cover this paid broadcast (up to 0.5 ⭐)" \
        in result.output
    assert "Top up Stars in @BotFather" in result.output and "broadcast_paid_enabled off" in result.output
    assert jobs() == 0 and simulator.deliveries() == []


def test_a_paid_broadcast_the_balance_covers_is_created_and_its_spend_shown(runner, simulator):
    create_users(5)
    set_setting("broadcast_paid_enabled", "on")
    simulator.set_stars(0, 500_000_000)
    result = create(runner)
    assert result.exit_code == 0, result.output
    job = reload(int(result.stdout))
    assert job.paid is True
    assert runner.invoke(args=["broadcast", "pump", "--job", str(job.id), "--seconds", "10"]).exit_code == 0
    status = runner.invoke(args=["broadcast", "status", str(job.id)])
    assert json.loads(status.output)["stars"] == {"spent": 0.5, "estimate": 0.5}
    assert simulator.star_balance() == {"amount": 0}


def test_free_broadcasts_never_read_the_balance(runner, simulator):
    create_users(2)
    simulator.set_stars(0)
    assert create(runner).exit_code == 0
    assert simulator.stats()["calls"].get("getMyStarBalance", 0) == 0
