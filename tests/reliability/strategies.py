"""Hypothesis strategies for bad input: JSON junk, realistic updates with random fields, hostile text."""
from __future__ import annotations

import itertools
import json
import random

from hypothesis import strategies as st

from app.bot.callback_data import SPEC
from app.models.broadcast import AUDIENCES
from app.settings_schema import DEFS
from app.simulator.updates import (
    callback_update,
    chat_member_update,
    message_update,
    my_chat_member_update,
)
from tests.conftest import ADMIN_ID, MAIN_CHANNEL_ID, PUMP_TOKEN, TOKEN, WEBHOOK_SECRET

# Anything UTF-8 can carry (lone surrogates cannot be sent over the wire at all).
CHARS = st.characters(blacklist_categories=("Cs",))
RTL = "\u200f\u202b\u202e\u0627\u0644\u0633\u0644\u0627\u0645 \u05e9\u05dc\u05d5\u05dd \u0645\u0631\u062d\u0628\u0627"
HTMLISH = ["<b>", "</b>", "<i>x</i>", "<a href=\"javascript:alert(1)\">x</a>", "<script>", "&amp;", "&",
           "<", ">", "<tg-spoiler>", "<pre><code class=\"language-python\">", "</code>", "<br/>", "{key}",
           "{0}", "%s", "%(x)s", "\\", "\"", "'", "\x00", "\r\n", "|", " | ", "https://", "http://x.y/|",
           "t.me/x", "/start", "/broadcast", "@update_pack_sim_bot"]
_fresh_ids = itertools.count(random.randrange(10**9, 10**12))
NON_ADMIN_IDS = st.integers(min_value=1, max_value=2**40).filter(lambda i: i != ADMIN_ID)
JSON_LEAVES = st.one_of(st.none(), st.booleans(), st.integers(min_value=-2**70, max_value=2**70),
                        st.floats(allow_nan=False), st.text(CHARS, max_size=40))
JSON = st.recursive(JSON_LEAVES, lambda inner: st.one_of(
    st.lists(inner, max_size=5), st.dictionaries(st.text(CHARS, max_size=12), inner, max_size=5)), max_leaves=25)


@st.composite
def hostile_text(draw, max_size: int = 300) -> str:
    """Random unicode mixed with RTL runs, HTML-ish fragments and format placeholders; sometimes very long."""
    parts = draw(st.lists(st.one_of(st.text(CHARS, max_size=40), st.sampled_from(HTMLISH), st.just(RTL)),
                          max_size=12))
    text = "".join(parts)[:max_size]
    if draw(st.integers(0, 9)) == 0:
        text = text + draw(st.sampled_from(["x", "۱", "😀", "<b>", "\u202e"])) * draw(st.integers(3000, 12000))
    return text


def callback_data(job_ids: list[int]) -> st.SearchStrategy[str]:
    """Callback data: junk, well-formed prefixes with random arguments, and exact valid data."""
    prefixes = st.sampled_from(sorted(SPEC))
    args = st.one_of(st.sampled_from(job_ids or [1]).map(str), st.integers(-5, 2**70).map(str),
                     st.sampled_from(AUDIENCES), st.sampled_from(sorted(DEFS)), st.text(CHARS, max_size=20))
    return st.one_of(
        st.text(CHARS, max_size=80),
        st.builds(lambda p, a: f"{p}:{a}", prefixes, args),
        prefixes,
        st.builds(lambda p, a, junk: f"{p}:{a}{junk}", prefixes, args, st.text(CHARS, min_size=1, max_size=5)),
    )


@st.composite
def realistic_update(draw, user_ids=NON_ADMIN_IDS, job_ids: tuple[int, ...] = ()) -> dict:
    """A well-shaped Update of a random kind, then a few fields replaced, removed or added at random."""
    user_id = draw(user_ids)
    kind = draw(st.sampled_from(["message", "callback", "my_chat_member", "chat_member", "edited", "unknown"]))
    if kind in ("message", "edited"):
        update = message_update(user_id, draw(st.one_of(st.none(), hostile_text(), st.sampled_from(
            ["/start", "/broadcast", "/settings", "/cancel", "/start payload"]))),
            first_name=draw(st.text(CHARS, min_size=1, max_size=30)), language_code=draw(st.one_of(
                st.none(), st.sampled_from(["fa", "en", "ar", "xx"]))))
        if kind == "edited":
            update["edited_message"] = update.pop("message")
    elif kind == "callback":
        update = callback_update(user_id, draw(callback_data(list(job_ids))), user_id, draw(st.integers(1, 10**6)))
    elif kind == "my_chat_member":
        update = my_chat_member_update(user_id, draw(st.sampled_from(["member", "kicked"])),
                                       draw(st.sampled_from(["member", "kicked", "left", "administrator"])))
    elif kind == "chat_member":
        update = chat_member_update(MAIN_CHANNEL_ID, user_id, draw(st.sampled_from(["left", "member", "kicked"])),
                                    draw(st.sampled_from(["left", "member", "kicked", "restricted", "creator"])))
    else:
        update = {"update_id": 1, draw(st.text(CHARS, min_size=1, max_size=15)): draw(JSON)}
    # Mostly fresh ids (a repeated id is only a "duplicate"), sometimes any id at all.
    update["update_id"] = draw(st.one_of(st.integers(0, 2**62), st.just(next(_fresh_ids)), st.just(next(_fresh_ids))))
    for _ in range(draw(st.integers(0, 4))):
        mutate(update, draw)
    return update


def mutate(update: dict, draw) -> None:
    """Replace, delete or add one field somewhere inside update (never the update_id)."""
    node = update
    while True:
        keys = [k for k in node if not (node is update and k == "update_id")]
        if not keys:
            break
        key = draw(st.sampled_from(keys))
        if isinstance(node[key], dict) and draw(st.booleans()):
            node = node[key]
            continue
        action = draw(st.sampled_from(["replace", "delete", "add"]))
        if action == "replace":
            node[key] = draw(JSON)
        elif action == "delete":
            del node[key]
        else:
            node[draw(st.text(CHARS, min_size=1, max_size=12))] = draw(JSON)
        return


def webhook_body() -> st.SearchStrategy[bytes]:
    """Raw bodies: bytes, text, any JSON, realistic updates, and huge ones."""
    return st.one_of(
        st.binary(max_size=300),
        st.text(CHARS, max_size=300).map(lambda s: s.encode("utf-8")),
        JSON.map(lambda v: json.dumps(v, ensure_ascii=False).encode("utf-8")),
        realistic_update().map(lambda u: json.dumps(u, ensure_ascii=False).encode("utf-8")),
        st.integers(1_000_001, 1_300_000).map(lambda n: b'{"update_id": 1, "pad": "' + b"x" * n + b'"}'),
        st.sampled_from([b"", b"{}", b"[]", b"null", b"{" * 5000, b'{"update_id": 1e999}', b'{"update_id": -0}']),
    )


SECRET_HEADER_VALUES = st.one_of(
    st.none(), st.just(WEBHOOK_SECRET), st.just(PUMP_TOKEN), st.just(TOKEN), st.just(""),
    st.just(WEBHOOK_SECRET + "x"), st.just(WEBHOOK_SECRET[:-1]), st.just(" " + WEBHOOK_SECRET),
    st.text(st.characters(min_codepoint=32, max_codepoint=255), max_size=60),
)
