"""Our own Apache + Passenger server, configured from the templates in deploy/apache/."""
from __future__ import annotations

import os
import re
import signal
import time
from dataclasses import dataclass
from pathlib import Path

from tests.deploy.stack import REPO, DeployError, Layout, run, wait_for_port

TEMPLATES = REPO / "deploy" / "apache"
APACHE = "/usr/sbin/apache2"
MODULES_DIR = "/usr/lib/apache2/modules"


def render(template: str, values: dict) -> str:
    """Fill @NAME@ placeholders; a placeholder left unfilled is an error."""
    text = (TEMPLATES / template).read_text()
    for key, value in values.items():
        text = text.replace(f"@{key}@", str(value))
    left = sorted(set(re.findall(r"@[A-Z_]+@", text)))
    if left:
        raise DeployError(f"{template}: no value for {', '.join(left)}")
    return text


def setenv_lines(app_env: dict, indent: str = "") -> str:
    """Render SetEnv lines, quoted the way Apache reads them."""
    def quoted(value: str) -> str:
        return '"' + str(value).replace("\\", "\\\\").replace('"', '\\"') + '"'

    return "\n".join(f"{indent}SetEnv {key} {quoted(value)}" for key, value in app_env.items())


def passenger_root() -> str:
    """Return the locations.ini Debian's Passenger package installed."""
    return run(["passenger-config", "--root"]).stdout.strip()


@dataclass
class Apache:
    """One Apache server of our own: config under layout.server_dir, its own port and pid file."""

    layout: Layout
    port: int
    max_pool_size: int = 4
    pool_idle_time: int = 2
    min_instances: int = 0
    mount: str = "/"

    @property
    def conf(self) -> Path:
        return self.layout.server_dir / "httpd.conf"

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def write_config(self, mount: str, app_env: dict) -> None:
        """Write httpd.conf and site.conf (the app at "/" or under "/NAME") from deploy/apache/."""
        d = self.layout.server_dir
        for sub in ("logs", "run", "passenger"):
            (d / sub).mkdir(parents=True, exist_ok=True)
        common = {"SERVER_DIR": d, "PORT": self.port}
        self.conf.write_text(render("httpd.conf.in", {
            **common, "APACHE_USER": "nobody", "APACHE_GROUP": "nogroup", "MODULES_DIR": MODULES_DIR,
            "PASSENGER_ROOT": passenger_root(), "MAX_POOL_SIZE": self.max_pool_size,
            "POOL_IDLE_TIME": self.pool_idle_time}))
        site = {**common, "SERVER_NAME": "bot.example.test", "APP_ROOT": self.layout.app_root,
                "PYTHON": self.layout.python, "APP_USER": self.layout.user, "APP_GROUP": self.layout.group,
                "MIN_INSTANCES": self.min_instances}
        if mount == "/":
            text = render("site-root.conf.in", {**site, "SETENV": setenv_lines(app_env, "    ")})
        else:
            text = render("site-subpath.conf.in", {**site, "MOUNT": mount.strip("/"),
                                                   "DOC_ROOT": self.layout.public_html,
                                                   "SETENV": setenv_lines(app_env, "        ")})
        # The site holds the secrets: root only, as a host keeps its vhost files.
        site_conf = d / "site.conf"
        site_conf.write_text(text)
        os.chmod(site_conf, 0o600)
        self.mount = mount

    def _ctl(self, action: str) -> None:
        # Apache, Passenger and the app one notch below the simulator, which stands
        # in for Telegram's servers (a busy host does not slow those down); the
        # test judges arrivals there, as Telegram does.
        run(["nice", "-n", "5", APACHE, "-f", self.conf, "-k", action], timeout=60)

    def start(self) -> None:
        run([APACHE, "-f", self.conf, "-t"])
        self._ctl("start")
        wait_for_port(self.port)

    def graceful(self) -> None:
        """Reload the configuration (what a host does after a change; Passenger restarts the app)."""
        self._ctl("graceful")
        time.sleep(1.0)
        wait_for_port(self.port)

    def pid(self) -> int | None:
        try:
            return int((self.layout.server_dir / "httpd.pid").read_text().strip())
        except (OSError, ValueError):
            return None

    def stop(self, extra_pids: set[int] = frozenset()) -> None:
        """Stop Apache (Passenger stops its app processes), then any app pid we saw that lingers."""
        pid = self.pid()
        if pid is not None:
            run([APACHE, "-f", self.conf, "-k", "stop"], check=False, timeout=60)
            deadline = time.monotonic() + 15
            while self._ours(pid) and time.monotonic() < deadline:
                time.sleep(0.2)
            if self._ours(pid):
                os.kill(pid, signal.SIGKILL)
        for app_pid in extra_pids:
            if self._ours(app_pid):
                os.kill(app_pid, signal.SIGKILL)

    def _ours(self, pid: int) -> bool:
        """Tell whether pid is a live process of this deployment (a reused pid is someone else's)."""
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            return False
        return str(self.layout.root) in cmdline and _alive(pid)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # A zombie still answers kill(0); it holds nothing, so count it as gone.
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(") ", 1)[1][0] != "Z"
    except (OSError, IndexError):
        return False
