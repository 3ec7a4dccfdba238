"""Language variants through the CLI against the simulator: create, per-recipient copy, status, ledger, retry."""
import csv
import io
import json

import pytest

from app.services.broadcast.reporting import unsubscribes
from app.services.settings import set_setting
from tests.broadcast.helpers import reload
from tests.factories import create_user

FA, EN, EN_US, NONE, DE = 8101, 8102, 8103, 8104, 8105


@pytest.fixture
def tracked(app):
    """A deployment that tracks clicks (PUBLIC_URL) and puts the opt-out button under each copy."""
    app.config["PUBLIC_URL"] = "https://bot.example.com"
    set_setting("broadcast_optout_button", "on")
    yield app
    app.config["PUBLIC_URL"] = None


def population():
    """Users with the language codes the issue names: fa, en, en-US, none, and one more (de)."""
    create_user(FA, first_name="علی", language_code="fa")
    create_user(EN, first_name="Ann", language_code="en")
    create_user(EN_US, first_name="Bob", language_code="en-US")
    create_user(NONE, first_name="", language_code=None)
    create_user(DE, first_name="Dora", language_code="de")


def texts(simulator, method="sendMessage"):
    """Return {chat: [texts]} the simulator delivered to each of the population."""
    return {uid: [d.get("text") if method == "sendMessage" else d.get("caption")
                  for d in simulator.deliveries(method, uid)] for uid in (FA, EN, EN_US, NONE, DE)}


def create(runner, *args):
    result = runner.invoke(args=["broadcast", "create", "--audience", "all", *args])
    return result


def pump(runner, job_id):
    result = runner.invoke(args=["broadcast", "pump", "--job", str(job_id), "--seconds", "10"])
    assert result.exit_code == 0, result.output


def test_each_recipient_gets_the_variant_of_their_language_else_the_default(tracked, runner, simulator):
    population()
    result = create(runner, "--text", "سلام {first_name} 🌹", "--variant", "en", "Hello <b>{first_name}</b>",
                    "--variant", "DE", "Hallo {first_name}", "--button-text", "Go", "--button-url",
                    "https://example.com/x", "--silent", "--protect")
    assert result.exit_code == 0, result.output
    job_id = int(result.stdout)
    pump(runner, job_id)
    assert reload(job_id).status == "completed"
    assert texts(simulator) == {FA: ["سلام علی 🌹"], EN: ["Hello <b>Ann</b>"], EN_US: ["Hello <b>Bob</b>"],
                                NONE: ["سلام کاربر 🌹"], DE: ["Hallo Dora"]}
    for uid in (FA, EN, EN_US, NONE, DE):
        [delivery] = simulator.deliveries("sendMessage", uid)
        # Every variant keeps the options and a tracked link button of its own recipient.
        assert delivery["disable_notification"] and delivery["protect_content"]
        [[button], [optout]] = delivery["reply_markup"]["inline_keyboard"]
        assert button["url"].startswith("https://bot.example.com/r/")
        assert optout["callback_data"] == unsubscribes.callback_data(job_id)
    status = json.loads(runner.invoke(args=["broadcast", "status", str(job_id)]).stdout)
    assert status["variants"]["default"]["total"] == 2 and status["variants"]["default"]["sent"] == 2
    assert status["variants"]["en"]["sent"] == 2 and status["variants"]["de"]["sent"] == 1
    ledger = runner.invoke(args=["broadcast", "export", str(job_id), "--csv", "-"])
    assert ledger.exit_code == 0, ledger.output
    rows = {int(r["user_id"]): r["variant"] for r in csv.DictReader(io.StringIO(ledger.stdout.lstrip("\ufeff")))}
    assert rows == {FA: "default", EN: "en", EN_US: "en", NONE: "default", DE: "de"}


def test_a_persian_variant_leaves_the_default_to_everyone_else(runner, simulator):
    population()
    job_id = int(create(runner, "--text", "Hello", "--variant", "fa", "سلام").stdout)
    pump(runner, job_id)
    assert texts(simulator) == {FA: ["سلام"], EN: ["Hello"], EN_US: ["Hello"], NONE: ["Hello"], DE: ["Hello"]}


