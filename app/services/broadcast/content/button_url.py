"""The one check of a link button's URL (wizard, CLI and job creation), as strict as Telegram's (pure).

Telegram refuses a button whose URL has no real domain ("Wrong HTTP URL" for
https://intranet or https://a/b), and then every send of the broadcast
fails. So a URL is accepted only with an http or https scheme, no spaces or
control characters, a valid port, and a host of dot-separated labels whose
last label (the top-level domain) is at least two letters or an IDN's
punycode (xn--...). IP addresses are refused: whether Telegram accepts them
on a button is not verified. tg:// links are refused as well: a broadcast
links to a web page or a t.me link (which Telegram opens in the app anyway).
"""
from __future__ import annotations

import ipaddress
from urllib.parse import urlsplit

# The button_url column's length (app/models/broadcast.py).
MAX_URL = 512
# The text key that explains each refusal (app/texts/); btn_err_url_long takes {length}.
URL_FORMAT, URL_HOST, URL_LONG = "btn_err_url", "btn_err_url_host", "btn_err_url_long"


def url_problem(url: str) -> str | None:
    """Return the text key saying why Telegram would refuse url on a button, or None when it is fine."""
    if len(url) > MAX_URL:
        return URL_LONG
    if any(ch.isspace() or ord(ch) < 32 or ord(ch) == 127 for ch in url):
        return URL_FORMAT
    try:
        parts = urlsplit(url)
        host = parts.hostname
        parts.port  # noqa: B018  (raises ValueError on a malformed port)
    except ValueError:
        return URL_FORMAT
    if parts.scheme.lower() not in ("http", "https") or not host:
        return URL_FORMAT
    return None if is_domain(host) else URL_HOST


def is_domain(host: str) -> bool:
    """Tell whether host is a domain name with a plausible top-level domain (not an IP address)."""
    if _is_ip(host):
        return False
    labels = host.rstrip(".").split(".")
    if len(labels) < 2 or not all(labels) or any(label.startswith("-") or label.endswith("-") for label in labels):
        return False
    if not all(ch.isalnum() or ch in "-_" for label in labels for ch in label):
        return False
    tld = labels[-1]
    return (tld.isalpha() and len(tld) >= 2) or (tld.lower().startswith("xn--") and len(tld) > 4)


def _is_ip(host: str) -> bool:
    """Tell whether host is an IPv4 or IPv6 address literal."""
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True
