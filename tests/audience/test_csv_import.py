"""`users import FILE`: dry run, BOM and Persian headers, bad files refused changing nothing, all or nothing."""
import codecs

import pytest

from app.repository import import_rows
from app.services.audience import csv_import
from tests.audience.helpers import all_fields, all_tags, ok
from tests.factories import create_users

GOOD = ("\ufeffشناسه,برچسب‌ها,plan,tag:Gold,City\n"
        "1,a;B،ج,gold,1,تهران 🌆\n"
        "2,,silver,0,\n"
        "3,,,,\n"
        "99,x,,,\n")


def write(tmp_path, text: str | bytes, name="users.csv"):
    path = tmp_path / name
    path.write_bytes(text if isinstance(text, bytes) else text.encode("utf-8"))
    return str(path)


def test_a_dry_run_reports_and_changes_nothing_then_the_import_applies_it_all(app, runner, tmp_path):
    create_users([1, 2, 3])
    path = write(tmp_path, GOOD)
    ok(runner, "users", "tag", "add", "gold", "--ids", "2")
    out = ok(runner, "users", "import", path, "--dry-run")
    assert out.splitlines() == ["dry run: nothing changed", "rows: 4, matched users: 3, changes: 8",
                                "unknown ids (no such user, skipped): 1 (first: 99)"]
    assert all_tags() == {(2, "gold")} and all_fields() == set()
    out = ok(runner, "users", "import", path)
    assert "applied: 4 tags added, 1 removed, field values set" in out
    assert all_tags() == {(1, "a"), (1, "b"), (1, "ج"), (1, "gold")}
    assert all_fields() == {(1, "plan", "gold"), (1, "city", "تهران 🌆"), (2, "plan", "silver")}
    # Idempotent: the same file again changes nothing more.
    assert "applied: 0 tags added, 0 removed" in ok(runner, "users", "import", path)
    assert all_tags() == {(1, "a"), (1, "b"), (1, "ج"), (1, "gold")}


def test_a_users_later_line_wins_for_a_field(app, runner, tmp_path):
    create_users([1])
    ok(runner, "users", "import", write(tmp_path, "id,plan\n1,gold\n1,silver\n"))
    assert all_fields() == {(1, "plan", "silver")}


def test_a_users_later_line_wins_for_a_tag_too(app, runner, tmp_path):
    create_users([2005, 2006])
    out = ok(runner, "users", "import", write(tmp_path, "id,tag:vip,tags\n2005,1,\n2006,0,\n2005,0,\n2006,,vip\n"))
    assert "applied: 1 tags added, 0 removed" in out
    assert all_tags() == {(2006, "vip")}  # 2005: 1 then 0 is removed; 2006: 0 then added by `tags`


def test_a_line_that_changes_nothing_keeps_the_tag_its_date_and_origin_and_enrols_no_chain(app, runner, tmp_path):
    from datetime import timedelta

    from sqlalchemy import select, update

    from app.clock import utcnow
    from app.extensions import db
    from app.models.user_data import UserTag
    from app.services.chains import due
    from tests.chains.helpers import FAST, make_chain

    create_users([2005])
    ok(runner, "users", "tag", "add", "vip", "--ids", "2005")
    day_ago = utcnow().replace(microsecond=0) - timedelta(days=1)
    db.session.execute(update(UserTag).values(created_at=day_ago))
    db.session.commit()
    make_chain("tag:vip", "0|For VIPs", at=utcnow() - timedelta(hours=1))
    out = ok(runner, "users", "import", write(tmp_path, "id,tag:vip\n2005,0\n2005,1\n"))
    assert "applied: 0 tags added, 0 removed" in out
    db.session.rollback()
    assert db.session.execute(select(UserTag.origin, UserTag.created_at)).all() == [("cli", day_ago)]
    assert due.run_due(FAST, now=utcnow() + timedelta(minutes=1)) == []


def test_invalid_rows_refuse_the_whole_file_naming_the_first_lines(app, runner, tmp_path):
    create_users([1, 2])
    path = write(tmp_path, "id,tags,plan\n1,vip,gold\n2,bad tag,x\nabc,,\n2,ok," + "x" * 256 + "\n")
    result = runner.invoke(args=["users", "import", path])
    assert result.exit_code == 2
    assert "invalid rows: 3: line 3: tag 'bad tag' contains a space" in result.output
    assert ("; line 4: 'abc' is not a user id; line 5: field value 'xxxxxxxxxxxxxxxxxxxx'… is 256 characters; "
            "at most 255") in result.output
    assert result.stderr.strip().endswith("3 invalid rows; nothing was imported")
    assert all_tags() == set() and all_fields() == set()