def test_a_retry_keeps_each_recipients_variant(runner, simulator):
    population()
    simulator.state.set_chats("refuse", [EN_US, FA])
    job_id = int(create(runner, "--text", "پیام", "--variant", "en", "Message").stdout)
    pump(runner, job_id)
    assert json.loads(runner.invoke(args=["broadcast", "status", str(job_id)]).stdout)["failed"] == 2
    simulator.state.set_chats("restore", [EN_US, FA])
    again = runner.invoke(args=["broadcast", "retry", str(job_id)])
    assert again.exit_code == 0, again.output
    retry_id = int(again.stdout.split()[-1]) if not again.stdout.strip().isdigit() else int(again.stdout)
    pump(runner, retry_id)
    assert texts(simulator)[EN_US] == ["Message"] and texts(simulator)[FA] == ["پیام"]
    status = json.loads(runner.invoke(args=["broadcast", "status", str(retry_id)]).stdout)
    assert status["variants"]["en"]["sent"] == 1 and status["variants"]["default"]["sent"] == 1


def test_a_copied_photo_gets_each_variants_caption(runner, simulator):
    population()
    source = simulator.add_message(-1001234567890, caption="عکس روز", photo="p1")
    result = create(runner, "--copy-from", "-1001234567890", "--message-id", str(source), "--copied-media",
                    "--variant", "en", "Photo of the <i>day</i> 📷")
    assert result.exit_code == 0, result.output
    pump(runner, int(result.stdout))
    captions = texts(simulator, "copyMessage")
    assert captions[EN] == captions[EN_US] == ["Photo of the day 📷"]  # the simulator keeps the parsed caption
    assert captions[FA] == captions[NONE] == captions[DE] == ["عکس روز"]
    [english] = simulator.deliveries("copyMessage", EN)
    assert english["parse_mode"] == "HTML"


def test_a_copied_message_of_unknown_kind_takes_no_variant(runner, simulator):
    """A copied text message keeps its text (the caption is dropped): refused, so no language gets the wrong one."""
    population()
    source = simulator.add_message(-1001234567890, text="پیام روز")
    result = create(runner, "--copy-from", "-1001234567890", "--message-id", str(source),
                    "--variant", "en", "Message of the day")
    assert result.exit_code == 2, result.output
    [line] = result.stderr.strip().splitlines()
    assert "this one's kind is not known" in line and "--copied-media" in line
    assert runner.invoke(args=["broadcast", "list"]).stdout.strip() == "no broadcast jobs"
    assert simulator.deliveries("copyMessage") == []


def test_copied_media_goes_with_one_copied_message_only(runner, simulator):
    population()
    for args in (["--text", "x"], ["--copy-from", "-100123", "--message-ids", "5,6"]):
        result = create(runner, *args, "--copied-media")
        assert result.exit_code == 2, result.output
        assert "--copied-media goes with --copy-from and --message-id" in result.stderr


def test_the_engine_refuses_variants_of_an_unmarked_copy(app, simulator):
    from app.services.broadcast.content.variants import VariantRefused
    from app.services.broadcast.jobs import control, creation

    population()
    content = {"type": "copy", "from_chat_id": -100123, "message_id": 5}
    with pytest.raises(VariantRefused, match="kind is not known"):
        creation.create_job(audience="all", created_by=None, content=content, variants={"en": "Hi"})
    assert control.list_jobs() == []
    assert creation.create_job(audience="all", created_by=None, content={**content, "media": True},
                               variants={"en": "Hi"}).total_count == 5


@pytest.mark.parametrize(("args", "message"), [
    (["--text", "x", "--variant", "english", "y"], "--variant: language code 'english': two letters"),
    (["--text", "x", "--variant", "e1", "y"], "two letters such as en"),
    (["--text", "x", "--variant", "en", "a", "--variant", "EN", "b"], "the en variant is given twice"),
    (["--text", "x", *[a for c in "abcdefghi" for a in ("--variant", c + "z", "t" + c)]], "at most 8 language"),
    (["--text", "x", "--variant", "en", "<b>half"], "the en variant: broken HTML"),
    (["--text", "x", "--variant", "en", "a" * 4097], "4097 characters as Telegram counts them"),
    (["--text", "x", "--variant", "en", "   "], "the en variant: the en text is empty"),
    (["--text", "سلام", "--variant", "en", "سلام"], "the en variant is the same as the default text"),
    (["--copy-from", "-100123", "--message-id", "5", "--variant", "en", "b" * 1025], "at most 1024"),
    (["--copy-from", "-100123", "--message-id", "5", "--variant", "en", "Hi {first_name}"],
     "a copied message's caption cannot greet"),
    (["--copy-from", "-100123", "--message-ids", "5,6", "--variant", "en", "x"], "an album takes no language"),
])
def test_bad_variants_are_refused_with_the_reason_and_create_nothing(runner, simulator, args, message):
    population()
    result = create(runner, *args)
    assert result.exit_code == 2, result.output
    assert message in result.stderr
    assert runner.invoke(args=["broadcast", "list"]).stdout.strip() == "no broadcast jobs"


