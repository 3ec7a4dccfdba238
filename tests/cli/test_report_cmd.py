"""`flask broadcast report ID --png FILE | --json`: the bot's picture and its numbers, bad input refused in one line."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from matplotlib import image

from app.services.broadcast.reporting.numbers_line import numbers_line
from app.services.broadcast.reporting.results import compute
from tests.broadcast.helpers import create_text_job, create_users
from tests.broadcast.results_job import EXPECTED, craft_job
from tests.reliability.helpers import process_env

ROOT = Path(__file__).resolve().parents[2]


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


@pytest.mark.slow  # a fresh `flask` process, where tests/no_matplotlib makes `import matplotlib` fail
def test_png_without_matplotlib_prints_the_numbers_in_one_line_and_how_to_add_pictures(app, database_url, simulator,
                                                                                       tmp_path):
    job_id = craft_job()
    env = process_env(database_url, simulator)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, (str(ROOT / "tests" / "no_matplotlib"), env.get("PYTHONPATH"))))
    out = tmp_path / "r.png"
    done = subprocess.run([str(Path(sys.executable).parent / "flask"), "--app", "wsgi", "broadcast", "report",
                           str(job_id), "--png", str(out), "--lang", "en"], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "Traceback" not in done.stderr, done.stderr
    assert done.stdout == numbers_line(compute(job_id), "en", hint=True) + "\n"
    assert "pip install -r requirements-pictures.txt" in done.stdout and not out.exists()