@pytest.mark.parametrize("content, words", [
    ("id,tags\n1,a\n".encode("utf-16"), "is UTF-16, not UTF-8"),
    ("id,tags\n1,برچسب\n".encode("cp1256"), "line 2 is not UTF-8"),
    (b"name,tags\n1,a\n", "no user id column"),
    (b"id,plan,Plan\n1,a,b\n", "column 3 'Plan' repeats column 2"),
    (b"id,tags,tags\n1,a,b\n", "repeats column 2"),
    (b"id,first name\n1,a\n", "column 2 'first name'"),
    (b"id,tags\n1," + b"a" * (70 * 1024) + b"\n", "line 2 is longer than 64 KiB"),
    (b"", "the file is empty"),
    (b'id,tags\n1,"a\n', "line"),
])
def test_a_bad_file_is_refused_in_one_line_and_changes_nothing(app, runner, tmp_path, content, words):
    create_users([1])
    result = runner.invoke(args=["users", "import", write(tmp_path, content)])
    assert result.exit_code == 2, result.output
    assert words in result.stderr and len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert result.stderr.strip().endswith("nothing was imported")
    assert all_tags() == set() and all_fields() == set()


def test_a_failure_while_applying_leaves_users_as_they_were(app, tmp_path, monkeypatch):
    create_users([1, 2])
    path = write(tmp_path, "id,tags,plan\n1,vip,gold\n2,vip,silver\n")

    def broken(*args):
        raise RuntimeError("the database went away")
    monkeypatch.setattr(import_rows, "set_fields", broken)  # after tags were removed and added
    with pytest.raises(RuntimeError):
        csv_import.run_import(path)
    assert all_tags() == set() and all_fields() == set()
    assert _staged() == 0


def test_a_failure_while_reading_leaves_users_as_they_were_and_no_staging(app, tmp_path, monkeypatch):
    create_users(range(1, 3001))
    body = "".join(f"{i},vip\n" for i in range(1, 3001))
    path = write(tmp_path, "id,tags\n" + body + "3001,vip\n" + "x" * 10)  # an invalid last row, past 3 staged chunks
    with pytest.raises(csv_import.ImportRefused):
        csv_import.run_import(path)
    assert all_tags() == set() and _staged() == 0


def test_a_killed_imports_staged_rows_are_swept_by_the_next(app, tmp_path, monkeypatch):
    create_users([1])
    monkeypatch.setattr(csv_import, "_apply", lambda *a: (_ for _ in ()).throw(SystemExit(9)))
    monkeypatch.setattr(csv_import, "_drop", lambda import_id: None)  # killed: no cleanup ran
    with pytest.raises(SystemExit):
        csv_import.run_import(write(tmp_path, "id,tags\n1,vip\n"))
    assert _staged() == 1 and all_tags() == set()
    monkeypatch.undo()
    monkeypatch.setattr(csv_import, "STALE_AFTER", csv_import.timedelta(seconds=-1))
    csv_import.run_import(write(tmp_path, "id,tags\n1,ok\n", "other.csv"))
    assert _staged() == 0 and all_tags() == {(1, "ok")}


@pytest.mark.slow
def test_a_200k_row_file_is_read_in_constant_memory(app, tmp_path):
    import tracemalloc

    create_users(range(1, 201), first_name="u")
    path = tmp_path / "big.csv"
    with open(path, "w", encoding="utf-8") as out:
        out.write(codecs.BOM_UTF8.decode("utf-8") + "شناسه,tags,note\n")
        for i in range(200_000):
            uid = i + 1 if i < 200 else 10_000_000 + i  # 200 known users, the rest unknown
            out.write(f"{uid},vip;مشتری,{'یادداشت' * 14}\n")
    assert path.stat().st_size > 25_000_000
    tracemalloc.start()
    report = csv_import.run_import(path)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert (report.rows, report.matched, report.unknown) == (200_000, 200, 199_800)
    assert len(all_tags()) == 400 and len(all_fields()) == 200
    assert peak < 6_000_000, peak  # the file is 25+ MB


def _staged() -> int:
    from sqlalchemy import func, select

    from app.extensions import db
    from app.models.user_data import ImportRow

    db.session.rollback()
    return db.session.execute(select(func.count()).select_from(ImportRow)).scalar()
