"""`flask broadcast create | list | status | cancel | pause | resume | purge` on the real database."""
import json
from datetime import datetime, timedelta

import pytest
from sqlalchemy import func, select, update

from app.clock import utcnow
from app.extensions import db
from app.models import BroadcastJob, BroadcastJobItem
from app.models.user import CHANNEL_MEMBER
from tests.broadcast.helpers import create_text_job, create_users, reload

STATUS_KEYS = {"id", "status", "total", "sent", "failed", "skipped", "unknown", "pending", "rate", "eta"}


def count(model, *where) -> int:
    """Count rows of model."""
    n = db.session.execute(select(func.count()).select_from(model).where(*where)).scalar_one()
    db.session.commit()
    return n


def create(runner, *args):
    """Run `broadcast create` with args."""
    return runner.invoke(args=["broadcast", "create", *args])


def test_create_text_prints_the_id_alone_and_queues_the_audience(runner):
    create_users(4)
    create_users(2, start=7_000_000_000, blocked=True)
    result = create(runner, "--audience", "all", "--text", "<b>سلام</b> 👋", "--button-text", "کانال",
                    "--button-url", "https://t.me/update_pack", "--created-by", "1001")
    assert result.exit_code == 0, result.output
    job = reload(int(result.stdout))
    assert result.stdout == f"{job.id}\n"
    assert (job.status, job.total_count, job.content_type) == ("running", 4, "text")
    assert (job.text, job.parse_mode, job.created_by) == ("<b>سلام</b> 👋", "HTML", 1001)
    assert (job.button_text, job.button_url) == ("کانال", "https://t.me/update_pack")


def test_create_copy_and_member_audiences(runner):
    create_users(3, status=CHANNEL_MEMBER)
    create_users(2, start=6_000_000_000)
    result = create(runner, "--audience", "members", "--copy-from", "-1001234567890", "--message-id", "42")
    assert result.exit_code == 0, result.output
    job = reload(int(result.stdout))
    assert (job.content_type, job.from_chat_id, job.source_message_id) == ("copy", -1001234567890, 42)
    assert job.total_count == 3
    second = create(runner, "--audience", "non_members", "--text", "join us")
    assert reload(int(second.stdout)).total_count == 2


@pytest.mark.parametrize("args, message", [
    (["--audience", "vip", "--text", "x"], "'vip' is not one of"),
    (["--text", "x"], "give exactly one of --audience or --segment"),
    (["--audience", "all"], "exactly one of --text or --copy-from"),
    (["--audience", "all", "--text", "x", "--copy-from", "1", "--message-id", "2"], "exactly one of"),
    (["--audience", "all", "--text", "   "], "text is empty"),
    (["--audience", "all", "--text", "x" * 4097], "4097 characters"),
    (["--audience", "all", "--text", "<b>bold"], 'end tag corresponding to start tag "b"'),
    (["--audience", "all", "--text", "<b><i>x</b></i>"], 'expected "</i>", found "</b>"'),
    (["--audience", "all", "--text", "<p>x</p>"], 'Unsupported start tag "p"'),
    (["--audience", "all", "--copy-from", "-100"], "--copy-from needs --message-id"),
    (["--audience", "all", "--copy-from", "abc", "--message-id", "1"], "'abc' is not a valid integer"),
    (["--audience", "all", "--copy-from", "-100", "--message-id", "0"], "--message-id"),
    (["--audience", "all", "--text", "x", "--message-id", "5"], "--message-id goes with --copy-from"),
    (["--audience", "all", "--text", "x", "--button-text", "Go"], "both --button-text and --button-url"),
    (["--audience", "all", "--text", "x", "--button-url", "https://t.me/x"], "both --button-text"),
    (["--audience", "all", "--text", "x", "--button-text", "Go", "--button-url", "ftp://x.org"],
     "--button-url 'ftp://x.org': the link must start with http:// or https://"),
    (["--audience", "all", "--text", "x", "--button-text", "Go", "--button-url", "https://"],
     "--button-url 'https://': the link must start with http:// or https://, name a host"),
    (["--audience", "all", "--text", "x", "--created-by", "me"], "'me' is not a valid integer"),
])
def test_create_refuses_bad_input_with_a_usage_error(runner, args, message):
    create_users(2)
    result = create(runner, *args)
    assert result.exit_code == 2, result.output
    assert message in result.stderr and "Traceback" not in result.output
    assert count(BroadcastJob) == 0


def test_create_for_an_empty_audience_exits_2(runner):
    create_users(2)  # nobody is a member
    result = create(runner, "--audience", "members", "--text", "hello")
    assert result.exit_code == 2 and "audience 'members' has no users" in result.stderr
    assert count(BroadcastJob) == 0


