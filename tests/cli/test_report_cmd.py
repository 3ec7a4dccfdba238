"""`flask broadcast report ID --png FILE | --json`: the bot's picture and its numbers, bad input refused in one line."""
from __future__ import annotations

import json

from matplotlib import image

from tests.broadcast.helpers import create_text_job, create_users
from tests.broadcast.results_job import EXPECTED, craft_job


def test_json_prints_the_pictures_numbers_and_png_writes_a_valid_picture(runner, tmp_path):
    job_id = craft_job()
    out = tmp_path / "r.png"
    result = runner.invoke(args=["broadcast", "report", str(job_id), "--png", str(out), "--json", "--lang", "en"])
    assert result.exit_code == 0, result.output
    numbers = json.loads(result.output)
    assert {key: numbers[key] for key in EXPECTED} == EXPECTED
    assert image.imread(str(out)).shape[:2] == (1250, 1000)


def test_bad_input_gets_one_line_and_exit_2(runner, tmp_path):
    job_id = craft_job()
    create_users(1, start=9_000_000_000)
    empty = create_text_job().id
    cases = [(["999", "--json"], "no broadcast job 999"),
             ([str(empty), "--json"], f"broadcast {empty} has delivered nothing yet"),
             ([str(job_id), "--png", str(tmp_path / "missing" / "r.png")], "cannot write"),
             ([str(job_id)], "--png FILE and/or --json")]
    for args, line in cases:
        result = runner.invoke(args=["broadcast", "report", *args])
        assert result.exit_code == 2, (args, result.output)
        assert line in result.output and result.output.count("\n") == 1, result.output