def sent_variant_job(runner, simulator):
    """A finished broadcast with an en variant and a greeting, delivered to the population."""
    population()
    job_id = int(create(runner, "--text", "سلام {first_name}", "--variant", "en", "Hi {first_name}").stdout)
    pump(runner, job_id)
    return job_id


def chat_texts(simulator) -> dict[int, str]:
    """Return {chat: text} of the bot's messages left in the population's chats."""
    people = {FA, EN, EN_US, NONE, DE}
    return {m["chat_id"]: m["text"] for m in simulator.bot_messages() if m["chat_id"] in people}


def test_edit_one_variant_leaves_the_others_copies_alone(runner, simulator):
    job_id = sent_variant_job(runner, simulator)
    result = runner.invoke(args=["broadcast", "edit", str(job_id), "--variant", "en", "Updated, {first_name}!"])
    assert result.exit_code == 0, result.output
    edit_id = int(result.stdout)
    pump(runner, edit_id)
    assert chat_texts(simulator) == {FA: "سلام علی", EN: "Updated, Ann!", EN_US: "Updated, Bob!",
                                     NONE: "سلام کاربر", DE: "سلام Dora"}
    status = json.loads(runner.invoke(args=["broadcast", "status", str(edit_id)]).stdout)
    assert status["total"] == 2 and status["variants"]["en"]["sent"] == 2
    assert status["variants"]["default"]["total"] == 0


def test_edit_every_variant_gives_each_its_own_text(runner, simulator):
    job_id = sent_variant_job(runner, simulator)
    result = runner.invoke(args=["broadcast", "edit", str(job_id), "--text", "تازه {first_name}",
                                 "--variant", "en", "New {first_name}"])
    assert result.exit_code == 0, result.output
    pump(runner, int(result.stdout))
    assert chat_texts(simulator) == {FA: "تازه علی", EN: "New Ann", EN_US: "New Bob", NONE: "تازه کاربر",
                                     DE: "تازه Dora"}


def test_the_default_text_alone_never_touches_a_variants_copies(runner, simulator):
    job_id = sent_variant_job(runner, simulator)
    result = runner.invoke(args=["broadcast", "edit", str(job_id), "--text", "فقط فارسی"])
    assert result.exit_code == 0, result.output
    pump(runner, int(result.stdout))
    assert chat_texts(simulator) == {FA: "فقط فارسی", EN: "Hi Ann", EN_US: "Hi Bob", NONE: "فقط فارسی",
                                     DE: "فقط فارسی"}


def test_edit_refuses_a_variant_the_broadcast_lacks_and_bad_input(runner, simulator):
    job_id = sent_variant_job(runner, simulator)
    missing = runner.invoke(args=["broadcast", "edit", str(job_id), "--variant", "de", "Neu"])
    assert missing.exit_code == 1 and f"job {job_id} has no de variant (its variants: en)" in missing.stderr
    nothing = runner.invoke(args=["broadcast", "edit", str(job_id)])
    assert nothing.exit_code == 2 and "give --text" in nothing.stderr
    broken = runner.invoke(args=["broadcast", "edit", str(job_id), "--variant", "en", "<i>x"])
    assert broken.exit_code == 2 and "--variant: broken HTML" in broken.stderr
    twice = runner.invoke(args=["broadcast", "edit", str(job_id), "--variant", "en", "a", "--variant", "EN", "b"])
    assert twice.exit_code == 2 and "each language once" in twice.stderr
    plain = int(create(runner, "--text", "بی‌نسخه").stdout)
    pump(runner, plain)
    none = runner.invoke(args=["broadcast", "edit", str(plain), "--variant", "en", "x"])
    assert none.exit_code == 1 and "has no language variants" in none.stderr
    assert "sent" not in chat_texts(simulator).values()


def test_unsend_deletes_every_variants_copies(runner, simulator):
    job_id = sent_variant_job(runner, simulator)
    result = runner.invoke(args=["broadcast", "unsend", str(job_id)])
    assert result.exit_code == 0, result.output
    unsend_id = int(result.stdout)
    pump(runner, unsend_id)
    assert chat_texts(simulator) == {}
    status = json.loads(runner.invoke(args=["broadcast", "status", str(unsend_id)]).stdout)
    assert status["variants"]["en"]["sent"] == 2 and status["variants"]["default"]["sent"] == 3
