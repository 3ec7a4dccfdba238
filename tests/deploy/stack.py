"""Build and tear down a cPanel-like account: app folder, venv, MariaDB database, the simulated Bot API."""
from __future__ import annotations

import os
import re
import secrets
import shutil
import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote

REPO = Path(__file__).resolve().parents[2]
SYSTEM_PYTHON = "/usr/bin/python3"
# What cron gives a job: a minimal environment, not the caller's.
CRON_PATH = "/usr/bin:/bin"


class DeployError(RuntimeError):
    """A deployment step failed; the message says which and why."""


@dataclass
class Layout:
    """Where everything lives: an account home laid out as cPanel lays it out."""

    root: Path
    user: str = "www-data"
    group: str = "www-data"
    pyver: str = field(default_factory=lambda: _system_python_version())

    @property
    def home(self) -> Path:
        return self.root / "home"

    @property
    def app_root(self) -> Path:
        return self.home / "update_pack"

    @property
    def venv(self) -> Path:
        # cPanel's own place for the venv of the app in ~/update_pack.
        return self.home / "virtualenv" / "update_pack" / self.pyver

    @property
    def python(self) -> Path:
        return self.venv / "bin" / "python"

    @property
    def public_html(self) -> Path:
        return self.home / "public_html"

    @property
    def server_dir(self) -> Path:
        return self.root / "apache"

    @property
    def cron_conf(self) -> Path:
        return self.home / ".update_pack_pump.conf"

    @property
    def cron_log(self) -> Path:
        return self.home / "logs" / "update_pack_pump.log"

    @property
    def error_log(self) -> Path:
        return self.server_dir / "logs" / "error.log"


