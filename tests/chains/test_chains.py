"""Drip chains at cron time: each trigger, delays, opt-outs, pause/resume/stop, and delivery through the engine."""
from datetime import timedelta

from sqlalchemy import update

from app.clock import utcnow
from app.extensions import db
from app.models import BroadcastJobItem, User
from app.services.audience import tags
from app.services.broadcast.sending.drain import pump_all
from app.services.chains import due, manage
from tests.broadcast.helpers import assert_consistent, at_once, reload
from tests.chains.helpers import (
    BASE,
    FAST,
    T0,
    add_user,
    deliveries,
    make_chain,
    mark_sent,
    recipients,
    step_ids,
    step_jobs,
)

MIN = timedelta(minutes=1)


def test_joined_only_after_creation_and_each_delay_honoured(app):
    add_user(BASE, started=T0 - timedelta(days=1))  # joined before the chain: not enrolled
    new = add_user(BASE + 1, started=T0 + MIN)
    cid = make_chain("joined", "30m|Hi {first_name}", "2h|Day two")
    first, second = step_ids(cid)
    assert due.run_due(FAST, now=T0 + 30 * MIN) == []  # 29 minutes after joining: not yet
    [job] = due.run_due(FAST, now=T0 + 31 * MIN)
    assert recipients(job) == [new] and reload(job).chain_step_id == first and reload(job).total_count == 1
    assert reload(job).text == "Hi {first_name}"
    assert due.run_due(FAST, now=T0 + 40 * MIN) == []  # claimed once: never again
    mark_sent(job, T0 + 32 * MIN)
    assert due.run_due(FAST, now=T0 + 32 * MIN + 119 * MIN) == []  # step 2 waits 2 h after step 1 reached them
    [job2] = due.run_due(FAST, now=T0 + 32 * MIN + 120 * MIN)
    assert recipients(job2) == [new] and reload(job2).chain_step_id == second
    assert due.run_due(FAST, now=T0 + timedelta(days=30)) == []
    assert deliveries() == [(first, new, job), (second, new, job2)]


def test_source_trigger_takes_the_first_payload_only(app):
    add_user(BASE, source="ads")
    add_user(BASE + 1, source="other")
    add_user(BASE + 2)
    cid = make_chain("source:ads", "0|From the ad")
    [job] = due.run_due(FAST, now=T0 + 2 * MIN)
    assert recipients(job) == [BASE] and reload(job).chain_step_id == step_ids(cid)[0]


def test_tag_trigger_counts_tags_added_after_creation(app):
    for uid in (BASE, BASE + 1, BASE + 2):
        add_user(uid, started=T0 - timedelta(days=3))
    tags.add_tag("vip", [BASE], "cli")  # tagged at the real clock's now: after T0? moved below
    db.session.execute(update(__import__("app.models", fromlist=["UserTag"]).UserTag)
                       .values(created_at=T0 - MIN))  # tagged before the chain existed
    db.session.commit()
    make_chain("tag:VIP", "1h|For VIPs")
    tags.add_tag("vip", [BASE + 1], "import")
    db.session.execute(update(__import__("app.models", fromlist=["UserTag"]).UserTag)
                       .where(__import__("app.models", fromlist=["UserTag"]).UserTag.user_id == BASE + 1)
                       .values(created_at=T0 + 10 * MIN))
    db.session.commit()
    assert due.run_due(FAST, now=T0 + 69 * MIN) == []
    [job] = due.run_due(FAST, now=T0 + 70 * MIN)
    assert recipients(job) == [BASE + 1]


def test_inactive_is_a_state_taken_whenever_it_began(app):
    add_user(BASE, started=T0 - timedelta(days=90), seen=T0 - timedelta(days=40))
    add_user(BASE + 1, started=T0 - timedelta(days=90), seen=T0 - timedelta(days=5))
    make_chain("inactive:۳۰", "0|We miss you")  # Persian digits
    [job] = due.run_due(FAST, now=T0 + MIN)
    assert recipients(job) == [BASE]
    # The other one turns 30 days inactive later: enrolled then, once.
    assert due.run_due(FAST, now=T0 + timedelta(days=24)) == []
    [job2] = due.run_due(FAST, now=T0 + timedelta(days=25, minutes=1))
    assert recipients(job2) == [BASE + 1]
    assert due.run_due(FAST, now=T0 + timedelta(days=200)) == []


def test_clicked_trigger_follows_clicks_on_that_broadcast(app):
    from tests.broadcast.helpers import create_text_job
    add_user(BASE, started=T0 - timedelta(days=1))
    add_user(BASE + 1, started=T0 - timedelta(days=1))
    source = create_text_job(settings=FAST).id
    make_chain(f"clicked:{source}", "10m|Thanks for reading")
    db.session.execute(update(BroadcastJobItem).where(BroadcastJobItem.user_id == BASE + 1)
                       .values(clicked_at=T0 + 5 * MIN))
    db.session.commit()
    assert due.run_due(FAST, now=T0 + 14 * MIN) == []
    [job] = due.run_due(FAST, now=T0 + 15 * MIN)
    assert recipients(job) == [BASE + 1]


