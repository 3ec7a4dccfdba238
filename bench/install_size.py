"""The production virtualenv's size on disk: requirements.txt alone, and with the pictures extra beside it.

A host's app virtualenv has pip and setuptools (cPanel's "Setup Python App"
makes one with both), so the venv is made by `python -m venv` (pip included)
plus setuptools, then `pip install -r requirements.txt`; the second adds
`pip install -r requirements-pictures.txt`. Counted: MB of file contents
(du's apparent size), files, and inodes (files + directories: CloudLinux's
inode limit counts both), byte-compiled as pip leaves them.

    .venv/bin/python -m bench.install_size [--python python3]
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bench.output import print_table, write_results

ROOT = Path(__file__).resolve().parents[1]
COLUMNS = ["venv", "mb", "files", "inodes", "heaviest (MB)", "install_s"]
GOALS = {"mb": 90, "files": 4500}


def measure(venv: Path) -> dict:
    """Return the venv's bytes, files and inodes, and its five heaviest top-level site-packages entries."""
    size = files = dirs = 0
    for _root, names, leaves in os.walk(venv):
        dirs += len(names)
        for leaf in leaves:
            path = Path(_root) / leaf
            files += 1
            if not path.is_symlink():
                size += path.stat().st_size
    [site] = list(venv.glob("lib/python*/site-packages"))
    heavy = sorted(((sum(p.stat().st_size for p in e.rglob("*") if p.is_file() and not p.is_symlink())
                     if e.is_dir() else e.stat().st_size, e.name) for e in site.iterdir()), reverse=True)[:5]
    return {"mb": round(size / 1e6, 1), "files": files, "inodes": files + dirs + 1,
            "heaviest (MB)": ", ".join(f"{name} {b / 1e6:.0f}" for b, name in heavy)}


def pip(venv: Path, *args: str) -> None:
    """Run the venv's own pip quietly; fail with its output."""
    done = subprocess.run([str(venv / "bin/python"), "-m", "pip", "install", "--quiet", *args], cwd=ROOT,
                          capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"pip install {' '.join(args)} failed:\n{done.stdout[-2000:]}{done.stderr[-2000:]}")


def build(python: str, where: Path, pictures: bool) -> dict:
    """Make a host-like venv with requirements.txt (and the pictures extra); return its measure."""
    venv = where / ("pictures" if pictures else "core")
    start = time.monotonic()
    subprocess.run([python, "-m", "venv", str(venv)], check=True)
    pip(venv, "setuptools")
    pip(venv, "-r", str(ROOT / "requirements.txt"))
    if pictures:
        pip(venv, "-r", str(ROOT / "requirements-pictures.txt"))
    row = {"venv": "core + pictures" if pictures else "core (requirements.txt)", **measure(venv)}
    row["install_s"] = round(time.monotonic() - start, 1)
    return row


def main(argv: list[str] | None = None) -> int:
    """Build both venvs in a temporary directory and print their sizes side by side."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--python", default=sys.executable, help="the interpreter the venvs are made from")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="upk-venv-") as tmp:
        rows = [build(args.python, Path(tmp), pictures) for pictures in (False, True)]
    print_table(rows, COLUMNS, "Production virtualenv on disk (goal for core: ≤ 90 MB, ≤ 4,500 files)")
    core = rows[0]
    fits = core["mb"] <= GOALS["mb"] and core["files"] <= GOALS["files"]
    print(f"core {'fits' if fits else 'does NOT fit'} the goal; the pictures extra adds "
          f"{rows[1]['mb'] - core['mb']:.1f} MB and {rows[1]['files'] - core['files']} files")
    write_results("install_size", args, rows, goals=GOALS)
    return 0 if fits else 1


if __name__ == "__main__":
    sys.exit(main())
