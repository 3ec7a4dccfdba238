"""Every button under a copy takes one rule (lineage.copies_held): accepted from a recipient of any job of the
retry family, counted on the pressed job only when the presser holds a copy of it."""
from app.extensions import db
from app.repository import buttons as buttons_repo
from app.services.audience import key_press, tap
from app.services.broadcast.actions import retry
from app.services.broadcast.jobs import creation
from app.services.broadcast.reporting import unsubscribes
from app.services.broadcast.sending.drain import pump
from tests.audience.helpers import tags_of
from tests.broadcast.helpers import create_users, engine_settings, reload

KEYS = {"rows": [[{"kind": "tap", "text": "Me too", "tag": "keen"}, {"kind": "menu", "text": "Hours",
                                                                      "answer": "9 to 17"}]]}


def _family(simulator, **buttons):
    """A broadcast with these buttons; one recipient's copy failed and went out in its retry."""
    got_first, got_retry = create_users(2)
    settings = engine_settings()
    job = creation.create_job(audience="all", created_by=None, content={"type": "text", "text": "News"},
                              optout_button=True, settings=settings, **buttons)
    simulator.refuse(got_retry)
    assert pump(job.id, 20, settings=settings).stop == "done"
    simulator.restore(got_retry)
    again = retry.retry_job(job.id, settings=settings)
    assert pump(again.id, 20, settings=settings).stop == "done"
    [stranger] = create_users(1, start=got_retry + 100)  # joined since: no recipient of the family
    return job.id, again.id, got_first, got_retry, stranger


def _tap(job_id: int, user_id: int) -> bool:
    accepted, _answer = tap.press(job_id, tap.callback_data(job_id).rsplit(".", 1)[1], user_id)
    db.session.commit()
    return accepted


def _key(job_id: int, position: int, user_id: int) -> str | None:
    kind, _answer = key_press.press(job_id, position, key_press.callback_data(job_id, position).rsplit(".", 1)[1],
                                    user_id)
    db.session.commit()
    return kind


def test_a_retry_familys_recipient_is_accepted_by_the_tap_button_and_counted_only_where_they_hold_a_copy(
        app, simulator):
    first, again, got_first, got_retry, stranger = _family(simulator, tap={"text": "Join", "tag": "vip"})
    # The retry's recipient presses the original's tap button (they hold its failed item): tagged and counted.
    assert _tap(first, got_retry) and tags_of(got_retry) == {"vip"}
    # The original's recipient presses the retry's: one of the family, so tagged and answered, as the
    # unsubscribe button accepts them; but they hold no copy of the retry, so nothing counts on it.
    assert _tap(again, got_first) and tags_of(got_first) == {"vip"}
    assert unsubscribes.accepts(again, unsubscribes.callback_data(again).rsplit(".", 1)[1], got_first)
    assert (reload(first).tap_presses, reload(again).tap_presses) == (1, 0)
    # A user of no job of the family is refused by both alike.
    assert not _tap(again, stranger) and tags_of(stranger) == set()
    assert not unsubscribes.accepts(again, unsubscribes.callback_data(again).rsplit(".", 1)[1], stranger)


def test_the_keyboards_buttons_take_the_same_rule(app, simulator):
    first, again, got_first, got_retry, stranger = _family(simulator, keyboard=KEYS)
    assert _key(first, 2, got_retry) == "menu"
    assert _key(again, 1, got_first) == "tap" and tags_of(got_first) == {"keen"}
    assert _key(again, 2, got_first) == "menu"
    assert buttons_repo.counts(first)[2][2] == 1  # the presser holds a copy of the original: counted there
    assert buttons_repo.counts(again)[1][2] == buttons_repo.counts(again)[2][2] == reload(again).tap_presses == 0
    assert _key(again, 2, stranger) is None and _key(first, 1, stranger) is None and tags_of(stranger) == set()
