"""Language variants in the engine: population's match, an edit that never gives a copy another variant's text."""
import pytest
from sqlalchemy import select, update

from app.extensions import db
from app.models.broadcast import BroadcastJobItem as I
from app.services import audit
from app.services.broadcast.actions import unsend_edit
from app.services.broadcast.content import variants
from app.services.broadcast.jobs import creation
from app.services.broadcast.sending.drain import pump
from tests.broadcast.helpers import engine_settings, reload
from tests.factories import create_user

CODES = {8201: "fa", 8202: "EN-gb", 8203: "en", 8204: None, 8205: "e", 8206: "ru", 8207: "fa-IR"}


def people():
    for user_id, code in CODES.items():
        create_user(user_id, first_name=f"u{user_id}", language_code=code)


def item_variants(job_id: int) -> dict[int, str | None]:
    rows = db.session.execute(select(I.user_id, I.variant).where(I.job_id == job_id)).all()
    db.session.commit()
    return dict(rows)


def test_population_gives_each_user_the_variant_their_language_starts_with(app):
    people()
    job = creation.create_job(audience="all", created_by=1, content={"type": "text", "text": "پیش‌فرض"},
                              variants={"en": "English", "fa": "فارسی"}, settings=engine_settings())
    got = item_variants(job.id)
    assert got == {8201: "fa", 8202: "en", 8203: "en", 8204: None, 8205: None, 8206: None, 8207: "fa"}
    # The Python match (previews, docs) agrees with the SQL one population used.
    assert {u: variants.variant_for(c, ["en", "fa"]) for u, c in CODES.items()} == got
    # The pre-send count per variant uses the same expression.
    assert creation.variant_counts("all", ["en", "fa"]) == {"en": 2, "fa": 2, None: 3}


@pytest.mark.parametrize(("text", "new_variants", "sneaked", "label"), [
    (None, {"en": "English, edited"}, 8201, "default"),   # an edit of the English copies only
    ("پیش‌فرض، ویرایش", {}, 8202, "en"),                  # an edit of the default's copies only
])
def test_an_edit_fails_a_copy_whose_variant_it_has_no_text_for(app, simulator, text, new_variants, sneaked, label):
    simulator.configure(per_chat_limits=False)
    people()
    job = creation.create_job(audience="all", created_by=1, content={"type": "text", "text": "پیش‌فرض"},
                              variants={"en": "English"}, settings=engine_settings())
    assert pump(job.id, 10, settings=engine_settings()).stop == "done"
    before = {m["chat_id"]: m["text"] for m in simulator.bot_messages() if m["chat_id"] in CODES}
    edit = unsend_edit.edit_job(job.id, text, variants=new_variants, actor=audit.ACTOR_CLI, settings=engine_settings())
    # A copy of another variant slips into the edit (as a bug in population would put it there).
    copy, variant = db.session.execute(select(I.message_id, I.variant)
                                       .where(I.job_id == job.id, I.user_id == sneaked)).one()
    db.session.add(I(job_id=edit.id, user_id=sneaked, status="pending", message_id=copy, variant=variant))
    db.session.execute(update(type(edit)).where(type(edit).id == edit.id).values(total_count=edit.total_count + 1))
    db.session.commit()
    assert pump(edit.id, 10, settings=engine_settings()).stop == "done"
    after = {m["chat_id"]: m["text"] for m in simulator.bot_messages() if m["chat_id"] in CODES}
    assert after[sneaked] == before[sneaked]
    changed = {u for u in CODES if after.get(u) != before.get(u)}
    assert changed and sneaked not in changed
    failed = db.session.execute(select(I.status, I.error).where(I.job_id == edit.id, I.user_id == sneaked)).one()
    assert failed == ("failed", f"no new text for this copy's language variant ({label})")
    assert reload(edit.id).failed_count == 1
