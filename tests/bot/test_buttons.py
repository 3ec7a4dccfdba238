"""Buttons are declared next to their handlers; the parser, the builder and the router read that one registry."""
import pytest

from app.bot import buttons, router
from app.bot.callback_data import SPEC, parse

# The wire format: prefix -> (action, argument kind, carries a draft token). Buttons already sent keep working.
WIRE = {
    "w.continue": ("continue", "id", False), "w.cancel_job": ("cancel_job", "id", False),
    "w.pause": ("pause", "id", False), "w.resume": ("resume", "id", False),
    "w.aud": ("aud", "audience", True), "w.no_button": ("no_button", None, True),
    "w.confirm": ("confirm", None, True), "w.abort": ("abort", None, True),
    "w.opt": ("toggle", "option", True), "w.sched": ("schedule", None, True), "w.at": ("at", "preset", True),
    "w.retime": ("retime", "id", False), "w.send_now": ("send_now", "id", False),
    "s.edit": ("edit_setting", "setting", False),
    "j.list": ("job_list", None, False), "j.view": ("job_view", "id", False),
    "j.retry": ("retry", "id", False), "j.retry_u": ("retry_unknown", "id", False),
    "j.export": ("export", "id", False), "j.unsend": ("unsend", "id", False), "j.edit": ("edit_all", "id", False),
    "a.yes": ("act_yes", None, True), "a.no": ("act_no", None, True),
    "r.ok": ("retry_ok", None, True), "r.no": ("retry_no", None, True),
    "w.src": ("toggle_source", "source", True),
    "w.var": ("add_variant", "variant", True), "a.ev": ("edit_variant", "edit_variant", True),
    # Under copies sent to users (and under /stop's answer): anyone may press them.
    "u.stop": ("optout", None, False), "u.sub": ("optin", None, False),
    "b.tap": ("tap", "signed", False),  # a broadcast's tag-on-tap button (app/bot/tap_button.py)
}


def test_the_wire_format_is_what_the_handlers_declare():
    parse("j.list")  # loads the handler modules
    assert SPEC == WIRE


def test_the_router_answers_every_declared_button_with_its_handler():
    for prefix, spec in buttons.BUTTONS.items():
        table = router.DRAFT_CALLBACKS if spec.bound else router.CALLBACKS
        assert table[spec.action] is spec.handler, prefix
    assert len(router.DRAFT_CALLBACKS) + len(router.CALLBACKS) == len(WIRE)


@pytest.mark.parametrize("prefix, action", [("j.view", "something_new"), ("j.new", "job_view")])
def test_a_prefix_or_action_declared_twice_is_refused(prefix, action):
    with pytest.raises(ValueError, match="declared twice"):
        buttons.button(prefix, action, arg="id")(lambda ctx, job_id: None)
    assert SPEC == WIRE
