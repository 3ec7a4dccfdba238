"""A text every user gets as typed — a button's label, its answer, a copy text, an album's note — refuses placeholders.

One rule (content/placeholders.fixed) for every place such a text comes from:
the CLI's options, the wizard's button step and keyboard builder, an A/B
version's own keyboard, a chain's link button and the engine itself. The
refusal is one line naming the place.
"""
import pytest

from app.bot import drafts
from app.services.audience.tap import check_tap
from app.services.broadcast.ab import specs
from app.services.broadcast.content import keyboard
from app.services.broadcast.jobs import creation
from app.services.chains import manage
from app.services.chains.rules import parse_steps, parse_trigger
from tests.factories import create_users

NAME, FIELD, TYPO, PLAIN = "Hi {first_name}", "Plan {field:plan}", "{field:Plan}", "Tap here"
TEXT = {"type": "text", "text": "News"}


def _engine(**options):
    return lambda text: creation.check_content("all", TEXT, None, None, None, **{
        key: (value(text) if callable(value) else value) for key, value in options.items()})


def _kb(button: dict, note: str | None = None) -> dict:
    return {"rows": [[button]], **({"note": note} if note else {})}


ENTRIES = {
    "--key url label": lambda text: keyboard.parse_cli([f"url:{text}|https://example.com"]),
    "--key tap label": lambda text: keyboard.parse_cli([f"tap:{text}|vip"]),
    "--key tap answer": lambda text: keyboard.parse_cli([f"tap:Join|vip|{text}"]),
    "--key menu label": lambda text: keyboard.parse_cli([f"menu:{text}|Sat-Wed 9 to 17"]),
    "--key menu answer": lambda text: keyboard.parse_cli([f"menu:Hours|{text}"]),
    "--key copy label": lambda text: keyboard.parse_cli([f"copy:{text}|SALE20"]),
    "--key copy text": lambda text: keyboard.parse_cli([f"copy:Code|{text}"]),
    "--key note": lambda text: keyboard.parse_cli(["menu:Hours|9 to 17", f"note:{text}"]),
    "the wizard's keyboard builder (label)": lambda text: keyboard.parse_text(f"{text} - menu:9 to 17"),
    "the wizard's keyboard builder (answer)": lambda text: keyboard.parse_text(f"Hours - menu:{text}"),
    "the wizard's link button": lambda text: drafts.parse_url_button(f"{text} | https://example.com"),
    "the wizard's tap button (label)": lambda text: drafts.parse_tap_button(f"{text} | tag:vip"),
    "the wizard's tap button (answer)": lambda text: drafts.parse_tap_button(f"Join | tag:vip | {text}"),
    "the tap button's check": lambda text: check_tap({"text": "Join", "tag": "vip", "answer": text}, "text"),
    "the engine's link button": lambda text: creation.check_content(
        "all", TEXT, text, "https://example.com", None),
    "the engine's tap button": _engine(tap=lambda text: {"text": text, "tag": "vip"}),
    "the engine's keyboard": _engine(keyboard=lambda text: _kb({"kind": "menu", "text": "Hours", "answer": text})),
    "an A/B version's own keyboard": lambda text: specs.check(
        [{"text": "A", "keyboard": _kb({"kind": "tap", "text": text, "tag": "vip"})}, "B"]),
    "a chain's link button": lambda text: manage.create(
        "welcome", parse_trigger("joined"), parse_steps(["0|Welcome"]), button_text=text,
        button_url="https://example.com"),
}


def _accepts(check, text: str) -> bool:
    try:
        check(text)
    except ValueError:
        return False
    return True


@pytest.mark.parametrize("entry", sorted(ENTRIES))
def test_every_text_sent_as_typed_refuses_placeholders(app, entry):
    assert [_accepts(ENTRIES[entry], text) for text in (NAME, FIELD, TYPO, PLAIN)] == [False, False, False, True]


@pytest.mark.parametrize(("options", "line"), [
    (["--key", "menu:Hours|Hello {first_name}"],
     "--key: row 1, button 1: the button's answer: {first_name} would reach every user as typed"),
    (["--key", "tap:{field:plan}|vip"], "--key: row 1, button 1: the button's label: {field:plan} would reach"),
    (["--button-text", "Hi {first_name}", "--button-url", "https://example.com"],
     "--button-text: the link button's text: {first_name} would reach every user as typed"),
    (["--tap-button", "Join", "--tap-tag", "vip", "--tap-answer", "Thanks {first_name}"],
     "the tap button's answer: {first_name} would reach every user as typed"),
])
def test_the_cli_refuses_in_one_line_naming_the_place(app, runner, options, line):
    create_users([7001])
    result = runner.invoke(args=["broadcast", "create", "--audience", "all", "--text", "News", *options])
    assert result.exit_code == 2, result.output
    [said] = result.stderr.strip().splitlines()
    assert line in said
