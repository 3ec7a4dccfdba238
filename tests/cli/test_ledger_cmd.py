"""`flask broadcast retry | export | purge` on the real database, against the simulator."""
import codecs
import csv
import io
from datetime import timedelta

from sqlalchemy import select, update

from app.clock import utcnow
from app.extensions import db
from app.models import BroadcastJob, BroadcastJobItem
from app.services import audit
from app.services.broadcast.reporting import export
from app.services.broadcast.sending.drain import pump
from tests.broadcast.helpers import BASE_ID, assert_consistent, create_text_job, engine_settings, reload
from tests.cli.proc import run_flask
from tests.factories import create_user

I = BroadcastJobItem  # noqa: E741
NAMES = ["علی", None, "sara_k", "رضا", "blocked_one", "lost"]


def users_with_names() -> list[int]:
    """Create six recipients, most with a username (Persian ones too)."""
    ids = [BASE_ID + i for i in range(len(NAMES))]
    for user_id, name in zip(ids, NAMES, strict=True):
        create_user(user_id, username=name)
    return ids


def failing_job(simulator) -> tuple[int, list[int]]:
    """Run a job where users[1] is refused, users[4] blocked the bot and users[5]'s outcome is lost."""
    simulator.configure(per_chat_limits=False)
    users = users_with_names()
    simulator.state.set_chats("refuse", [users[1]])
    simulator.state.set_chats("block", [users[4]])
    simulator.state.set_chats("lose", [users[5]])
    job = create_text_job(settings=engine_settings())
    assert pump(job.id, 20, settings=engine_settings()).stop == "done"
    assert assert_consistent(job.id) == {"sent": 3, "failed": 1, "skipped": 1, "unknown": 1}
    simulator.state.set_chats("restore", [users[1], users[5]])
    return job.id, users


def recipients(simulator) -> list[int]:
    """Return the chats of every broadcast copy, in order."""
    return [d["chat_id"] for d in simulator.deliveries("sendMessage") if d["chat_id"] >= BASE_ID]


def test_retry_prints_the_new_id_and_reaches_exactly_the_users_with_no_copy(runner, simulator):
    job_id, users = failing_job(simulator)
    before = recipients(simulator)
    result = runner.invoke(args=["broadcast", "retry", str(job_id)])
    assert result.exit_code == 0, result.output
    new_id = int(result.stdout)
    assert result.stdout == f"{new_id}\n" and reload(new_id).retry_of == job_id
    assert pump(new_id, 20, settings=engine_settings()).stop == "done"
    assert recipients(simulator)[len(before):] == [users[1]]  # not the blocked user, not the unknown one

    again = runner.invoke(args=["broadcast", "retry", str(job_id)])
    assert again.exit_code == 2 and "nobody left" in again.stderr
    with_unknown = runner.invoke(args=["broadcast", "retry", str(job_id), "--include-unknown"])
    assert with_unknown.exit_code == 0, with_unknown.output
    assert with_unknown.stdout.strip().isdigit() and "second copy" in with_unknown.stderr
    assert pump(int(with_unknown.stdout), 20, settings=engine_settings()).stop == "done"
    assert recipients(simulator)[len(before) + 1:] == [users[5]]
    assert [(e["actor"], e["action"]) for e in audit.entries(job_id)][-2:] == [("cli", "retried")] * 2


def test_retry_refuses_a_running_or_missing_job(runner, simulator):
    users_with_names()
    job = create_text_job()
    result = runner.invoke(args=["broadcast", "retry", str(job.id)])
    assert result.exit_code == 1 and f"job {job.id} is running" in result.stderr
    missing = runner.invoke(args=["broadcast", "retry", "424242"])
    assert missing.exit_code == 1 and "no broadcast job 424242" in missing.stderr


