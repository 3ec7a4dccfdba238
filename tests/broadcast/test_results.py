"""A broadcast's results: the numbers equal its crafted ledger to the second, and the picture decodes."""
from __future__ import annotations

import io

import pytest
from matplotlib import image
from sqlalchemy import select, update

from app.extensions import db
from app.models import BroadcastJobItem, User
from app.services.broadcast.reporting.chart import render_png
from app.services.broadcast.reporting.results import NoResults, bucket_seconds, compute
from app.services.broadcast.sending.drain import pump
from app.simulator.updates import my_chat_member_update
from tests.broadcast.helpers import create_text_job, create_users, engine_settings
from tests.broadcast.results_job import EXPECTED, craft_job
from tests.factories import post_update


def test_the_numbers_equal_the_ledger(app):
    job_id = craft_job()
    numbers = compute(job_id).as_dict()
    for key, value in EXPECTED.items():
        assert numbers[key] == value, key
    assert numbers["buttons"] == [{"text": "خرید بلیت", "url": "https://example.ir/tickets", "unique": 2,
                                   "total": 3}]
    earlier = job_id - 1
    assert numbers["recent"] == [{"id": earlier, "delivered": 2, "ctr": None, "blocked_after": 1},
                                 {"id": job_id, "delivered": 5, "ctr": 0.4, "blocked_after": 1}]


@pytest.mark.parametrize("lang", ["fa", "en"])
def test_the_picture_decodes_at_its_size(app, lang):
    png = render_png(compute(craft_job()), lang)
    pixels = image.imread(io.BytesIO(png), format="png")
    assert pixels.shape[:2] == (1250, 1000)  # under Telegram's 1280 px side: never scaled down
    assert 20_000 < len(png) < 1_000_000
    # A light card whatever the chat's theme: the corner is the card's colour, not transparent.
    assert pixels[2, 2, :3].min() > 0.95 and (pixels.shape[2] == 3 or pixels[2, 2, 3] == 1.0)


def test_a_job_without_deliveries_or_unknown_is_refused_in_one_line(app):
    create_users(2)
    job = create_text_job()
    with pytest.raises(NoResults, match="delivered nothing"):
        compute(job.id)
    with pytest.raises(NoResults, match="no broadcast job 999"):
        compute(999)


def test_buckets_stay_within_sixty_and_on_round_sizes():
    assert bucket_seconds(0, 590) == 10
    assert bucket_seconds(0, 600) == 30
    assert bucket_seconds(0, 86400 * 3) == 7200
    assert bucket_seconds(0, 10**9) == 604800


def test_blocked_after_counts_a_block_at_the_copys_own_instant_and_not_a_user_who_unblocked(app, simulator, client):
    """Blocked at their copy's sent_at: counted. Blocked later, then unblocked (Telegram's updates): not counted."""
    settings = engine_settings()
    at_once_blocked, came_back, still_blocked, stayed = create_users(4)
    job_id = create_text_job(settings=settings).id
    assert pump(job_id, 30, settings=settings).stop == "done"
    sent_at = db.session.execute(select(BroadcastJobItem.sent_at).where(
        BroadcastJobItem.job_id == job_id, BroadcastJobItem.user_id == at_once_blocked)).scalar_one()
    db.session.execute(update(User).where(User.id == at_once_blocked).values(is_blocked=True, blocked_at=sent_at))
    db.session.commit()
    for user, old, new in ((came_back, "member", "kicked"), (came_back, "kicked", "member"),
                           (still_blocked, "member", "kicked")):
        assert post_update(client, my_chat_member_update(user, old, new)).status_code == 200
    numbers = compute(job_id).as_dict()
    assert numbers["blocked_after"] == 2
    assert numbers["recent"][-1]["blocked_after"] == 2
