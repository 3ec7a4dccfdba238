"""A broadcast whose links went out untracked (no PUBLIC_URL when it was made) shows its clicks as unknown, never 0."""
from __future__ import annotations

from sqlalchemy import update

from app.extensions import db
from app.models import BroadcastJob
from app.services.broadcast.jobs import creation
from app.services.broadcast.jobs.status import job_status
from app.services.broadcast.reporting import clicks, results
from app.services.broadcast.reporting.progress import summary_text
from app.services.broadcast.sending.drain import pump
from app.texts import t
from tests.broadcast.helpers import create_users, reload
from tests.broadcast.test_clicks import SETTINGS, TARGET, button_job, click, links, token_of

KEY = {"rows": [[{"kind": "url", "text": "🛒", "url": TARGET}]]}


def sent(job: BroadcastJob) -> BroadcastJob:
    assert pump(job.id, 20, settings=SETTINGS).stop == "done"
    return reload(job.id)


def test_without_public_url_the_clicks_are_not_counted_and_no_screen_says_0(app, simulator):
    create_users(3)
    job = sent(button_job())
    assert job.links_tracked is False
    assert all(link == TARGET for link in links(simulator).values())  # the links went out as given
    view = job_status(job)
    assert (view.clicks_counted, view.click_rate, view.as_dict()["clicks_counted"]) == (False, None, False)
    for lang in ("fa", "en"):
        text = summary_text(view, lang)
        assert t("clicks_untracked_line", lang) in text
        assert t("clicks_line", lang, clicks=0, total=0, rate="0.0%") not in text
    numbers = results.compute(job.id)
    assert (numbers.ctr, numbers.buttons) == (None, [])  # the picture's CTR tile reads "—"
    assert numbers.recent[-1]["ctr"] is None
    assert clicks.latest_with_button() is None  # /stats reports no broadcast's clicks as 0


def test_with_public_url_the_same_broadcast_counts_its_clicks(public_url, simulator, client):
    create_users(2)
    job = sent(button_job())
    assert job.links_tracked is True
    click(client, token_of(links(simulator)[min(links(simulator))]))
    view = job_status(reload(job.id))
    assert (view.clicks_counted, view.clicks, view.click_rate) == (True, 1, 0.5)
    assert t("clicks_line", "en", clicks=1, total=1, rate="50.0%") in summary_text(view, "en")
    assert results.compute(job.id).ctr == 0.5
    assert clicks.latest_with_button().id == job.id


def test_a_keyboard_broadcast_with_tracked_links_has_a_ctr_among_the_recent_ones(public_url, simulator):
    """Its link lives in the keyboard, not in button_url: the recent chart used to leave its CTR out."""
    create_users(2)
    job = sent(creation.create_job(audience="all", created_by=1001, settings=SETTINGS, keyboard=KEY,
                                   content={"type": "text", "text": "کیبورد"}))
    assert job.links_tracked is True and job.button_url is None
    assert results.compute(job.id).recent[-1]["ctr"] == 0.0


def test_a_broadcast_made_before_tracking_was_recorded_reads_as_before(app, simulator):
    create_users(2)
    job = sent(button_job())
    db.session.execute(update(BroadcastJob).where(BroadcastJob.id == job.id).values(links_tracked=None))
    db.session.commit()
    view = job_status(reload(job.id))
    assert view.clicks_counted and t("clicks_line", "en", clicks=0, total=0, rate="0.0%") in summary_text(view, "en")
    assert clicks.latest_with_button().id == job.id


def test_the_picture_says_the_clicks_were_not_counted_not_that_it_had_no_button(app, simulator):
    create_users(2)
    numbers = results.compute(sent(button_job()).id)
    assert numbers.links_untracked and numbers.clicks_note() == "chart_not_counted"
    assert t("chart_not_counted", "en") == "Clicks were not counted (no PUBLIC_URL)."


def test_a_broadcast_without_a_button_still_says_it_had_none(app, simulator):
    create_users(2)
    job = sent(creation.create_job(audience="all", created_by=1001, settings=SETTINGS,
                                   content={"type": "text", "text": "بی‌دکمه"}))
    numbers = results.compute(job.id)
    assert not numbers.links_untracked and numbers.clicks_note() == "chart_no_button"
