"""cron/crontab.example and deploy/systemd/: the lines an operator pastes must work as written."""
from __future__ import annotations

import configparser
import re
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

from app.cli.pump_cmd import pump_command

ROOT = Path(__file__).resolve().parents[2]
UNITS = ROOT / "deploy/systemd"


def cron_lines() -> list[str]:
    """Return the active (uncommented) lines of the crontab example."""
    text = (ROOT / "cron/crontab.example").read_text()
    return [line for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")]


def test_crontab_example_is_one_every_minute_line_with_no_secret():
    (line,) = cron_lines()
    pattern = r"\* \* \* \* \* /bin/sh \$HOME/update_pack/cron/pump\.sh -q >> \$HOME/logs/\S+\.log 2>&1"
    assert re.fullmatch(pattern, line)
    assert "%" not in line  # cron turns % into a newline
    assert "token" not in line.lower()
    assert (ROOT / "cron/pump.sh").is_file() and (ROOT / "cron/pump.py").is_file()


def unit(name: str) -> configparser.ConfigParser:
    """Parse a unit file (systemd's syntax is close enough to INI for these files)."""
    parser = configparser.ConfigParser(strict=False, interpolation=None)
    parser.optionxform = str
    parser.read(UNITS / name)
    return parser


@pytest.mark.parametrize("name, expected", [
    ("update-pack-worker.service", ["broadcast", "pump", "--forever"]),
    ("update-pack-pump.service", ["broadcast", "pump", "--seconds"]),
])
def test_pump_units_run_valid_cli_commands(name, expected):
    argv = shlex.split(unit(name)["Service"]["ExecStart"])
    assert argv[:3] == ["/opt/update_pack/.venv/bin/flask", "--app", "wsgi"]
    assert argv[3:3 + len(expected)] == expected
    # Parse the options with the real command: a typo or an out-of-range value fails here.
    pump_command.make_context("pump", argv[5:])


def test_timer_starts_the_oneshot_pump_every_minute():
    timer = unit("update-pack-pump.timer")["Timer"]
    assert timer["OnCalendar"] == "*-*-* *:*:00" and timer["Unit"] == "update-pack-pump.service"
    assert unit("update-pack-pump.service")["Service"]["Type"] == "oneshot"


def test_web_unit_outlasts_a_pump_request():
    argv = shlex.split(unit("update-pack-web.service")["Service"]["ExecStart"])
    assert argv[-1] == "wsgi:app"
    assert int(argv[argv.index("--timeout") + 1]) > 54  # the largest cron_pump_seconds


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd-analyze is not installed")
def test_units_pass_systemd_analyze_verify(tmp_path):
    # Point the units at a stand-in app root whose executables exist, as on a real VPS.
    bin_dir = tmp_path / "opt/.venv/bin"
    bin_dir.mkdir(parents=True)
    for exe in ("flask", "gunicorn"):
        (bin_dir / exe).write_text("#!/bin/sh\n")
        (bin_dir / exe).chmod(0o755)
    files = []
    for src in sorted(UNITS.glob("update-pack-*")):
        if src.suffix in (".service", ".timer"):
            dst = tmp_path / src.name
            dst.write_text(src.read_text().replace("/opt/update_pack", str(tmp_path / "opt")))
            files.append(str(dst))
    result = subprocess.run(["systemd-analyze", "verify", *files], capture_output=True, text=True, timeout=60)
    problems = [line for line in (result.stdout + result.stderr).splitlines()
                if "update-pack" in line and "mariadb.service" not in line]
    assert result.returncode == 0 and not problems, result.stdout + result.stderr
