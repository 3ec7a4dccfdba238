#!/usr/bin/env python3
"""Pump the Update Pack broadcast engine once, for hosts without curl (standard library only).

Usage: pump.py [-q] [CONFIG]    (CONFIG defaults to $HOME/.update_pack_pump.conf)

CONFIG is the same file cron/pump.sh reads (chmod 600), two lines:
    URL=https://bot.example.com/internal/pump
    TOKEN=<the app's PUMP_TOKEN>
The token travels in an Authorization header and never in argv or the URL.
Runs never overlap (flock on CONFIG.lock, shared with pump.sh). Exit status:
0 pumped or skipped, 1 the endpoint failed, 2 bad configuration.
"""
from __future__ import annotations

import argparse
import fcntl
import http.client
import os
import signal
import stat
import sys
import time
from urllib.parse import urlsplit

# As pump.sh's curl: connect within 10 s; the answer comes after cron_pump_seconds (at
# most 58) plus the last writes, so a request still open after 62 s is abandoned.
CONNECT_TIMEOUT = 10
MAX_TIME = 62
# The pump answers with a small JSON report; more than this is not read (a
# misconfigured URL may serve a whole web page).
MAX_BODY_BYTES = 65536
# An error answer's body is logged cut to this many characters (as pump.sh does):
# enough to recognise a host's error page in the cron mail.
LOGGED_BODY_CHARS = 300


class ConfigError(Exception):
    """The config file is missing, unsafe or incomplete."""


def log(message: str, stream=sys.stderr) -> None:
    """Print one timestamped line."""
    print(time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "pump:", message, file=stream, flush=True)


def read_config(path: str) -> tuple[str, str]:
    """Return (url, token) from a private KEY=value file."""
    try:
        info = os.stat(path)
    except FileNotFoundError:
        raise ConfigError(f"config file {path} not found (lines URL=... and TOKEN=..., chmod 600)") from None
    if stat.S_IMODE(info.st_mode) & 0o077:
        raise ConfigError(f"{path} can be read by other users; run: chmod 600 {path}")
    values = {}
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            key, sep, value = line.rstrip("\r\n").partition("=")
            if sep:
                values[key.strip()] = value
    url, token = values.get("URL", ""), values.get("TOKEN", "")
    if urlsplit(url).scheme not in ("http", "https") or not urlsplit(url).hostname:
        raise ConfigError(f"URL= in {path} must be the full http(s) address of /internal/pump")
    if "token=" in url:
        raise ConfigError(f"put the token on the TOKEN= line of {path}, not in URL=")
    if not token:
        raise ConfigError(f"TOKEN= in {path} is empty")
    return url, token


def take_lock(path: str):
    """Return the open lock file if no other run holds it, else None."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        return None
    return fd


def _too_slow(signum, frame):
    """Abort a request that outlived MAX_TIME, however the server trickles bytes."""
    raise TimeoutError(f"no complete answer within {MAX_TIME} s")


def post(url: str, token: str) -> tuple[int, str]:
    """POST to url with the token header; connect within 10 s, finish within 62 s."""
    parts = urlsplit(url)
    cls = http.client.HTTPSConnection if parts.scheme == "https" else http.client.HTTPConnection
    conn = cls(parts.hostname, parts.port, timeout=CONNECT_TIMEOUT)
    deadline = time.monotonic() + MAX_TIME
    try:
        conn.connect()
        conn.sock.settimeout(max(1.0, deadline - time.monotonic()))
        path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        conn.request("POST", path, body=b"", headers={
            "Authorization": f"Bearer {token}", "User-Agent": "update-pack-pump/1",
            "Content-Type": "application/x-www-form-urlencoded"})
        response = conn.getresponse()
        body = response.read(MAX_BODY_BYTES).decode("utf-8", "replace")
        return response.status, body
    finally:
        conn.close()


def main(argv: list[str] | None = None) -> int:
    """Run one pump request and return the exit status."""
    parser = argparse.ArgumentParser(description="Call the bot's /internal/pump once.")
    parser.add_argument("-q", "--quiet", action="store_true", help="print nothing on success")
    parser.add_argument("config", nargs="?", default=os.environ.get("UPDATE_PACK_PUMP_CONF")
                        or os.path.join(os.path.expanduser("~"), ".update_pack_pump.conf"))
    args = parser.parse_args(argv)
    os.umask(0o077)
    try:
        url, token = read_config(args.config)
    except (ConfigError, OSError, UnicodeDecodeError) as exc:
        log(str(exc))
        return 2
    lock = take_lock(args.config + ".lock")
    if lock is None:
        if not args.quiet:
            log("a previous run still holds the lock; skipped")
        return 0
    signal.signal(signal.SIGALRM, _too_slow)
    signal.alarm(MAX_TIME)
    try:
        status, body = post(url, token)
    except (OSError, http.client.HTTPException) as exc:
        log(f"request to {url} failed: {type(exc).__name__}: {exc}")
        return 1
    if not 200 <= status < 300:
        log(f"HTTP {status} from {url} (redirects are not followed): {body[:LOGGED_BODY_CHARS]}")
        return 1
    if not args.quiet:
        log(f"HTTP {status} {body.strip()}", stream=sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
