"""`flask chains create | list | show | pause | resume | stop`: what it stores, shows and refuses."""
import json

import pytest
from sqlalchemy import func, select

from app.extensions import db
from app.models import Chain, ChainStep


def create(runner, *args):
    return runner.invoke(args=["chains", "create", "welcome", *args])


def count(model) -> int:
    n = db.session.execute(select(func.count()).select_from(model)).scalar_one()
    db.session.commit()
    return n


def test_create_show_list_with_persian_digits_and_a_button(runner):
    made = create(runner, "--trigger", "tag:VIP", "--step", "0|<b>سلام</b> {first_name}", "--step",
                  "۲h|Day two", "--step", "3d|Day <i>three</i>", "--button-text", "Open",
                  "--button-url", "https://example.com/a", "--json")
    assert made.exit_code == 0, made.output
    chain = json.loads(made.output)
    assert (chain["status"], chain["trigger"], chain["button_url"]) == ("active", "tag:vip", "https://example.com/a")
    assert [(s["position"], s["delay"]) for s in chain["steps"]] == [(1, "0"), (2, "2h"), (3, "3d")]
    assert chain["steps"][0]["delivered"] == 0 and chain["steps"][0]["claimed"] == 0
    shown = runner.invoke(args=["chains", "show", str(chain["id"])]).output
    assert "trigger tag:vip" in shown and "DELIVERED" in shown
    [row] = json.loads(runner.invoke(args=["chains", "list", "--json"]).output)
    assert row["id"] == chain["id"]
    assert "welcome" in runner.invoke(args=["chains", "list"]).output
    plain = create(runner, "--trigger", "joined", "--step", "30m|Hi")
    assert plain.exit_code == 0 and plain.stdout.strip().isdigit()


def test_pause_resume_stop_from_the_shell(runner):
    chain_id = create(runner, "--trigger", "inactive:30", "--step", "0|Back?").stdout.strip()
    assert runner.invoke(args=["chains", "pause", chain_id]).output == f"chain {chain_id} paused\n"
    refused = runner.invoke(args=["chains", "pause", chain_id])
    assert refused.exit_code == 1 and "is paused; it cannot be paused" in refused.output
    resumed = runner.invoke(args=["chains", "resume", chain_id, "--json"])
    assert json.loads(resumed.output) == {"id": int(chain_id), "status": "active"}
    assert runner.invoke(args=["chains", "stop", chain_id]).exit_code == 0
    refused = runner.invoke(args=["chains", "resume", chain_id])
    assert refused.exit_code == 1 and "is stopped" in refused.output
    assert runner.invoke(args=["chains", "show", "999"]).exit_code == 1
    assert runner.invoke(args=["chains", "stop", "999"]).exit_code == 1


@pytest.mark.parametrize("args, message", [
    (["--trigger", "birthday", "--step", "0|x"], "trigger 'birthday': give joined, source:X"),
    (["--trigger", "inactive:soon", "--step", "0|x"], "give a number of days"),
    (["--trigger", "source:bad source", "--step", "0|x"], "a source is 1-64"),
    (["--trigger", "tag:a,b", "--step", "0|x"], "contains a comma"),
    (["--trigger", "clicked:424242", "--step", "0|x"], "no broadcast job 424242"),
    (["--trigger", "joined"], "at least one --step"),
    (["--trigger", "joined", "--step", "soon|x"], "delay 'soon'"),
    (["--trigger", "joined", "--step", "2w|x"], "delay '2w'"),
    (["--trigger", "joined", "--step", "400d|x"], "over a year"),
    (["--trigger", "joined", "--step", "no delay"], 'give "DELAY|TEXT"'),
    (["--trigger", "joined", "--step", "0|<b>open"], "step 1:"),
    (["--trigger", "joined", "--step", "0|ok", "--step", "1h|" + "x" * 5000], "step 2:"),
    (["--trigger", "joined", "--step", "0|ok", "--button-text", "Go"], "a button needs both"),
    (["--trigger", "joined", "--step", "0|ok", "--button-text", "Go", "--button-url", "http://x"], "button URL"),
])
def test_bad_input_is_one_line_and_stores_nothing(runner, args, message):
    refused = create(runner, *args)
    assert refused.exit_code == 2, refused.output
    assert message in refused.output and refused.output.count("\n") == 1
    assert "Traceback" not in refused.output
    assert count(Chain) == 0 and count(ChainStep) == 0
