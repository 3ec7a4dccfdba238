"""The demo's progress: redrawn with \\r on a terminal, plain throttled lines in a pipe or a CI log."""
from __future__ import annotations

import base64
import io
import os
import subprocess
import sys
from pathlib import Path

import pytest

from app.demo import Progress, save_picture

ROOT = Path(__file__).resolve().parents[1]


class Terminal(io.StringIO):
    """A stream that says it is a terminal."""

    def isatty(self) -> bool:
        return True


def drive(stream, times: list[float]) -> None:
    """Update a Progress at the given clock readings (line i says "step i"), then end it."""
    now = [0.0]
    progress = Progress(stream, every=2.0, clock=lambda: now[0])
    for i, moment in enumerate(times):
        now[0] = moment
        progress.update(f"step {i}")
    progress.end()


def test_not_a_terminal_gets_one_plain_line_per_two_seconds_and_the_last_update():
    out = io.StringIO()
    drive(out, [0.0, 0.5, 1.9, 2.0, 2.1, 3.0, 9.0, 9.5])
    assert "\r" not in out.getvalue()
    assert out.getvalue().splitlines() == ["step 0", "step 3", "step 6", "step 7"]


def test_a_final_update_the_throttle_passed_is_not_printed_twice():
    out = io.StringIO()
    drive(out, [0.0, 5.0])
    assert out.getvalue().splitlines() == ["step 0", "step 1"]


def test_a_terminal_redraws_one_line_in_place():
    out = Terminal()
    drive(out, [0.0, 0.5, 1.0])
    assert out.getvalue() == "\rstep 0\rstep 1\rstep 2\n"


def test_the_picture_is_saved_beside_the_database_and_its_path_returned(tmp_path):
    png = b"\x89PNG\r\n\x1a\n" + b"\0" * 64
    path = save_picture({"photo_base64": base64.b64encode(png).decode()}, str(tmp_path))
    assert path == str(tmp_path / "demo_results.png") and Path(path).read_bytes() == png


@pytest.mark.slow  # the whole demo in a child process
def test_the_demo_piped_to_a_file_prints_plain_progress_lines(tmp_path):
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    env.pop("TEST_DATABASE_URL", None)  # the demo is SQLite-only, in the file given here
    result = subprocess.run([sys.executable, "-m", "app.demo", "--users", "30", "--latency-ms", "0", "--tick", "1",
                             "--database", str(tmp_path / "demo.sqlite3")],
                            cwd=ROOT, env=env, capture_output=True, timeout=120)
    # Bytes, decoded by hand: text=True would turn every \r into a newline.
    stdout = result.stdout.decode("utf-8")
    assert result.returncode == 0, stdout + result.stderr.decode("utf-8", "replace")
    assert "\r" not in stdout
    lines = stdout.split("\n")
    registering = [line for line in lines if line.startswith("  registering ")]
    pumping = [line for line in lines if line.startswith("  cron pumping ")]
    assert registering and registering[-1].endswith(" 30/30")
    assert pumping and " 31/31 " in pumping[-1] and "sent=30 " in pumping[-1]
    assert "counts match the simulator's own record" in lines[-3] and lines[-1] == ""
    assert lines[-2].startswith("6. The admin got the results picture after the summary (")
    picture = tmp_path / "demo_results.png"
    assert f"saved as {picture}" in lines[-2] and picture.read_bytes().startswith(b"\x89PNG")
    assert (tmp_path / "demo.sqlite3").exists()


@pytest.mark.slow  # the whole demo in a child process where tests/no_matplotlib makes `import matplotlib` fail
def test_the_demo_without_matplotlib_gives_the_results_as_text_and_how_to_add_pictures(tmp_path):
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "PYTHONPATH": str(ROOT / "tests" / "no_matplotlib")}
    env.pop("TEST_DATABASE_URL", None)
    result = subprocess.run([sys.executable, "-m", "app.demo", "--users", "10", "--latency-ms", "0", "--tick", "1",
                             "--database", str(tmp_path / "demo.sqlite3")],
                            cwd=ROOT, env=env, capture_output=True, timeout=120)
    stdout, stderr = result.stdout.decode("utf-8"), result.stderr.decode("utf-8", "replace")
    assert result.returncode == 0, stdout + stderr
    assert "Traceback" not in stdout + stderr
    last = stdout.split("\n")[-2]
    assert last.startswith("6. The admin got the results as text (no matplotlib): 📊 #"), last
    assert last.endswith("pip install -r requirements-pictures.txt)")