def test_list_table_json_and_limit(runner):
    assert runner.invoke(args=["broadcast", "list"]).stdout == "no broadcast jobs\n"
    create_users(3)
    first, second = create_text_job(), create_text_job(text="second")
    table = runner.invoke(args=["broadcast", "list"])
    assert table.exit_code == 0
    lines = table.stdout.splitlines()
    assert lines[0].split()[:4] == ["ID", "STATUS", "AUDIENCE", "TOTAL"]
    assert [line.split()[:2] for line in lines[2:]] == [[str(second.id), "queued"], [str(first.id), "running"]]
    rows = json.loads(runner.invoke(args=["broadcast", "list", "--json"]).stdout)
    assert [r["id"] for r in rows] == [second.id, first.id] and STATUS_KEYS <= set(rows[0])
    assert len(json.loads(runner.invoke(args=["broadcast", "list", "--json", "--limit", "1"]).stdout)) == 1
    for bad in ("0", "x"):
        assert runner.invoke(args=["broadcast", "list", "--limit", bad]).exit_code == 2


def test_status_prints_counters_as_json(runner):
    create_users(3)
    job = create_text_job()
    result = runner.invoke(args=["broadcast", "status", str(job.id)])
    assert result.exit_code == 0
    status = json.loads(result.stdout)
    assert STATUS_KEYS <= set(status)
    expected = {"id": job.id, "status": "running", "total": 3, "pending": 3, "sent": 0}
    assert expected.items() <= status.items()


def test_status_json_prints_every_column_under_its_own_key_in_a_fixed_order(runner):
    # Every value distinct, so a field printed under another's key (or a key moved) shows.
    create_users(3)
    job = create_text_job()
    db.session.execute(update(BroadcastJob).where(BroadcastJob.id == job.id).values(
        status="paused", audience="non_members", total_count=40, sent_count=11, failed_count=2, skipped_count=3,
        unknown_count=4, gone_count=5, too_old_count=6, kind="unsend", source_job_id=77, pause_reason="flood",
        paid=True, audience_langs="fa,other", audience_active_days=7, audience_joined_days=30,
        audience_sources="ad1,ad2", silent=True, protect=True, created_at=datetime(2026, 12, 1, 10, 0, 0, 500_000),
        started_at=datetime(2026, 12, 1, 10, 0, 5),
        finished_at=datetime(2026, 12, 1, 10, 0, 15), send_at=datetime(2026, 12, 1, 9, 30),
        missed_at=datetime(2026, 12, 1, 9, 31), clicks_total=9, clicks_unique=8))
    db.session.commit()
    result = runner.invoke(args=["broadcast", "status", str(job.id)])
    assert result.exit_code == 0, result.output
    # 31 processed in 10 s: 3.1/s; 9 pending at that rate: 3 s.
    expected = {
        "id": job.id, "status": "paused", "audience": "non_members", "total": 40, "sent": 11, "failed": 2,
        "skipped": 3, "unknown": 4, "pending": 9, "kind": "unsend", "source_job_id": 77, "gone": 5, "too_old": 6,
        "not_sent": 0, "rate": 3.1, "eta": 3, "pause_reason": "flood", "paid": True, "langs": ["fa", "other"],
        "active_days": 7, "joined_days": 30, "sources": ["ad1", "ad2"], "silent": True, "protect": True,
        "created_at": "2026-12-01T10:00:00Z", "started_at": "2026-12-01T10:00:05Z",
        "finished_at": "2026-12-01T10:00:15Z", "send_at": "2026-12-01T09:30:00Z",
        "send_at_tehran": "2026-12-01T13:00:00+03:30", "schedule_missed": True,
        "clicks": 8, "click_total": 9, "click_rate": 0.7273, "clicks_counted": True,
        # An unsend job: no unsubscribe button of its own; nothing capped, nobody unsubscribed, not urgent.
        "frequency_capped": 0, "unsubscribe_button": False, "unsubscribed": 0, "urgent": False, "quiet_paused": False,
        "segment": None, "exclude_segments": [],
    }
    assert result.stdout == json.dumps(expected, ensure_ascii=False, indent=2) + "\n"


@pytest.mark.parametrize("command", ["status", "cancel", "pause", "resume"])
def test_job_commands_check_the_id(runner, command):
    missing = runner.invoke(args=["broadcast", command, "424242"])
    assert missing.exit_code == 1 and "no broadcast job 424242" in missing.stderr
    for bad in ("abc", "0", "1.5"):
        result = runner.invoke(args=["broadcast", command, bad])
        assert result.exit_code == 2 and "Traceback" not in result.output, (bad, result.output)


def test_pause_resume_cancel_and_refused_transitions(runner):
    create_users(3)
    job = create_text_job()
    run = lambda *a: runner.invoke(args=["broadcast", *a, str(job.id)])  # noqa: E731

    assert run("pause").stdout == f"job {job.id} paused\n"
    assert reload(job.id).status == "paused"
    again = run("pause")
    assert again.exit_code == 1 and f"job {job.id} is paused; it cannot be paused" in again.stderr
    assert run("resume").stdout == f"job {job.id} resumed (running)\n"
    refused = run("resume")
    assert refused.exit_code == 1 and "is running; it cannot be resumed" in refused.stderr
    assert run("cancel").stdout == f"job {job.id} cancelled\n"
    assert reload(job.id).status == "cancelled"
    for verb in ("cancel", "pause", "resume"):
        result = run(verb)
        assert result.exit_code == 1 and "is cancelled" in result.stderr


