"""The pre-send screen's duration: recipients at the current budget, after the queue ahead."""
import pytest
from sqlalchemy import update

from app.extensions import db
from app.models import BroadcastJob
from app.services.broadcast.jobs import creation
from app.services.broadcast.jobs.estimate import (
    estimate_seconds,
    follows,
    format_estimate,
    paid_messages,
    pending_ahead,
)
from tests.broadcast.helpers import create_text_job, create_users, engine_settings


def test_free_rate_is_the_lower_of_the_broadcast_and_bot_wide_caps():
    settings = engine_settings(broadcast_rate_per_second=20.0, telegram_rate_per_second=10.0)
    assert estimate_seconds(600, 1, False, settings, {}) == 60


def test_paid_uses_its_own_rate_and_jobs_ahead_use_theirs():
    settings = engine_settings(broadcast_rate_per_second=10.0, broadcast_paid_rate_per_second=100.0)
    assert estimate_seconds(1000, 1, True, settings, {}) == 10
    # 100 free items ahead (10 s) and 1000 paid items ahead (10 s), then 50 free (5 s).
    assert estimate_seconds(50, 1, False, settings, {(False, 1, False): 100, (True, 1, False): 1000}) == 25


@pytest.mark.parametrize("recipients, parts, seconds", [
    (100, 3, 100 * 5 / 29),  # 17.2 s (not 100 * 3 / 29 = 10.3 s): each send books a span of 5 bot-wide slots
    (30, 10, 30 * 19 / 29),  # 19.7 s (not 10.3 s): a span of 19
    (29, 1, 1.0),  # a single message: one slot
])
def test_an_album_takes_its_span_of_bot_wide_slots_per_recipient(recipients, parts, seconds):
    assert estimate_seconds(recipients, parts, False, engine_settings(), {}) == pytest.approx(seconds)


def test_an_album_ahead_costs_its_span_per_item_left():
    settings = engine_settings(broadcast_rate_per_second=10.0, telegram_rate_per_second=10.0)
    # 20 recipients of a 3-part album ahead: 20 * 5 slots at 10/s = 10 s; then 10 messages: 1 s.
    assert estimate_seconds(10, 1, False, settings, {(False, 3, False): 20}) == pytest.approx(11)


def test_a_slower_own_rate_still_bounds_an_album():
    # The job's own rate (5/s) takes a slot per part: 3 parts = 0.6 s, longer than 5 bot-wide slots at 29/s.
    settings = engine_settings(broadcast_rate_per_second=5.0, telegram_rate_per_second=29.0)
    assert estimate_seconds(10, 3, False, settings, {}) == pytest.approx(6)


KB = {"rows": [[{"kind": "menu", "text": "Hours", "answer": "9 to 17"}]]}


def test_an_albums_keyboard_message_is_one_more_part_and_its_chats_pace_ends_the_job():
    # 60 recipients of 3 parts and a keyboard message: 4 parts span 7 bot-wide slots at 29/s (14.5 s), and the
    # last keyboard message waits its chat's second after its album. Without it: 60 x 5 slots = 10.3 s.
    settings = engine_settings(broadcast_rate_per_second=28.0)
    assert estimate_seconds(60, 3, False, settings, {}, True) == pytest.approx(60 * 7 / 29 + 1)
    assert estimate_seconds(60, 3, False, settings, {}) == pytest.approx(60 * 5 / 29)


def test_an_album_of_two_with_a_keyboard_is_bound_by_the_threads_its_chats_pace_holds():
    # Each send holds a thread for two calls and the chat's second between them: 6 threads, with the Booker's
    # margin of 1.2, start one every (2 x 0.05 + 1) x 1.2 / 6 = 0.22 s, slower than 3 parts' 5 slots (0.17 s).
    settings = engine_settings(broadcast_concurrency=6)
    assert estimate_seconds(60, 2, False, settings, {}, True, 0.05) == pytest.approx(60 * 0.22 + 1)
    # Twelve threads reach twice as far: the lane's 5 slots a send bound it again.
    settings = engine_settings(broadcast_concurrency=12)
    assert estimate_seconds(60, 2, False, settings, {}, True, 0.05) == pytest.approx(60 * 5 / 29 + 1)


def test_a_keyboard_under_anything_but_an_album_sends_no_message_of_its_own():
    assert (follows("send", "album", KB), follows("send", "text", KB), follows("send", "album", None)) == (
        True, False, False)
    assert not follows("unsend", "album", KB), "an unsend deletes the keyboard message with the parts: one call"


def test_pending_ahead_counts_an_albums_keyboard_message(app):
    create_users(4)
    creation.create_job(audience="all", created_by=1001, settings=engine_settings(), keyboard=KB,
                        content={"type": "album", "from_chat_id": 1001, "message_ids": [5, 6]})
    create_text_job(keyboard=KB)  # a text carries its keyboard itself
    assert pending_ahead() == {(False, 2, True): 4, (False, 1, False): 4}
    # 4 albums ahead, each holding one of 6 threads its chat's second (1.2 / 6 = 0.2 s a send, more than its
    # 3 messages' 5 slots at 29/s), and 4 texts; then 29 messages: 1 s.
    assert estimate_seconds(29, 1, False, engine_settings(), pending_ahead()) == pytest.approx(
        4 * 0.2 + 4 / 29 + 1)


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
    assert pending_ahead() == {(False, 1, False): 14, (True, 1, False): 7}


def test_pending_ahead_counts_an_albums_parts_and_an_actions_done_items(app):
    create_users(7)
    album = creation.create_job(audience="all", created_by=1001, settings=engine_settings(),
                                content={"type": "album", "from_chat_id": 1001, "message_ids": [5, 6, 7]})
    unsend = create_text_job()  # queued behind the album; made an album's unsend with 3 items already done
    db.session.execute(update(BroadcastJob).where(BroadcastJob.id == unsend.id).values(
        kind="unsend", content_type="album", source_message_ids="[5, 6, 7]", sent_count=1, gone_count=1,
        too_old_count=1))
    db.session.execute(update(BroadcastJob).where(BroadcastJob.id == album.id).values(sent_count=2))
    db.session.commit()
    # The album: 5 items left of 3 parts each; the unsend: 4 left, one call each.
    assert pending_ahead() == {(False, 3, False): 5, (False, 1, False): 4}


@pytest.mark.parametrize("recipients, rate, cap, billed", [
    (10_000, 900.0, 10_000, (9_667, 10_000)),  # 11.1 s at 900/s: ~333 fit in the free 30 a second
    (20_000, 1000.0, 10_000, (9_700, 10_000)),  # the job's paid cap bounds what it can be billed for
    (4, 900.0, 10_000, (4, 4)),  # a blink at 900/s: not a whole second's free share to take off
    (100, 30.0, 10_000, (0, 100)),  # never above the regular limit: nothing is billed, but the cap stays
])
def test_paid_messages_count_what_telegram_bills(recipients, rate, cap, billed):
    settings = engine_settings(broadcast_paid_rate_per_second=rate, broadcast_paid_max_messages=cap)
    assert paid_messages(recipients, settings) == billed
