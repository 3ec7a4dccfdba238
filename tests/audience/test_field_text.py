"""Custom fields in the personal text: each copy gets its recipient's escaped value, read once per block."""
import pytest

from app.services.audience import fields
from app.services.broadcast.content import field_text, text_rules
from app.services.broadcast.sending import claims
from app.services.broadcast.sending.drain import pump
from tests.broadcast.helpers import assert_consistent, create_text_job, create_users, engine_settings
from tests.broadcast.test_db_cost import Statements, assert_cost_per_block

TEXT = "<b>{first_name}</b>، طرح شما: {field:plan|مشتری} — {field:city}"


def test_each_copy_gets_its_own_escaped_value_or_the_fallback(app, simulator):
    ids = create_users(4)
    fields.set_field("plan", "gold <VIP> & co", ids[:2])
    fields.set_field("city", "تهران 🌆", [ids[0]])
    job = create_text_job(text=TEXT).id
    while pump(job, 20).stop != "done":
        pass
    assert assert_consistent(job, simulator) == {"sent": 4}
    texts = {d["chat_id"]: d["text"] for d in simulator.deliveries("sendMessage") if d["chat_id"] in ids}
    # Escaped: Telegram shows the value's < > & as text, never as markup.
    assert texts[ids[0]] == f"<b>کاربر {ids[0]} 🎉</b>، طرح شما: gold &lt;VIP&gt; &amp; co — تهران 🌆"
    assert texts[ids[1]] == f"<b>کاربر {ids[1]} 🎉</b>، طرح شما: gold &lt;VIP&gt; &amp; co — "
    assert texts[ids[2]] == f"<b>کاربر {ids[2]} 🎉</b>، طرح شما: مشتری — "


@pytest.mark.serial  # statements per block of sends: see SERIAL_FILES in tests/conftest.py
def test_fields_are_read_once_per_block_of_recipients_not_once_per_copy(app, simulator, monkeypatch):
    users = 120
    ids = create_users(users)
    fields.set_field("plan", "gold", ids)
    settings = engine_settings(broadcast_rate_per_second=28)
    job = create_text_job(text="طرح: {field:plan}", settings=settings).id
    reads = []  # each read of pending items that found some (the cursor rereads after a send comes back)
    real = claims.items.next_pending
    monkeypatch.setattr(claims.items, "next_pending", lambda *a: (lambda rows: reads.append(len(rows)) or rows)(
        real(*a)))
    with Statements() as counted:
        while pump(job, 20, settings=settings).stop != "done":
            pass
    assert assert_consistent(job, simulator) == {"sent": users}
    field_reads = [s for s in counted.sql if "user_fields" in s]
    # One read of the fields for each read of pending items that found some, the first of which took every
    # recipient: how many reads follow it (a send that woke late is read again) is a matter of time.
    assert reads[0] == users and len(field_reads) == len([n for n in reads if n]), (len(field_reads), reads)
    assert_cost_per_block(counted.sql, users)
    assert {d["text"] for d in simulator.deliveries("sendMessage") if d["chat_id"] in ids} == {"طرح: gold"}


def test_a_text_is_measured_with_each_field_at_its_longest_value():
    body = "x" * (text_rules.TEXT_LIMIT - 255)
    assert text_rules.check(body + "{field:plan}")  # 255 more fits exactly
    with pytest.raises(text_rules.TextRefused, match="counted as its longest value"):
        text_rules.check(body + "!{field:plan}")
    with pytest.raises(text_rules.TextRefused, match="is not a field placeholder"):
        text_rules.check("سلام {field:Plan}")


def test_render_and_names_are_pure():
    assert field_text.names_in("{field:a} {field:b|x} {field:a}") == {"a", "b"}
    assert field_text.render("{field:a|بی‌نام}/{field:b}", {"b": "\"q\""}) == "بی‌نام/&quot;q&quot;"
