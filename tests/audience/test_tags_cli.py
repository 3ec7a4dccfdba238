"""`users tag add|remove`, `users tags`, `users show`: what a tag is, idempotence, unknown ids never created."""
import json

import pytest

from app.models import names
from app.services.audience.tags import add_tag
from tests.audience.helpers import all_tags, ok, refused, tags_of
from tests.factories import create_users, get_user


def test_tags_are_added_once_reported_honestly_and_unknown_ids_are_never_created(app, runner):
    create_users([11, 12, 13])
    out = ok(runner, "users", "tag", "add", "VIP", "--ids", "11,12,99,98")
    assert out.strip() == ("tag 'vip': 2 added, 0 already had it; 2 unknown ids (no such user, nothing created; "
                           "first: 99, 98)")
    assert get_user(99) is None and get_user(98) is None
    # `vip` is `VIP`: the second run adds one and counts two as already tagged.
    assert ok(runner, "users", "tag", "add", "vip", "--ids", "11, 12,13").strip() == \
        "tag 'vip': 1 added, 2 already had it"
    assert all_tags() == {(11, "vip"), (12, "vip"), (13, "vip")}
    assert ok(runner, "users", "tag", "remove", "Vip", "--ids", "12,99").strip() == \
        "tag 'vip': 1 removed, 0 did not have it; 1 unknown id (no such user, nothing created; first: 99)"
    assert json.loads(ok(runner, "users", "tags", "--json")) == [{"tag": "vip", "users": 2}]


def test_a_csv_of_ids_with_a_persian_header_and_a_bom_tags_in_chunks(app, runner, tmp_path):
    create_users(range(1, 2501))
    path = tmp_path / "ids.csv"
    path.write_bytes("\ufeffنام,شناسه\n".encode() + "".join(f"x,{i}\n" for i in range(1, 2601)).encode())
    out = ok(runner, "users", "tag", "add", "مشتری", "--csv", str(path))
    assert out.startswith("tag 'مشتری': 2500 added, 0 already had it; 100 unknown ids")
    assert len(all_tags()) == 2500


@pytest.mark.parametrize("args, words", [
    (["users", "tag", "add", "a b", "--ids", "1"], "contains a space"),
    (["users", "tag", "add", "a,b", "--ids", "1"], "contains a comma"),
    (["users", "tag", "add", "x" * 65, "--ids", "1"], "at most 64"),
    (["users", "tag", "add", "vip", "--ids", "1,-2"], "'-2' is not a user id"),
    (["users", "tag", "add", "vip"], "exactly one of --ids, --csv or --where"),
    (["users", "tag", "add", "vip", "--ids", "1", "--where", "x"], "exactly one of --ids, --csv or --where"),
    (["users", "tag", "add", "vip", "--where", "nobody_saved"], "no segment 'nobody_saved'"),
])
def test_bad_input_is_refused_in_one_line_and_changes_nothing(app, runner, args, words):
    create_users([1])
    assert words in refused(runner, *args)
    assert all_tags() == set()


def test_an_id_listed_twice_in_a_csv_is_counted_once_however_far_apart(app, runner, tmp_path):
    create_users(range(1, 1201))
    path = tmp_path / "ids.csv"
    ids = [*range(1, 1201), 5, 9_999, 1_200, 9_999]  # 5 and 1,200 again after the first chunk; 9,999 no user
    path.write_text("".join(f"{i}\n" for i in ids), encoding="utf-8")
    out = ok(runner, "users", "tag", "add", "vip", "--csv", str(path))
    assert out.strip() == ("tag 'vip': 1200 added, 0 already had it; 1 unknown id (no such user, nothing created; "
                           "first: 9999)")
    out = ok(runner, "users", "tag", "remove", "vip", "--csv", str(path))
    assert out.startswith("tag 'vip': 1200 removed, 0 did not have it; 1 unknown id")
    out = ok(runner, "users", "field", "set", "plan", "gold", "--csv", str(path))
    assert out.startswith("field plan='gold': 1200 set, 0 already had it; 1 unknown id")


def test_a_bad_line_late_in_a_csv_refuses_the_whole_file_before_any_write(app, runner, tmp_path):
    create_users(range(1, 1500))
    path = tmp_path / "ids.csv"
    path.write_text("".join(f"{i}\n" for i in range(1, 1500)) + "12a\n", encoding="utf-8")
    line = refused(runner, "users", "tag", "add", "vip", "--csv", str(path))
    assert line.endswith("line 1500: '12a' is not a user id")
    assert all_tags() == set()


def test_a_tag_is_one_rule_for_every_script():
    assert names.tag(" VIP ") == "vip"
    assert names.tag("مشتري_ويژه") == "مشتری_ویژه"  # Arabic yeh and kaf are the Persian ones
    assert names.tag("نیم\u200cفاصله") == "نیم\u200cفاصله"
    assert names.tag("e\u0301t\u00e9") == "\u00e9t\u00e9"  # NFC
    for bad in ("", "a b", "a,b", "tag!", "_-", "emoji🎉"):
        with pytest.raises(names.BadName):
            names.tag(bad)


def test_the_seam_takes_any_iterable_of_ids(app):
    create_users([5, 6])
    result = add_tag("gen", (uid for uid in [5, 6, 7]), "cli")
    assert (result.changed, result.unchanged, result.unknown) == (2, 0, 1)
    assert tags_of(5) == {"gen"}


def test_show_lists_a_users_tags_and_fields(app, runner):
    create_users([21], first_name="سارا")
    ok(runner, "users", "tag", "add", "vip", "--ids", "21")
    ok(runner, "users", "field", "set", "city", " تهران ", "--ids", "21")
    info = json.loads(ok(runner, "users", "show", "21", "--json"))
    assert [t["tag"] for t in info["tags"]] == ["vip"] and info["tags"][0]["origin"] == "cli"
    assert [(f["name"], f["value"]) for f in info["fields"]] == [("city", "تهران")]
    assert "tags: vip" in ok(runner, "users", "show", "21")
    assert runner.invoke(args=["users", "show", "22"]).exit_code == 1


def test_where_tags_exactly_the_users_a_saved_segment_matches_now(app, runner):
    create_users([21, 22, 23, 24])
    ok(runner, "users", "tag", "add", "vip", "--ids", "21,23")
    ok(runner, "segments", "save", "vips", "--tag-any", "vip")
    out = ok(runner, "users", "tag", "add", "gold", "--where", "vips")
    assert out.strip() == "tag 'gold': 2 added, 0 already had it"
    assert {(uid, tag) for uid, tag in all_tags() if tag == "gold"} == {(21, "gold"), (23, "gold")}
    # Fields too, and removal: the same three ways to say which users.
    ok(runner, "users", "field", "set", "plan", "gold", "--where", "vips")
    out = ok(runner, "users", "tag", "remove", "vip", "--where", "vips")
    assert out.strip() == "tag 'vip': 2 removed, 0 did not have it"
    assert not tags_of(21) & {"vip"} and "gold" in tags_of(21) and tags_of(22) == set()
