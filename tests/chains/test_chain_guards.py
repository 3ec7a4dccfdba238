"""The chain claim's own guards: a user is claimed once per step, step 2 follows a copy that arrived, a pause holds."""
from datetime import timedelta

from app.clock import utcnow
from app.services.broadcast.sending.drain import pump
from app.services.chains import due, manage
from tests.broadcast.helpers import reload
from tests.chains.helpers import BASE, FAST, T0, add_user, deliveries, make_chain, recipients, step_ids, step_jobs

MIN = timedelta(minutes=1)


def test_users_beyond_one_pass_are_served_by_the_next_pass(app, monkeypatch):
    """More users due than one pass claims: the next pass claims the ones left, not the claimed ones again."""
    monkeypatch.setattr(due, "CLAIM_LIMIT", 2)
    users = [add_user(BASE + i) for i in range(5)]
    cid = make_chain("joined", "0|One")
    passes = [due.run_due(FAST, now=T0 + k * MIN) for k in (2, 3, 4, 5)]  # one cron pass a minute
    assert [[recipients(job) for job in made] for made in passes] == [[users[:2]], [users[2:4]], [users[4:]], []]
    [step] = step_ids(cid)
    assert sorted(u for s, u, _ in deliveries() if s == step) == users


def test_step_two_follows_only_a_copy_that_arrived(app, simulator):
    """Step 1 delivered to one user, refused for another, lost for a third: step 2 goes to the first alone."""
    now = utcnow()
    arrived, refused, lost = (add_user(BASE + i, started=now - MIN) for i in range(3))
    cid = make_chain("joined", "0|One", "1h|Two", at=now - 2 * MIN)
    first_step, second_step = step_ids(cid)
    [job] = due.run_due(FAST, now=now)
    simulator.refuse(refused)  # Telegram refuses the copy: failed
    simulator.lose(lost)  # the copy lands but its answer is lost: unknown (it may or may not have arrived)
    assert pump(job, 30, settings=FAST).stop == "done"
    job_row = reload(job)
    assert (job_row.sent_count, job_row.failed_count, job_row.unknown_count) == (1, 1, 1)
    [job2] = due.run_due(FAST, now=now + 2 * timedelta(hours=1))
    assert recipients(job2) == [arrived]
    assert due.run_due(FAST, now=now + timedelta(days=3)) == []
    assert sorted((s, u) for s, u, _ in deliveries()) == [(first_step, arrived), (first_step, refused),
                                                           (first_step, lost), (second_step, arrived)]


def test_a_pause_between_the_passs_read_and_its_claim_claims_nobody(app, monkeypatch):
    """The pass finds users due on an active chain; the admin pauses it before the claim: nothing is claimed."""
    add_user(BASE)
    cid = make_chain("joined", "0|One")
    probe = due.repo.any_due

    def probe_then_pause(where):
        found = probe(where)
        assert manage.pause(cid, "cli")  # the admin's pause commits between the pass's read and its claim
        return found

    monkeypatch.setattr(due.repo, "any_due", probe_then_pause)
    assert due.run_due(FAST, now=T0 + 2 * MIN) == []
    assert deliveries() == [] and step_jobs() == []
    assert manage.status_of(cid) == "paused"
