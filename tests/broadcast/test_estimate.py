"""The pre-send screen's duration: recipients at the current budget, after the queue ahead."""
import pytest

from app.services.broadcast.estimate import estimate_seconds, format_estimate, pending_ahead
from tests.broadcast.helpers import create_text_job, create_users, engine_settings


def test_free_rate_is_the_lower_of_the_broadcast_and_bot_wide_caps():
    settings = engine_settings(broadcast_rate_per_second=20.0, telegram_rate_per_second=10.0)
    assert estimate_seconds(600, False, settings, {}) == 60


def test_paid_uses_its_own_rate_and_jobs_ahead_use_theirs():
    settings = engine_settings(broadcast_rate_per_second=10.0, broadcast_paid_rate_per_second=100.0)
    assert estimate_seconds(1000, True, settings, {}) == 10
    # 100 free items ahead (10 s) and 1000 paid items ahead (10 s), then 50 free (5 s).
    assert estimate_seconds(50, False, settings, {False: 100, True: 1000}) == 25


@pytest.mark.parametrize("seconds, fa, en", [
    (0.2, "≈ ۱ ثانیه", "≈ 1 s"),
    (45, "≈ ۴۵ ثانیه", "≈ 45 s"),
    (61, "≈ ۲ دقیقه", "≈ 2 min"),
    (12 * 60, "≈ ۱۲ دقیقه", "≈ 12 min"),
    (2 * 3600 + 5 * 60, "≈ ۲ ساعت و ۵ دقیقه", "≈ 2 h 5 min"),
])
def test_format_in_persian_and_english(seconds, fa, en):
    assert (format_estimate(seconds, "fa"), format_estimate(seconds, "en")) == (fa, en)


def test_pending_ahead_counts_queued_and_running_jobs_by_paid_flag(app):
    create_users(7)
    assert pending_ahead() == {}
    create_text_job()  # running
    create_text_job()  # queued behind it
    create_text_job(settings=engine_settings(broadcast_paid_enabled=True))
    assert pending_ahead() == {False: 14, True: 7}
