"""A broadcast's results: the numbers equal its crafted ledger to the second, and the picture decodes."""
from __future__ import annotations

import io

import pytest
from matplotlib import image

from app.services.broadcast.reporting.chart import render_png
from app.services.broadcast.reporting.results import NoResults, bucket_seconds, compute
from tests.broadcast.helpers import create_text_job, create_users
from tests.broadcast.results_job import EXPECTED, craft_job


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