def test_opted_out_and_blocked_never_claimed_and_an_opt_out_mid_chain_ends_it(app):
    add_user(BASE)
    add_user(BASE + 1, opted_out=True)
    add_user(BASE + 2, blocked=True)
    add_user(BASE + 3)
    make_chain("joined", "0|One", "1h|Two")
    [job] = due.run_due(FAST, now=T0 + 2 * MIN)
    assert recipients(job) == [BASE, BASE + 3]
    mark_sent(job, T0 + 3 * MIN)
    db.session.execute(update(User).where(User.id == BASE + 3).values(opted_out_at=T0 + 4 * MIN))  # /stop
    db.session.commit()
    [job2] = due.run_due(FAST, now=T0 + 2 * timedelta(hours=1))
    assert recipients(job2) == [BASE]
    assert {u for _, u, _ in deliveries()} == {BASE, BASE + 3}


def test_pause_holds_claims_resume_catches_up_stop_is_for_good(app):
    add_user(BASE)
    cid = make_chain("joined", "0|One")
    assert manage.pause(cid, "cli") and not manage.pause(cid, "cli")
    assert due.run_due(FAST, now=T0 + 5 * MIN) == []
    assert manage.resume(cid, "cli")
    [job] = due.run_due(FAST, now=T0 + 6 * MIN)
    assert recipients(job) == [BASE]
    add_user(BASE + 1, started=T0 + 7 * MIN)
    assert manage.stop(cid, "cli") and not manage.resume(cid, "cli") and not manage.pause(cid, "cli")
    assert due.run_due(FAST, now=T0 + 9 * MIN) == []
    assert manage.status_of(cid) == "stopped"


def test_a_paused_chain_lets_its_made_jobs_run(app, simulator):
    add_user(BASE)
    cid = make_chain("joined", "0|One")
    [job] = due.run_due(FAST, now=T0 + 2 * MIN)
    manage.pause(cid, "cli")
    pump_all(10, settings=FAST)
    assert reload(job).status == "completed" and reload(job).sent_count == 1


def test_the_step_job_delivers_through_the_engine_with_greeting_and_button(app, simulator):
    now = utcnow()  # cron's own pass reads the database's clock
    add_user(BASE, name="Sara", started=now - MIN)
    add_user(BASE + 1, name="Reza", started=now - MIN)
    cid = make_chain("joined", "0|<b>Hi</b> {first_name}", button_text="Open", button_url="https://example.com/x",
                     at=now - 2 * MIN)
    pump_all(10, settings=FAST)  # cron's pass: claims, makes the job, sends it
    [(job, step, status)] = step_jobs()
    assert (step, status) == (step_ids(cid)[0], "completed")
    assert_consistent(job, simulator)
    sent = {d["chat_id"]: d for d in simulator.deliveries("sendMessage") if d["chat_id"] >= BASE}
    assert sorted(sent) == [BASE, BASE + 1]
    assert "Sara" in sent[BASE]["text"] and "Reza" in sent[BASE + 1]["text"]
    assert "Open" in str(sent[BASE].get("reply_markup"))
    view = manage.view(cid).as_dict()["steps"][0]
    assert (view["claimed"], view["delivered"], view["failed"], view["pending"]) == (2, 2, 0, 0)
    pump_all(10, settings=FAST)
    assert len([d for d in simulator.deliveries("sendMessage") if d["chat_id"] >= BASE]) == 2  # nothing twice


def test_two_cron_passes_at_once_claim_each_user_once(app):
    users = [add_user(BASE + i) for i in range(30)]
    cid = make_chain("joined", "0|One")
    now = T0 + 2 * MIN
    results = at_once(app, lambda: due.run_due(FAST, now=now), 4)
    assert sorted(len(r) for r in results) == [0, 0, 0, 1]
    [job] = [j for r in results for j in r]
    assert recipients(job) == users and len(deliveries()) == 30
    assert [j for j, s, _ in step_jobs() if s == step_ids(cid)[0]] == [job]


def test_a_pass_that_read_before_the_winner_committed_claims_nobody_twice(app):
    """Break the guard on purpose: a loser whose WHERE missed the winner's rows still adds no second claim."""
    add_user(BASE)
    cid = make_chain("joined", "0|One")
    [job] = due.run_due(FAST, now=T0 + 2 * MIN)
    chain = manage.repo.get(cid)
    step = manage.repo.steps_of(cid)[0]
    db.session.commit()
    stale = manage.repo.due_where(chain, step, None, T0 + 2 * MIN)[:-2]  # without "not yet claimed"
    stale = [c for c in stale if "chain_deliveries" not in str(c)] + manage.repo._trigger(chain, T0 + 2 * MIN)
    assert due._claim_step(chain, step, stale, T0 + 2 * MIN, FAST) is None
    db.session.rollback()
    assert deliveries() == [(step.id, BASE, job)] and len(step_jobs()) == 1