def _system_python_version() -> str:
    out = subprocess.run([SYSTEM_PYTHON, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
                         capture_output=True, text=True, check=True)
    return out.stdout.strip()


def run(argv: list, *, log: Path | None = None, check: bool = True, timeout: float = 300, **kwargs):
    """Run a command; on failure raise with the tail of its output."""
    proc = subprocess.run([str(a) for a in argv], capture_output=True, text=True, timeout=timeout, **kwargs)
    if log is not None:
        with open(log, "a") as fh:
            fh.write(f"$ {' '.join(map(str, argv))}\n{proc.stdout}{proc.stderr}\n")
    if check and proc.returncode != 0:
        tail = (proc.stdout + proc.stderr)[-2000:]
        raise DeployError(f"{' '.join(map(str, argv[:4]))} ... exited {proc.returncode}:\n{tail}")
    return proc



def wait_for_port(port: int, timeout: float = 15.0) -> None:
    """Wait until something accepts connections on the loopback port."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            if time.monotonic() > deadline:
                raise DeployError(f"nothing listens on 127.0.0.1:{port} after {timeout:.0f} s") from None
            time.sleep(0.1)


# ---------------------------------------------------------------- the account's files

def repo_files() -> list[str]:
    """List the files a deployment ships: tracked and new, never ignored ones (.venv, instance/)."""
    out = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                         cwd=REPO, capture_output=True, check=True)
    return [name for name in out.stdout.decode().split("\0") if name and (REPO / name).is_file()]


def install_app(layout: Layout) -> int:
    """Copy the repository to ~/update_pack as an upload would; return the file count."""
    files = repo_files()
    for name in files:
        target = layout.app_root / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(REPO / name, target)
    # cPanel creates public/ (Passenger serves static files from it) and tmp/ (restart.txt).
    for folder in (layout.app_root / "public", layout.app_root / "tmp", layout.public_html):
        folder.mkdir(parents=True, exist_ok=True)
    (layout.cron_log.parent).mkdir(parents=True, exist_ok=True)
    return len(files)


def build_venv(layout: Layout, log: Path) -> None:
    """Create the venv from the system Python and install requirements.txt, as cPanel's pip does."""
    layout.venv.parent.mkdir(parents=True, exist_ok=True)
    run([SYSTEM_PYTHON, "-m", "venv", layout.venv], log=log)
    run([layout.python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
         "-r", layout.app_root / "requirements.txt"], log=log, timeout=600)
    # Bytecode now: the app user could write it, but a cold start should not have to.
    run([layout.python, "-m", "compileall", "-q", layout.app_root / "app", layout.app_root / "wsgi.py"], log=log)


def hand_to_account(layout: Layout) -> None:
    """Give the account user its home; others may only pass through (cPanel: 711)."""
    run(["chown", "-R", f"{layout.user}:{layout.group}", layout.home])
    os.chmod(layout.root, 0o755)
    os.chmod(layout.home, 0o711)


def account_env(layout: Layout, app_env: dict | None = None) -> dict:
    """Return cron's environment for the account user, plus the app's variables if given."""
    env = {"HOME": str(layout.home), "LOGNAME": layout.user, "SHELL": "/bin/sh", "PATH": CRON_PATH,
           "LANG": "C.UTF-8"}
    env.update(app_env or {})
    return env


def as_account(layout: Layout, argv: list, env: dict, **kwargs):
    """Run argv as the account user with exactly env (nothing of ours leaks in)."""
    pairs = [f"{k}={v}" for k, v in env.items()]
    return run(["runuser", "-u", layout.user, "--", "env", "-i", *pairs, *argv], **kwargs)


def flask(layout: Layout, app_env: dict, *args, log: Path | None = None, check: bool = True):
    """Run `flask --app wsgi ...` in the app folder as the account user, as in cPanel's terminal."""
    env = account_env(layout, app_env)
    env["PATH"] = f"{layout.venv / 'bin'}:{CRON_PATH}"
    return as_account(layout, [layout.venv / "bin" / "flask", "--app", "wsgi", *args], env,
                      cwd=layout.app_root, log=log, check=check, timeout=120)


# ---------------------------------------------------------------- MariaDB

@dataclass
class Database:
    """A fresh database and its own user, as cPanel's MySQL Databases page creates them."""

    name: str
    user: str
    password: str
    host: str = "127.0.0.1"
    port: int = 3306

    @property
    def url(self) -> str:
        # Percent-encode the password: cPanel's generated ones contain @ # % and friends.
        return (f"mysql+pymysql://{self.user}:{quote(self.password, safe='')}@{self.host}:{self.port}/"
                f"{self.name}?charset=utf8mb4")


def admin_connection(host: str, port: int):
    """Connect to MariaDB as its administrator (root with no password on this machine)."""
    import pymysql

    return pymysql.connect(host=host, port=port, user=os.environ.get("UPK_DEPLOY_MYSQL_USER", "root"),
                           password=os.environ.get("UPK_DEPLOY_MYSQL_PASSWORD", ""), autocommit=True)


def create_database(host: str = "127.0.0.1", port: int = 3306) -> Database:
    """Create deploy_<random> and a user of the same name with rights on it only."""
    name = "deploy_" + secrets.token_hex(5)
    # Characters that break unencoded URLs on purpose; no quote or backslash (SQL literal).
    password = "Pw@" + secrets.token_hex(6) + "#%:/"
    db = Database(name, name, password, host, port)
    conn = admin_connection(host, port)
    try:
        with conn.cursor() as cur:
            cur.execute(f"CREATE DATABASE `{name}` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci")
            for client_host in ("127.0.0.1", "localhost"):
                cur.execute(f"CREATE USER '{name}'@'{client_host}' IDENTIFIED BY %s", (password,))
                cur.execute(f"GRANT ALL PRIVILEGES ON `{name}`.* TO '{name}'@'{client_host}'")
    finally:
        conn.close()
    return db


def drop_database(db: Database) -> None:
    """Drop the database and its users."""
    conn = admin_connection(db.host, db.port)
    try:
        with conn.cursor() as cur:
            cur.execute(f"DROP DATABASE IF EXISTS `{db.name}`")
            for client_host in ("127.0.0.1", "localhost"):
                cur.execute(f"DROP USER IF EXISTS '{db.user}'@'{client_host}'")
    finally:
        conn.close()


# ---------------------------------------------------------------- the simulated Bot API

class Simulator:
    """`python -m app.simulator` in a process of its own, as Telegram is to the app."""

    def __init__(self, token: str, log: Path):
        self._log = open(log, "a")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "app.simulator", "--port", "0", "--token", token],
            cwd=REPO, stdout=subprocess.PIPE, stderr=self._log, text=True)
        line = self.proc.stdout.readline().strip()
        match = re.search(r"listening on (http://\S+)", line)
        if not match:
            self.stop()
            raise DeployError(f"simulator did not start: {line!r}")
        self.base_url = match.group(1)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
        self._log.close()
