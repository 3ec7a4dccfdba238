"""Click tracking end to end: per-recipient signed links, the /r/ redirect, its counters, view, summary and export."""
from __future__ import annotations

import csv
import io
import json
import threading
import time
from urllib.parse import urlsplit

import pytest
from sqlalchemy import update

from app.extensions import db
from app.models import BroadcastJob, BroadcastJobItem
from app.services import audit
from app.services.broadcast.actions import retry, unsend_edit
from app.services.broadcast.jobs import creation
from app.services.broadcast.jobs.status import job_status
from app.services.broadcast.reporting import clicks, export
from app.services.broadcast.reporting.progress import summary_text
from app.services.broadcast.sending.drain import pump
from app.texts import t
from tests.broadcast.helpers import BASE_ID, create_users, engine_settings, reload
from tests.conftest import PUBLIC_URL

PUBLIC = PUBLIC_URL
TARGET = "https://example.com/offer?x=1"
SETTINGS = engine_settings(broadcast_rate_per_second=28)


def button_job(url: str = TARGET, **kw):
    """Create a text job with a link button."""
    return creation.create_job(audience="all", created_by=1001, settings=SETTINGS, button_text="ببین 👀",
                               button_url=url, content={"type": "text", "text": "<b>سلام</b>"}, **kw)


def links(simulator, job_id: int | None = None) -> dict[int, str]:
    """Return {recipient chat: the button URL of their newest copy} (admins' messages left out)."""
    got = {}
    for m in simulator.bot_messages():
        markup = m.get("reply_markup")
        if m["chat_id"] >= BASE_ID and markup:
            got[m["chat_id"]] = markup["inline_keyboard"][0][0]["url"]
    return got


def token_of(link: str) -> str:
    """Return the token at the end of a tracked link."""
    assert link.startswith(PUBLIC + clicks.PATH), link
    return link[len(PUBLIC + clicks.PATH):]


def click(client, token: str, query: str = ""):
    """Follow a tracked link the way a recipient's browser does."""
    return client.get(clicks.PATH + token + query)


def counts(job_id: int) -> tuple[int, int]:
    """Return (recipients who clicked, every click) of a job."""
    view = job_status(reload(job_id))
    return view.clicks, view.click_total


def sent_tracked(simulator, n: int = 3):
    """Send a tracked button job to n users; return (job, {user: token})."""
    create_users(n)
    job = button_job()
    assert pump(job.id, 20, settings=SETTINGS).stop == "done"
    return job, {user: token_of(link) for user, link in links(simulator).items()}


def test_each_copy_gets_its_own_link_and_the_first_click_counts_once(public_url, simulator, client):
    job, tokens = sent_tracked(simulator, 3)
    assert len(set(tokens.values())) == 3, "one token per recipient"
    for token in tokens.values():
        assert str(BASE_ID) not in token and len(token) == 27, "no user id in the link"
    first = tokens[BASE_ID]
    answer = click(client, first)
    assert answer.status_code == 302 and answer.headers["Location"] == TARGET
    assert answer.headers["Cache-Control"] == "no-store"
    assert counts(job.id) == (1, 1)
    assert click(client, first).status_code == 302
    assert counts(job.id) == (1, 2), "a second click of the same recipient: total only"
    click(client, tokens[BASE_ID + 1])
    assert counts(job.id) == (2, 3)
    item = db.session.execute(db.select(BroadcastJobItem).where(BroadcastJobItem.user_id == BASE_ID)).scalar_one()
    assert item.clicked_at is not None
    view = job_status(reload(job.id))
    assert view.as_dict()["clicks"] == 2 and view.as_dict()["click_rate"] == round(2 / 3, 4)