def expected_csv(job_id: int) -> bytes:
    """Build the ledger CSV independently: one line per item in id order, UTF-8 with a BOM."""
    rows = db.session.execute(select(I.user_id, I.status, I.error, I.sent_at, I.message_id)
                              .where(I.job_id == job_id).order_by(I.id)).all()
    db.session.commit()
    lines = ["user_id,username,status,error,time,message_id,clicked_at,source"]
    for user_id, status, error, sent_at, message_id in rows:
        name = NAMES[user_id - BASE_ID] or ""
        at = sent_at.strftime("%Y-%m-%d %H:%M:%S") if sent_at else ""
        lines.append(f"{user_id},{name},{status},{error or ''},{at},{message_id or ''},,")  # nobody clicked, no source
    return codecs.BOM_UTF8 + "\r\n".join(lines + [""]).encode()


def test_export_streams_the_ledger_to_stdout_and_to_a_file(runner, simulator, tmp_path, monkeypatch):
    job_id, users = failing_job(simulator)
    monkeypatch.setattr(export, "PAGE_ROWS", 2)  # three pages of two rows, read by keyset
    expected = expected_csv(job_id)
    assert b",sent,," in expected and "علی".encode() in expected and b"message refused" in expected
    result = runner.invoke(args=["broadcast", "export", str(job_id), "--csv", "-"])
    assert result.exit_code == 0, result.output
    assert result.stdout_bytes == expected
    target = tmp_path / "ledger.csv"
    result = runner.invoke(args=["broadcast", "export", str(job_id), "--csv", str(target)])
    assert result.stdout == f"wrote 6 rows of job {job_id} to {target}\n"
    assert target.read_bytes() == expected
    assert [e["detail"] for e in audit.entries(job_id) if e["action"] == "exported"] == [
        "6 rows to standard output", f"6 rows to {target}"]
    missing = runner.invoke(args=["broadcast", "export", "424242", "--csv", str(tmp_path / "none.csv")])
    assert missing.exit_code == 1 and not (tmp_path / "none.csv").exists()


# A username or an error as stored -> the cell a spreadsheet must get (OWASP: a ' before a formula start).
TRICKY_NAMES = {"=HYPERLINK(\"http://x\",\"y\")": "'=HYPERLINK(\"http://x\",\"y\")", "+98912": "'+98912",
                "-2+3": "'-2+3", "@SUM(A1)": "'@SUM(A1)", "\tcmd": "'\tcmd", "\rcmd": "'\rcmd",
                'a,"b"\nc': 'a,"b"\nc', "x=1": "x=1"}
TRICKY_ERRORS = {"=cmd|' /C calc'!A0": "'=cmd|' /C calc'!A0", 'Bad, "quoted"\nerror': 'Bad, "quoted"\nerror'}


def tricky_job(simulator) -> int:
    """Run a job to users whose names start like formulas or hold commas, quotes and newlines; two errors too."""
    simulator.configure(per_chat_limits=False)
    ids = [BASE_ID + i for i in range(len(TRICKY_NAMES))]
    for user_id, name in zip(ids, TRICKY_NAMES, strict=True):
        create_user(user_id, username=name)
    job = create_text_job(settings=engine_settings())
    assert pump(job.id, 20, settings=engine_settings()).stop == "done"
    for user_id, error in zip(ids, TRICKY_ERRORS, strict=False):
        db.session.execute(update(I).where(I.job_id == job.id, I.user_id == user_id).values(error=error))
    db.session.commit()
    return job.id


def expected_rows(job_id: int) -> list[list[str]]:
    """Return the ledger's fields as a spreadsheet must read them: ids as numbers, text cells neutralised."""
    rows = db.session.execute(select(I.user_id, I.status, I.error, I.sent_at, I.message_id)
                              .where(I.job_id == job_id).order_by(I.id)).all()
    db.session.commit()
    names = list(TRICKY_NAMES.values())
    return [["user_id", "username", "status", "error", "time", "message_id", "clicked_at", "source"]] + [
        [str(user_id), names[user_id - BASE_ID], status, TRICKY_ERRORS.get(error, error or ""),
         sent_at.strftime("%Y-%m-%d %H:%M:%S"), str(message_id), "", ""]
        for user_id, status, error, sent_at, message_id in rows]


