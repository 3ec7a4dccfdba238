"""POST /_sim/updates: a wrong kind or field is a clear 400 listing the accepted ones; the README lists them."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import requests

from app.simulator.updates import BUILDERS, fields

README = Path(__file__).resolve().parents[2] / "app" / "simulator" / "README.md"


def post(sim, payload: dict) -> requests.Response:
    return requests.post(f"{sim.base_url}/_sim/updates", json=payload, timeout=5)


@pytest.mark.parametrize("payload, fragments", [
    ({"kind": "message", "user": 1001, "txt": "/start"},
     ("update kind 'message': unknown field(s) txt, user; missing field(s) user_id; required: user_id; "
      "optional: text, first_name,")),
    ({"kind": "callback_query", "user_id": 1001, "data": "w.aud:all:x"},
     ("missing field(s) message_chat_id, message_id", "required: user_id, data, message_chat_id, message_id")),
    ({"kind": "button", "user_id": 1001},
     ("unknown update kind 'button'; use one of: message, callback_query, my_chat_member, chat_member",)),
])
def test_a_wrong_kind_or_field_is_a_400_listing_the_accepted_ones(sim, payload, fragments):
    response = post(sim, payload)
    assert response.status_code == 400
    error = response.json()["error"]
    assert "TypeError" not in error and "ValueError" not in error
    for fragment in fragments:
        assert fragment in error, (fragment, error)
    assert sim.stats()["calls_total"] == 0


def test_the_answer_keeps_persian_readable(sim):
    response = post(sim, {"kind": "message", "user_id": 1001, "متن": "سلام"})
    assert response.status_code == 400
    assert "unknown field(s) متن".encode() in response.content and b"\\u" not in response.content


def documented_kinds() -> dict[str, tuple[list[str], list[str]]]:
    """Parse the README's update-kind table: | `kind` | `required`, ... | `optional`, ... |."""
    text = README.read_text(encoding="utf-8").split("## Update kinds", 1)[1].split("\n## ", 1)[0]
    kinds = {}
    for row in re.findall(r"^\| `(\w+)` \|([^|]*)\|([^|]*)\|", text, re.M):
        kind, required, optional = row
        kinds[kind] = (re.findall(r"`(\w+)`", required), re.findall(r"`(\w+)`", optional))
    return kinds


def test_the_simulator_readme_lists_every_kind_with_its_fields_in_order():
    assert documented_kinds() == {kind: fields(kind) for kind in BUILDERS}