def test_resume_queues_behind_the_running_job(runner):
    create_users(2)
    first, second = create_text_job(), create_text_job()
    assert runner.invoke(args=["broadcast", "pause", str(second.id)]).exit_code == 0
    result = runner.invoke(args=["broadcast", "resume", str(second.id)])
    assert result.stdout == f"job {second.id} resumed (queued)\n"
    assert reload(first.id).status == "running"


def test_purge_removes_old_items_and_keeps_jobs_and_counters(runner, simulator):
    create_users(3)
    old, recent, running = create_text_job(), create_text_job(), create_text_job()
    for job in (old, recent):
        db.session.execute(update(BroadcastJob).where(BroadcastJob.id == job.id).values(
            status="completed", active_slot=None, sent_count=3, finished_at=utcnow() - timedelta(days=10)))
    db.session.execute(update(BroadcastJob).where(BroadcastJob.id == recent.id).values(finished_at=utcnow()))
    db.session.execute(update(BroadcastJob).where(BroadcastJob.id == running.id)
                       .values(status="running", active_slot=1))
    db.session.commit()

    result = runner.invoke(args=["broadcast", "purge", "--older-than", "7"])
    assert result.exit_code == 0 and result.stdout.startswith("removed 3 items")
    assert count(BroadcastJobItem, BroadcastJobItem.job_id == old.id) == 0
    assert count(BroadcastJobItem, BroadcastJobItem.job_id.in_([recent.id, running.id])) == 6
    kept = reload(old.id)
    assert (kept.status, kept.total_count, kept.sent_count) == ("completed", 3, 3)
    assert runner.invoke(args=["broadcast", "purge", "--older-than", "7"]).stdout.startswith("removed 0 items")


@pytest.mark.parametrize("args", [[], ["--older-than", "-1"], ["--older-than", "week"]])
def test_purge_needs_a_non_negative_day_count(runner, args):
    result = runner.invoke(args=["broadcast", "purge", *args])
    assert result.exit_code == 2 and "Traceback" not in result.output


def test_create_measures_and_parses_text_as_telegram_does(runner):
    create_users(2)
    emoji = create(runner, "--audience", "all", "--text", "🎉" * 2100)  # 2,100 code points, 4,200 UTF-16 units
    assert (emoji.exit_code, emoji.stdout) == (2, "")
    [line] = emoji.stderr.splitlines()
    assert "4200 characters" in line and "at most 4096" in line
    bare = create(runner, "--audience", "all", "--text", "Tom & Jerry")
    assert (bare.exit_code, bare.stdout) == (2, "")
    [line] = bare.stderr.splitlines()
    assert 'Character "&" must be escaped as "&amp;"' in line
    assert count(BroadcastJob) == 0
    # Tags are not shown, so they do not count: 4096 visible units in bold fit.
    bold = create(runner, "--audience", "all", "--text", "<b>" + "x" * 4096 + "</b>")
    assert bold.exit_code == 0, bold.output


@pytest.mark.parametrize("url", ["https://intranet", "https://a/b", "https://192.168.1.10/"])
def test_a_button_url_telegram_refuses_is_refused_in_one_line(runner, url):
    create_users(2)
    result = create(runner, "--audience", "all", "--text", "x", "--button-text", "Go", "--button-url", url)
    assert result.exit_code == 2, result.output
    assert result.stderr == (f"Error: --button-url {url!r}: the link must name a real domain such as example.com "
                             "or t.me; Telegram refuses an address without one (like https://intranet), and IP "
                             "addresses are not accepted either.\n")
    assert count(BroadcastJob) == 0


def test_create_with_a_link_button_and_no_public_url_warns_in_one_line_on_stderr(runner):
    create_users(2)
    result = create(runner, "--audience", "all", "--text", "hi", "--button-text", "Open", "--button-url", "https://example.com")
    assert result.stdout.strip().isdigit()
    (line,) = result.stderr.strip().splitlines()
    assert line.startswith("warning: PUBLIC_URL is not set") and "clicks are not counted" in line
    assert "~/.update_pack.env" in line


def test_create_warns_nothing_without_a_link_button_or_with_public_url(runner, public_url):
    create_users(2)
    linked = create(runner, "--audience", "all", "--text", "hi", "--button-text", "Open",
                    "--button-url", "https://example.com")
    assert linked.stdout.strip().isdigit() and linked.stderr == ""
    public_url.config["PUBLIC_URL"] = None
    assert create(runner, "--audience", "all", "--text", "no button").stderr == ""
