"""`broadcast create --every` with a segment and options: every occurrence sends to that segment, with those options."""
import json
from datetime import timedelta

from sqlalchemy import select, update

from app.extensions import db
from app.models import BroadcastJobItem, RecurringBroadcast
from app.services import audit
from app.services.audience import segments
from app.services.broadcast.jobs.draft import Draft
from app.services.broadcast.schedule import recurring, recurring_series
from tests.broadcast.helpers import BASE_ID, create_users, engine_settings, reload
from tests.broadcast.test_recurring import SAT_10, series

SETTINGS = engine_settings()


def tag(runner, name: str, *offsets: int) -> None:
    ids = ",".join(str(BASE_ID + n) for n in offsets)
    assert runner.invoke(args=["users", "tag", "add", name, "--ids", ids]).exit_code == 0


def save(runner, name: str, *args: str) -> None:
    result = runner.invoke(args=["segments", "save", name, *args])
    assert result.exit_code == 0, result.output


def release_at(series_id: int, when=SAT_10) -> int | None:
    """Put the series' next occurrence at `when` and let cron release it; return the job made, if any."""
    db.session.execute(update(RecurringBroadcast).where(RecurringBroadcast.id == series_id).values(next_at=when))
    db.session.commit()
    made = recurring.release_due(SETTINGS, now=when + timedelta(seconds=2))
    return made[0] if made else None


def recipients(job_id: int) -> set[int]:
    found = {u - BASE_ID for u in db.session.execute(select(BroadcastJobItem.user_id)
                                                     .where(BroadcastJobItem.job_id == job_id)).scalars()}
    db.session.commit()
    return found


def test_each_occurrence_goes_to_the_segment_less_its_exclusions_with_every_option(runner):
    create_users(4)
    tag(runner, "vip", 0, 1, 2)
    tag(runner, "churn", 1)
    save(runner, "vips", "--tag-any", "vip")
    save(runner, "churners", "--tag-any", "churn")
    result = runner.invoke(args=[
        "broadcast", "create", "--segment", "vips", "--exclude-segment", "churners", "--text", "روزانه",
        "--every", "daily 10:00", "--urgent", "--unsubscribe-button", "--tap-button", "👍", "--tap-tag", "liked",
        "--expire-after", "23h"])
    assert result.exit_code == 0, result.output
    series_id = int(result.stdout.strip())
    assert "its audience has 2 users now" in result.stderr  # vips (0, 1, 2) less churners (1)
    shown = json.loads(runner.invoke(args=["recurring", "show", str(series_id), "--json"]).output)
    assert shown["audience"] == "segment=vips exclude=churners"
    # The rules are kept as they stand now: a later edit or delete of either segment changes no occurrence.
    save(runner, "vips", "--tag-any", "churn", "--replace")
    assert runner.invoke(args=["segments", "delete", "churners"]).exit_code == 0
    tag(runner, "vip", 3)  # a newcomer to the segment's rule is reached, as any occurrence reaches the audience then
    job = reload(release_at(series_id))
    assert recipients(job.id) == {0, 2, 3}
    assert (job.urgent, job.optout_button, job.tap_text, job.tap_tag) == (True, True, "👍", "liked")
    assert job.expire_after == 23 * 3600 and job.expire_at == job.created_at + timedelta(hours=23)
    rule = json.loads(job.audience_rule)
    assert (rule["segment"], [e["segment"] for e in rule["exclude"]]) == ("vips", ["churners"])
    detail = audit.entries(job.id)[0]["detail"]
    assert "urgent unsubscribe_button expire_after=23h" in detail and f"recurring=#{series_id}" in detail


def test_a_series_stored_without_its_rules_resolves_its_segment_and_pauses_once_it_is_gone(runner):
    """A series saved before series kept their rules: its draft's segment ids, never everyone."""
    create_users(3)
    tag(runner, "vip", 1)
    save(runner, "vips", "--tag-any", "vip")
    draft = Draft(content={"type": "text", "text": "x"}, segment_id=segments.get("vips").id).with_target(
        Draft().target)
    row = recurring_series.create(draft, "daily 10:00", until=None, count=None, if_missed="send", created_by=None,
                                  lang="en", actor=audit.ACTOR_CLI)
    db.session.execute(update(RecurringBroadcast).where(RecurringBroadcast.id == row.id).values(audience_rule=None))
    db.session.commit()
    assert recipients(release_at(row.id)) == {1}
    assert runner.invoke(args=["segments", "delete", "vips"]).exit_code == 0
    assert release_at(row.id, SAT_10 + timedelta(days=1)) is None
    assert "audience: segment #" in runner.invoke(args=["recurring", "show", str(row.id)]).output
    assert series(row.id).status == "paused"
    [paused] = [e for e in audit.entries(None, limit=50) if e["action"] == recurring.PAUSED]
    assert f"recurring=#{row.id} segment #" in paused["detail"] and "was deleted" in paused["detail"]


def test_an_option_no_occurrence_could_carry_is_refused_and_nothing_is_stored(runner):
    create_users(1)
    result = runner.invoke(args=["broadcast", "create", "--audience", "all", "--copy-from", "-100123",
                                 "--message-ids", "5,6", "--unsubscribe-button", "--every", "daily 10:00"])
    assert result.exit_code == 2 and "an album carries no button" in result.output
    assert recurring_series.newest() == []


def test_a_draft_left_by_a_dead_process_is_finished_for_the_segment(runner, monkeypatch):
    """cron finishes an occurrence from its job row's own rules: the segment, even after the segment changed."""
    create_users(3)
    tag(runner, "vip", 2)
    save(runner, "vips", "--tag-any", "vip")
    series_id = int(runner.invoke(args=["broadcast", "create", "--segment", "vips", "--text", "x", "--every",
                                        "daily 10:00"]).stdout.strip())
    monkeypatch.setattr(recurring, "fill", lambda *a, **k: None)  # the process dies before adding recipients
    assert release_at(series_id) is None
    monkeypatch.undo()
    save(runner, "vips", "--tag-any", "nobody", "--replace")
    [job_id] = recurring.finish_stuck(SAT_10 + timedelta(hours=1))
    assert recipients(job_id) == {2} and reload(job_id).total_count == 1
