"""Every place a broadcast's text comes from takes placeholders by one rule (content/placeholders.py).

A text the bot writes itself fills {first_name} and {field:…} for each
recipient; a copied message's caption goes out as it is, so any placeholder
there is refused; a "{field:" that is no placeholder is refused everywhere.
"""
import pytest
from telegram import Message

from app.bot import drafts
from app.cli.validate import text_problem
from app.models.broadcast import CONTENT_TEXT
from app.services.broadcast.ab import specs
from app.services.broadcast.content import variants
from app.services.broadcast.jobs import creation
from app.services.chains import manage
from app.services.chains.rules import parse_steps, parse_trigger
from app.simulator.updates import message_update

NAME, FIELD, TYPO = "Hi {first_name}", "Your plan: {field:plan}", "Your plan: {field:Plan}"
MEDIA_COPY = {"type": "copy", "from_chat_id": -100123, "message_id": 5, variants.MEDIA: True}


def _accepts(check, text: str) -> bool:
    """Run one entry's check: True when it takes the text, False when it refuses it (a ValueError)."""
    try:
        return check(text) is not False
    except ValueError:
        return False


def _wizard_text(text: str):
    """The wizard's main message: a text with placeholders becomes a text broadcast, a typo is refused."""
    message = Message.de_json(message_update(1001, text=text)["message"], None)
    content, _note = drafts.personalise(message, drafts.copy_draft(message))
    assert content["type"] == CONTENT_TEXT  # filled for each recipient, never copied as typed


def _chain_step(text: str):
    manage.create("welcome", parse_trigger("joined"), parse_steps([f"0|{text}"]))


WRITTEN_BY_THE_BOT = {
    "create --text (and --every)": lambda text: text_problem(text) is None,
    "the engine's text content": lambda text: creation.check_content("all", {"type": "text", "text": text},
                                                                     None, None, None),
    "a text's language version": lambda text: variants.check_cli_pairs(
        [("en", text)], {"type": "text", "text": "سلام"}),
    "an A/B text version": lambda text: specs.check([text, "Another version"]),
    "a chain step": _chain_step,
    "the wizard's text message": _wizard_text,
}
COPIED_AS_IT_IS = {
    "--copied-media --variant": lambda text: variants.check_cli_pairs([("en", text)], MEDIA_COPY),
    "the wizard's caption version": lambda text: variants.check({"en": text}, "copy"),
    "an A/B media version's caption": lambda text: specs.check([{"copy": 7, "caption": text}, "Another"]),
}


@pytest.mark.parametrize("entry", sorted(WRITTEN_BY_THE_BOT))
def test_a_text_the_bot_writes_fills_placeholders_and_refuses_a_typo(app, entry):
    check = WRITTEN_BY_THE_BOT[entry]
    assert [_accepts(check, text) for text in (NAME, FIELD, TYPO)] == [True, True, False]


@pytest.mark.parametrize("entry", sorted(COPIED_AS_IT_IS))
def test_a_caption_copied_as_it_is_refuses_every_placeholder(app, entry):
    check = COPIED_AS_IT_IS[entry]
    assert [_accepts(check, text) for text in (NAME, FIELD, TYPO, "Photo of the day")] == [
        False, False, False, True]


def test_the_cli_refuses_a_field_in_a_copied_media_caption_in_one_line(app, runner):
    result = runner.invoke(args=["broadcast", "create", "--audience", "all", "--copy-from", "-1001234567890",
                                 "--message-id", "5", "--copied-media", "--variant", "en", "plan {field:plan}"])
    assert result.exit_code == 2, result.output
    [line] = result.stderr.strip().splitlines()
    assert "the en variant: a copied message's caption cannot greet" in line
    assert "{field:plan} would reach every user as typed" in line


def test_the_wizards_caption_with_a_field_is_sent_as_typed_with_a_warning():
    message = Message.de_json(message_update(1001, photo=True, caption="plan {field:plan}")["message"], None)
    content, note = drafts.personalise(message, drafts.copy_draft(message))
    assert (content["type"], note) == ("copy", "wiz_cannot_personalise")
