"""`users field set|unset`, `users fields`: names and values checked, idempotent, Persian and emoji round-trip."""
import json

import pytest

from tests.audience.helpers import all_fields, ok, refused
from tests.factories import create_users


def test_fields_are_set_changed_and_unset_with_honest_counts(app, runner):
    create_users([1, 2, 3])
    assert ok(runner, "users", "field", "set", "Plan", "gold", "--ids", "1,2,77").strip() == (
        "field plan='gold': 2 set, 0 already had it; 1 unknown id (no such user, nothing created; first: 77)")
    assert ok(runner, "users", "field", "set", "plan", "gold", "--ids", "1,2,3").strip() == \
        "field plan='gold': 1 set, 2 already had it"
    assert ok(runner, "users", "field", "set", "plan", "silver 🥈", "--ids", "2").strip() == \
        "field plan='silver 🥈': 1 set, 0 already had it"
    ok(runner, "users", "field", "set", "city", "تهران", "--ids", "1")
    assert all_fields() == {(1, "plan", "gold"), (2, "plan", "silver 🥈"), (3, "plan", "gold"),
                            (1, "city", "تهران")}
    assert ok(runner, "users", "field", "unset", "plan", "--ids", "1,2").strip() == \
        "field plan: 2 removed, 0 did not have it"
    assert json.loads(ok(runner, "users", "fields", "--json")) == [{"name": "city", "users": 1},
                                                                  {"name": "plan", "users": 1}]


@pytest.mark.parametrize("name, value, words", [
    ("plan-type", "x", "is not 1-64 of a-z"),
    ("شهر", "x", "is not 1-64 of a-z"),
    ("plan", "   ", "cannot be empty"),
    ("plan", "x" * 256, "at most 255"),
    ("plan", "a\nb", "contains"),
])
def test_bad_names_and_values_are_refused_in_one_line(app, runner, name, value, words):
    create_users([1])
    assert words in refused(runner, "users", "field", "set", name, value, "--ids", "1")
    assert all_fields() == set()


def test_values_are_stored_byte_exact_and_compared_as_such(app, runner):
    create_users([1, 2])
    ok(runner, "users", "field", "set", "plan", "Gold", "--ids", "1")
    # MySQL's default collation would call these equal: the column is byte-exact, so this is a change.
    assert ok(runner, "users", "field", "set", "plan", "gold", "--ids", "1,2").strip() == \
        "field plan='gold': 2 set, 0 already had it"
    assert all_fields() == {(1, "plan", "gold"), (2, "plan", "gold")}


def test_a_value_typed_composed_or_decomposed_is_one_value(app, runner, tmp_path):
    """é as one code point (NFC) or as e + a combining accent (NFD): one stored value, so no change and one group."""
    composed, decomposed = "caf\u00e9 Sh\u00e9razi", "cafe\u0301 She\u0301razi"
    create_users([1, 2, 3])
    ok(runner, "users", "field", "set", "plan", composed, "--ids", "1")
    assert ok(runner, "users", "field", "set", "plan", decomposed, "--ids", "1,2").strip() == \
        f"field plan={composed!r}: 1 set, 1 already had it"
    path = tmp_path / "users.csv"
    path.write_text(f"id,plan\n3,{decomposed}\n", encoding="utf-8")
    ok(runner, "users", "import", str(path))
    assert all_fields() == {(1, "plan", composed), (2, "plan", composed), (3, "plan", composed)}