def read_csv(data: bytes) -> list[list[str]]:
    """Parse an exported file the way a CSV reader does."""
    return list(csv.reader(io.StringIO(data.decode("utf-8-sig"), newline="")))


def test_export_neutralises_formula_cells_and_quotes_commas_and_newlines(runner, simulator, tmp_path):
    job_id = tricky_job(simulator)
    expected = expected_rows(job_id)
    assert sum(row[3].startswith("'=") for row in expected) == 1 and all(row[0].isdigit() for row in expected[1:])
    result = runner.invoke(args=["broadcast", "export", str(job_id), "--csv", "-"])
    assert result.exit_code == 0, result.output
    assert read_csv(result.stdout_bytes) == expected
    target = tmp_path / "ledger.csv"
    assert runner.invoke(args=["broadcast", "export", str(job_id), "--csv", str(target)]).exit_code == 0
    assert read_csv(target.read_bytes()) == expected


def purged_job(runner, simulator) -> int:
    """Run a job, end it nine days ago and purge its items with the CLI: its counters stay."""
    job_id, _ = failing_job(simulator)
    db.session.execute(update(BroadcastJob).where(BroadcastJob.id == job_id).values(
        finished_at=utcnow() - timedelta(days=9)))
    db.session.execute(update(I).where(I.job_id == job_id).values(sent_at=utcnow() - timedelta(days=9)))
    db.session.commit()
    result = runner.invoke(args=["broadcast", "purge", "--older-than", "0"])
    assert result.stdout.splitlines()[1:] == [f"  job {job_id}: 6 items"], result.output
    return job_id


def test_export_of_a_purged_job_says_its_ledger_was_purged_and_writes_nothing(runner, simulator, tmp_path):
    job_id = purged_job(runner, simulator)
    target = tmp_path / "ledger.csv"
    for where in (str(target), "-"):
        result = runner.invoke(args=["broadcast", "export", str(job_id), "--csv", where])
        assert result.exit_code == 2 and result.stdout_bytes == b""
        assert result.stderr == (f"Error: the per-recipient ledger of job {job_id} was purged; nothing to export "
                                 f"(its counters remain: broadcast status {job_id})\n")
    assert not target.exists()
    assert "exported" not in [e["action"] for e in audit.entries(job_id)]
    assert (reload(job_id).total_count, reload(job_id).sent_count) == (6, 3)


def test_purge_says_what_it_removes_and_keeps_recent_items(runner, simulator):
    users_with_names()
    old, recent = create_text_job(), create_text_job()
    now = utcnow()
    for job, finished in ((old, now - timedelta(days=9)), (recent, now - timedelta(hours=30))):
        db.session.execute(update(BroadcastJob).where(BroadcastJob.id == job.id).values(
            status="completed", active_slot=None, sent_count=6, finished_at=finished))
        db.session.execute(update(I).where(I.job_id == job.id).values(status="sent", sent_at=finished))
    db.session.commit()
    result = runner.invoke(args=["broadcast", "purge", "--older-than", "0"])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0].startswith("removed 6 items of 1 jobs finished before ") and "48 hours" in lines[0]
    assert lines[1:] == [f"  job {old.id}: 6 items"]
    kept = db.session.execute(select(I.job_id).where(I.job_id.in_([old.id, recent.id]))).scalars().all()
    assert kept == [recent.id] * 6
    assert (reload(old.id).sent_count, reload(old.id).total_count) == (6, 6)


def test_export_to_stdout_of_a_real_process_is_the_csv_alone(runner, simulator, database_url):
    job_id, _ = failing_job(simulator)
    result = run_flask(database_url, simulator, "broadcast", "export", str(job_id), "--csv", "-")
    assert result.returncode == 0, result.stderr
    assert result.stdout.encode() == expected_csv(job_id).replace(b"\r\n", b"\n")  # text mode reads \r\n as \n
