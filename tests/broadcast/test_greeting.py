"""Personal greeting: {first_name} becomes each recipient's HTML-escaped name, or a neutral word."""
import pytest

from app.services.broadcast.greeting import has_greeting, render
from app.services.broadcast.pump import pump
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
