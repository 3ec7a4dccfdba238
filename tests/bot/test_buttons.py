"""Buttons are declared in one table; each handler module attaches its handler; parser, builder and router read it."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

from app.bot import buttons, router
from app.bot.callback_data import DECLARED, SPEC, declare, parse

ROOT = Path(__file__).resolve().parents[2]
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
    "j.auto": ("job_automated", None, False),  # /jobs' automated jobs (chain steps, recurring occurrences)
    "j.retry": ("retry", "id", False), "j.retry_u": ("retry_unknown", "id", False),
    "j.export": ("export", "id", False), "j.unsend": ("unsend", "id", False), "j.edit": ("edit_all", "id", False),
    "a.yes": ("act_yes", None, True), "a.no": ("act_no", None, True),
    "r.ok": ("retry_ok", None, True), "r.no": ("retry_no", None, True),
    "w.src": ("toggle_source", "source", True),
    "w.var": ("add_variant", "variant", True), "a.ev": ("edit_variant", "edit_variant", True),
    "j.chart": ("chart", "id", False),
    "ab.pick": ("ab_pick", "ab_pick", False),
    "w.ab": ("ab_start", None, True), "w.abv": ("ab_done", None, True),
    "w.abs": ("ab_share", "ab_share", True), "w.abw": ("ab_wait", "ab_wait", True),
    "w.abg": ("ab_goal", "ab_goal", True),
    "rc.pause": ("rec_pause", "id", False), "rc.resume": ("rec_resume", "id", False),
    "rc.stop": ("rec_stop", "id", False), "rc.stop_yes": ("rec_stop_yes", "id", False),
    "rc.back": ("rec_back", "id", False),
    "ch.pause": ("chain_pause", "id", False), "ch.resume": ("chain_resume", "id", False),
    "ch.stop": ("chain_stop", "id", False), "ch.stop_yes": ("chain_stop_yes", "id", False),
    "ch.back": ("chain_back", "id", False),
    # Saved segments (app.bot.segment_step): a list page or a segment id, bound to the draft or the preview.
    "w.segs": ("segments", "id", True), "w.seg": ("segment", "id", True),
    "w.xsegs": ("exclude_list", "id", True), "w.xseg": ("exclude_toggle", "id", True),
    "j.pin": ("pin", "id", False), "j.unpin": ("unpin", "id", False), "j.exp": ("expire", "id", False),
    "a.pns": ("pin_silent", None, True), "a.pnn": ("pin_notify", None, True), "a.upy": ("unpin_yes", None, True),
    "a.exh": ("expire_hours", "id", True), "a.exo": ("expire_off", None, True),
    # Under copies sent to users (and under /stop's answer): anyone may press them.
    "u.off": ("unsubscribe", "signed", False),  # signed; the two older forms below only opt out (subscription.py)
    "u.stop": ("optout", None, False), "u.out": ("optout_job", "id", False), "u.sub": ("optin", None, False),
    "b.tap": ("tap", "signed", False),  # a broadcast's tag-on-tap button (app/bot/tap_button.py)
    "b.key": ("key_press", "keyed", False), "w.kp": ("key_preview", None, False),  # keyboards (tap_button.py)
}


def test_the_wire_format_is_what_the_table_declares():
    assert parse("j.list") == ("job_list", None, None)
    assert SPEC == WIRE


def test_the_router_answers_every_declared_button_with_its_handler():
    for prefix, spec in buttons.BUTTONS.items():
        table = router.DRAFT_CALLBACKS if spec.bound else router.CALLBACKS
        assert table[spec.action] is spec.handler, prefix
        assert spec[:4] == (prefix, *WIRE[prefix])
    assert len(router.DRAFT_CALLBACKS) + len(router.CALLBACKS) == len(WIRE)


@pytest.mark.parametrize("prefix, action", [("j.view", "something_new"), ("j.new", "job_view")])
def test_a_prefix_or_action_declared_twice_is_refused(prefix, action):
    with pytest.raises(ValueError, match="declared twice"):
        declare((*DECLARED, (prefix, action, "id", False)))
    assert SPEC == WIRE


def test_an_unknown_argument_kind_is_refused():
    with pytest.raises(ValueError, match="unknown argument kind 'job'"):
        declare((("j.new", "something_new", "job", False),))


def test_a_handler_for_an_undeclared_prefix_or_a_second_one_is_refused():
    with pytest.raises(ValueError, match="'j.new' is not declared"):
        buttons.button("j.new")
    with pytest.raises(ValueError, match="'j.view' already has a handler: on_job_view"):
        buttons.button("j.view")(lambda ctx, job_id: None)
    assert buttons.BUTTONS["j.view"].handler is router.CALLBACKS["job_view"]


def test_a_declared_button_without_a_handler_is_named(monkeypatch):
    monkeypatch.delitem(buttons.BUTTONS, "j.export")
    with pytest.raises(LookupError, match="without a handler .*: j.export$"):
        buttons.handled()


def test_the_router_refuses_to_load_with_a_declared_button_nobody_handles():
    code = ("from app.bot import callback_data as c\n"
            "c.SPEC['j.orphan'] = ('orphan', 'id', False)\n"
            "import app.bot.router\n")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode != 0
    assert "LookupError: buttons declared without a handler" in done.stderr and "j.orphan" in done.stderr