def test_forged_altered_and_unknown_tokens_redirect_nowhere(public_url, simulator, client):
    job, tokens = sent_tracked(simulator, 2)
    token = tokens[BASE_ID]
    flip = {c: ("B" if c == "A" else "A") for c in set(token)}
    for i in range(len(token)):  # every single-character change
        altered = token[:i] + flip[token[i]] + token[i + 1:]
        assert click(client, altered).status_code == 404, f"altered at {i}: {altered}"
    forged = clicks.make_token(b"not our key", job.id, clicks.item_of(token), BASE_ID)
    assert click(client, forged).status_code == 404
    unknown = clicks.make_token(clicks._key(), job.id, 999_999_999, BASE_ID)
    assert click(client, unknown).status_code == 404
    for junk in ("", "x", token + "A", token[:-1], "../healthz", "%00" * 9):
        assert click(client, junk).status_code == 404
    assert counts(job.id) == (0, 0)


def test_a_token_spelled_another_way_that_decodes_the_same_redirects_nowhere(public_url, simulator, client):
    """The item id's 11th character carries 2 spare bits: a twin spelling decodes to the same id but is not ours."""
    job, tokens = sent_tracked(simulator, 2)
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
    for token in tokens.values():
        last = clicks._ID_CHARS - 1
        spare = alphabet.index(token[last]) ^ 1  # flips a bit base64url drops: the same 8 bytes
        twin = token[:last] + alphabet[spare] + token[last + 1:]
        assert twin != token and click(client, twin).status_code == 404
    assert counts(job.id) == (0, 0)
    assert all(click(client, token).status_code == 302 for token in tokens.values())


def test_a_token_of_job_a_never_redirects_to_job_b_and_the_query_is_ignored(public_url, simulator, client):
    job_a, tokens = sent_tracked(simulator, 1)
    other = "https://other.example.org/b"
    job_b = button_job(other)
    assert pump(job_b.id, 20, settings=SETTINGS).stop == "done"
    token_a = tokens[BASE_ID]
    item_b = db.session.execute(db.select(BroadcastJobItem.id).where(BroadcastJobItem.job_id == job_b.id)).scalar()
    # Job B's item id with job A's MAC: the MAC binds job, item and user together.
    spliced = clicks._b64(clicks._ID.pack(item_b)) + token_a[clicks._ID_CHARS:]
    assert click(client, spliced).status_code == 404
    for query in ("?next=https://evil.example", "?url=https://evil.example", "?next=//evil.example&url=x"):
        answer = click(client, token_a, query)
        assert answer.status_code == 302 and answer.headers["Location"] == TARGET
    assert counts(job_a.id) == (1, 3) and counts(job_b.id) == (0, 0)


def test_without_public_url_the_button_is_the_plain_url(app, simulator, client):
    create_users(2)
    job = button_job()
    pump(job.id, 20, settings=SETTINGS)
    assert set(links(simulator).values()) == {TARGET}
    assert job_status(reload(job.id)).as_dict()["clicks"] == 0


def test_a_retry_copies_count_on_the_retry_job(public_url, simulator, client):
    simulator.configure(per_chat_limits=False)
    users = create_users(3)
    simulator.state.set_chats("refuse", users[2:])
    job = button_job()
    pump(job.id, 20, settings=SETTINGS)
    simulator.state.set_chats("restore", users[2:])
    again = retry.retry_job(job.id, actor=audit.ACTOR_CLI, settings=SETTINGS)
    assert pump(again.id, 20, settings=SETTINGS).stop == "done"
    assert click(client, token_of(links(simulator)[users[2]])).status_code == 302
    assert counts(again.id) == (1, 1) and counts(job.id) == (0, 0)


def test_an_edit_that_keeps_the_button_keeps_per_recipient_links(public_url, simulator, client):
    job, _ = sent_tracked(simulator, 2)
    edit = unsend_edit.edit_job(job.id, "تازه", actor=audit.ACTOR_CLI, settings=SETTINGS)
    for _ in range(3):
        if pump(edit.id, 20, settings=SETTINGS).stop == "done":
            break
    after = links(simulator)
    assert len(set(after.values())) == 2 and all(urlsplit(u).path.startswith(clicks.PATH) for u in after.values())
    assert click(client, token_of(after[BASE_ID])).headers["Location"] == TARGET
    assert counts(edit.id) == (1, 1)


