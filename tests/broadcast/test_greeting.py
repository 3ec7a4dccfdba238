"""Personal greeting: {first_name} becomes each recipient's HTML-escaped name, or a neutral word."""
import pytest
from sqlalchemy import select

from app.extensions import db
from app.models import BroadcastJobItem as I  # noqa: N814
from app.services.broadcast.content.greeting import has_greeting, render
from app.services.broadcast.sending.drain import pump
from tests.broadcast.helpers import assert_consistent, create_text_job, engine_settings, reload
from tests.factories import create_user

FAST = engine_settings(broadcast_rate_per_second=30)


@pytest.mark.parametrize("name, lang, expected", [
    ("<b>Ali</b>", "fa", "سلام &lt;b&gt;Ali&lt;/b&gt; 🌹"),
    ("Tom & Jerry", "en", "سلام Tom &amp; Jerry 🌹"),
    ("  مریم  ", "fa", "سلام مریم 🌹"),
    ("", "fa", "سلام کاربر 🌹"),
    ("   ", "en", "سلام there 🌹"),
    (None, "fa", "سلام کاربر 🌹"),
])
def test_render(name, lang, expected):
    assert render("سلام {first_name} 🌹", name, lang) == expected


def test_every_placeholder_is_replaced_and_other_braces_stay():
    assert render("{first_name}، {first_name}! {x} {}", "Ali", "fa") == "Ali، Ali! {x} {}"
    assert has_greeting("Hi {first_name}") and not has_greeting("Hi {name}") and not has_greeting(None)


def test_each_recipient_gets_their_escaped_name_or_the_fallback(app, simulator):
    create_user(7001, first_name="<b>Ali</b>", language_code="fa")
    create_user(7002, first_name="", language_code="fa")
    create_user(7003, first_name="", language_code="en")
    create_user(7004, first_name="Zoë", language_code=None)
    job = create_text_job(text="<i>سلام</i> {first_name}!")
    result = pump(job.id, 20, settings=FAST)
    assert result.stop == "done"
    texts = {d["chat_id"]: d["text"] for d in simulator.deliveries("sendMessage") if d["chat_id"] >= 7001}
    assert texts == {7001: "<i>سلام</i> &lt;b&gt;Ali&lt;/b&gt;!", 7002: "<i>سلام</i> کاربر!",
                     7003: "<i>سلام</i> there!", 7004: "<i>سلام</i> Zoë!"}
    # The stored job keeps the placeholder: only the sends are personal.
    assert reload(job.id).text == "<i>سلام</i> {first_name}!"
    assert_consistent(job.id)


def test_a_text_without_the_placeholder_is_sent_as_is(app, simulator):
    create_user(7001, first_name="<b>Ali</b>")
    job = create_text_job(text="سلام {name}")
    pump(job.id, 20, settings=FAST)
    assert [d["text"] for d in simulator.deliveries("sendMessage", 7001)] == ["سلام {name}"]


@pytest.mark.parametrize("name", ["\u200f", "\u200e\u200f\u202b", "\u3164", " \u2800 ", "\u0301"])
def test_a_name_that_shows_nothing_gets_the_fallback(name):
    assert render("سلام {first_name}", name, "fa") == "سلام کاربر"


def test_a_name_with_quotes_is_safe_inside_an_attribute(app, simulator):
    create_user(7101, first_name='Al"i \'x\'', language_code="en")
    job = create_text_job(text='<a href="https://example.com/?n={first_name}">Hi {first_name}</a>')
    assert pump(job.id, 20, settings=FAST).stop == "done"
    [copy] = [m for m in simulator.bot_messages() if m["chat_id"] == 7101]
    assert copy["text"] == "Hi Al\"i 'x'"  # Telegram parsed it: the link survived the quotes
    assert assert_consistent(job.id) == {"sent": 1}


def test_a_name_that_makes_the_text_too_long_fails_that_copy_alone_and_never_trips_the_breaker(app, simulator):
    settings = engine_settings(broadcast_rate_per_second=30, broadcast_max_consecutive_errors=3)
    short = [create_user(7200 + i, first_name="Ali", language_code="en") for i in range(3)]
    # Telegram allows first names of 64 characters: these make the text 4,155 units long.
    long = [create_user(7300 + i, first_name="ب" * 64, language_code="fa") for i in range(6)]
    text = "{first_name} " + "x" * 4090  # 4,096 units with the 5-unit fallback: accepted at creation
    job = create_text_job(text=text, settings=settings)
    assert pump(job.id, 30, settings=settings).stop == "done"  # not paused by the breaker
    assert reload(job.id).status == "completed"
    assert assert_consistent(job.id) == {"sent": 3, "failed": 6}
    delivered = {d["chat_id"] for d in simulator.deliveries("sendMessage") if d["chat_id"] >= 7200}
    assert delivered == {u.id for u in short}  # the long names were never sent to Telegram
    failed = db.session.execute(select(I.user_id, I.error).where(I.job_id == job.id, I.status == "failed")).all()
    db.session.commit()
    assert sorted(failed) == [(u.id, "message is too long with this recipient's name: 4155 of 4096 characters")
                              for u in long]
