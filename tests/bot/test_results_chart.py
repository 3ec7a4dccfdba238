"""The results picture in the admin's chat: after the final summary, and from a job view's 📊 button."""
from __future__ import annotations

import base64
import io
import threading
import time

import pytest
from matplotlib import image

from app.services import audit
from app.services.broadcast.jobs import creation
from app.services.broadcast.reporting import picture
from app.services.broadcast.reporting.numbers_line import numbers_line
from app.services.broadcast.reporting.results import compute
from app.services.broadcast.sending.drain import pump
from app.texts import t
from tests.bot.test_history import view_of
from tests.bot.wizard import buttons, last_answer, press, tap
from tests.broadcast.helpers import engine_settings
from tests.broadcast.results_job import craft_job
from tests.conftest import ADMIN_ID
from tests.factories import create_user

pytestmark = pytest.mark.usefixtures("fast_telegram")


@pytest.fixture(autouse=True)
def _pictures_drawn():
    """No picture thread outlives its test (it reads the tables the next test cleans)."""
    yield
    assert picture.idle(60)


def photos(simulator, count: int, seconds: float = 30.0) -> list[dict]:
    """Wait until the admin got count photos (the picture thread, then the late outbox); return them."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        got = simulator.deliveries("sendPhoto", ADMIN_ID)
        if len(got) >= count:
            return got
        time.sleep(0.1)
    raise AssertionError(f"{count} photo(s) expected, got {len(simulator.deliveries('sendPhoto', ADMIN_ID))}")


def decoded(delivery: dict):
    """Return an uploaded photo's pixels."""
    return image.imread(io.BytesIO(base64.b64decode(delivery["photo_base64"])), format="png")


@pytest.fixture(autouse=True)
def pictures_on(client, monkeypatch):
    """The tests' default is RESULTS_PICTURE off (tests/conftest.py): these judge the picture, so it is on."""
    monkeypatch.setitem(client.application.config, "RESULTS_PICTURE", True)


def assert_the_summary_goes_alone(simulator) -> None:
    """Finish a one-user broadcast: its summary reaches the admin, and no picture follows it."""
    create_user(7001)
    job = creation.create_job(audience="all", created_by=ADMIN_ID, content={"type": "text", "text": "خبر"},
                              settings=engine_settings(), actor=audit.admin_actor(ADMIN_ID))
    assert pump(job.id, 10, settings=engine_settings()).stop == "done"
    assert picture.idle(30)
    texts = [d["text"] for d in simulator.deliveries("sendMessage", ADMIN_ID)]
    assert any(text.startswith(t("summary").split("{status}")[0].format(id=job.id)) for text in texts)
    assert simulator.deliveries("sendPhoto", ADMIN_ID) == []


def test_with_results_picture_off_the_summary_goes_alone(client, simulator, monkeypatch):
    monkeypatch.setitem(client.application.config, "RESULTS_PICTURE", False)
    queued = []  # the photo would go later, from the late outbox: what counts is that none was queued
    real = picture.queue
    monkeypatch.setattr(picture, "queue", lambda *args, **kwargs: queued.append(args) or real(*args, **kwargs))
    assert_the_summary_goes_alone(simulator)
    assert queued == []


def test_the_final_summary_is_followed_by_the_picture(client, simulator):
    for user_id in (7001, 7002, 7003):
        create_user(user_id)
    job = creation.create_job(audience="all", created_by=ADMIN_ID, content={"type": "text", "text": "خبر 🎉"},
                              settings=engine_settings(), actor=audit.admin_actor(ADMIN_ID))
    assert pump(job.id, 10, settings=engine_settings()).stop == "done"
    [photo] = photos(simulator, 1)
    summary = [d for d in simulator.deliveries(chat_id=ADMIN_ID) if d["method"] == "sendMessage"][-1]
    assert summary["text"].startswith(t("summary").split("{status}")[0].format(id=job.id))
    assert summary["seq"] < photo["seq"]  # the summary first, the picture after it
    assert photo["caption"] == t("chart_caption", "fa", id=job.id)
    assert decoded(photo).shape[:2] == (1250, 1000)


def test_the_summary_goes_even_when_the_picture_fails(client, simulator, monkeypatch):
    monkeypatch.setattr(picture, "render_png", lambda *_: 1 / 0)
    assert_the_summary_goes_alone(simulator)


def test_the_job_view_button_sends_the_picture(client, simulator):
    job_id = craft_job()
    tap(client, simulator, f"j.view:{job_id}")
    view = view_of(simulator, job_id)
    assert f"j.chart:{job_id}" in buttons(view)
    press(client, simulator, "j.chart", under=view)
    assert last_answer(simulator)["text"] == t("cb_chart_preparing")
    [photo] = photos(simulator, 1)
    assert decoded(photo).shape[:2] == (1250, 1000)


def test_a_job_that_sent_nothing_offers_no_chart_and_refuses_a_stale_press(client, simulator):
    create_user(7001)
    job = creation.create_job(audience="all", created_by=ADMIN_ID, content={"type": "text", "text": "خبر"},
                              settings=engine_settings(), actor=audit.admin_actor(ADMIN_ID))
    tap(client, simulator, f"j.view:{job.id}")
    assert not any(b.startswith("j.chart") for b in buttons(view_of(simulator, job.id)))
    tap(client, simulator, f"j.chart:{job.id}")
    assert last_answer(simulator)["text"] == t("cb_chart_nothing")


def test_with_results_picture_off_the_chart_button_answers_with_the_numbers(client, simulator, monkeypatch):
    monkeypatch.setitem(client.application.config, "RESULTS_PICTURE", False)
    job_id = craft_job()
    tap(client, simulator, f"j.view:{job_id}")
    press(client, simulator, "j.chart", under=view_of(simulator, job_id))
    assert last_answer(simulator)["text"] == t("cb_chart_numbers")
    assert picture.idle(30)
    expected = numbers_line(compute(job_id), "fa")
    end = time.monotonic() + 30
    while time.monotonic() < end and not any(d["text"] == expected
                                             for d in simulator.deliveries("sendMessage", ADMIN_ID)):
        time.sleep(0.1)
    assert [d["text"] for d in simulator.deliveries("sendMessage", ADMIN_ID)].count(expected) == 1
    assert "requirements-pictures.txt" not in expected  # off is the operator's choice: no install hint
    assert simulator.deliveries("sendPhoto", ADMIN_ID) == []


def test_the_picture_thread_ends_once_no_picture_waits(client, simulator):
    job_id = craft_job()
    tap(client, simulator, f"j.view:{job_id}")
    press(client, simulator, "j.chart", under=view_of(simulator, job_id))
    photos(simulator, 1)
    end = time.monotonic() + 10
    while time.monotonic() < end and _picture_threads():
        time.sleep(0.05)
    assert _picture_threads() == []  # an idle web worker keeps no thread for pictures (NPROC counts threads)


def _picture_threads() -> list:
    return [th for th in threading.enumerate() if th.name.startswith("results-picture") and th.is_alive()]