def test_export_status_json_summary_and_view_show_clicks(public_url, simulator, client, runner):
    job, tokens = sent_tracked(simulator, 2)
    click(client, tokens[BASE_ID])
    out = io.BytesIO()
    export.export_csv(job.id, out)
    rows = list(csv.DictReader(io.StringIO(out.getvalue().decode("utf-8-sig"))))
    by_user = {int(r["user_id"]): r["clicked_at"] for r in rows}
    assert by_user[BASE_ID] != "" and by_user[BASE_ID + 1] == ""
    status = json.loads(runner.invoke(args=["broadcast", "status", str(job.id)]).output)
    assert (status["clicks"], status["click_total"], status["click_rate"]) == (1, 1, 0.5)
    view = job_status(reload(job.id))
    for lang in ("fa", "en"):
        line = t("clicks_line", lang, clicks=1, total=1, rate="50.0%")
        assert line in summary_text(view, lang)


def test_the_public_url_is_checked_at_start():
    from app.config import ConfigError, parse_public_url

    assert parse_public_url("https://bot.example.com/") == "https://bot.example.com"
    assert parse_public_url("https://example.com/bot") == "https://example.com/bot"
    assert parse_public_url("") is None
    for bad in ("http://bot.example.com", "https://bot.example.com/?a=1", "https://u:p@bot.example.com",
                "https://bot.example.com/#x", "bot.example.com", "https://"):
        with pytest.raises(ConfigError, match="PUBLIC_URL"):
            parse_public_url(bad)


def test_a_click_while_a_pump_holds_its_job_waits_for_it_instead_of_deadlocking(public_url, simulator, client):
    job, tokens = sent_tracked(simulator, 2)
    item_id = clicks.item_of(tokens[BASE_ID])
    db.session.commit()
    answers = []
    with db.engine.connect() as pump_conn:
        # A pump's write transaction: the job row first (its fence), then one of the job's items.
        pump_conn.execute(update(BroadcastJob).where(BroadcastJob.id == job.id)
                          .values(lease_expires_at=BroadcastJob.lease_expires_at))
        clicker = threading.Thread(target=lambda: answers.append(click(client, tokens[BASE_ID]).status_code))
        clicker.start()
        time.sleep(0.5)  # the click is now waiting on a lock the pump holds
        pump_conn.execute(update(BroadcastJobItem).where(BroadcastJobItem.id == item_id)
                          .values(status=BroadcastJobItem.status))
        pump_conn.commit()
    clicker.join(30)
    assert answers == [302], "the click must wait for the pump's transaction, not lose a deadlock to it"
    assert counts(job.id) == (1, 1)


def test_a_head_request_is_answered_like_a_click_but_counts_nothing(public_url, simulator, client):
    """Link previewers and prefetchers send HEAD: they learn the redirect, only a GET counts."""
    job, tokens = sent_tracked(simulator, 2)
    token = tokens[BASE_ID]
    for _ in range(3):
        answer = client.head(clicks.PATH + token)
        assert answer.status_code == 302 and answer.headers["Location"] == TARGET
        assert answer.headers["Cache-Control"] == "no-store"
    assert counts(job.id) == (0, 0)
    assert db.session.get(BroadcastJobItem, _item_of(job.id, BASE_ID)).clicked_at is None
    forged = token[:-1] + ("B" if token.endswith("A") else "A")
    assert client.head(clicks.PATH + forged).status_code == 404  # a forged token: as for a GET
    assert click(client, token).status_code == 302
    assert counts(job.id) == (1, 1)


def _item_of(job_id: int, user_id: int) -> int:
    from sqlalchemy import select
    item = db.session.execute(select(BroadcastJobItem.id).where(BroadcastJobItem.job_id == job_id,
                                                                BroadcastJobItem.user_id == user_id)).scalar_one()
    db.session.rollback()
    return item
