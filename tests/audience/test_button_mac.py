"""One signing helper for the buttons under copies: each kind's mac as copies already sent carry it, none another's."""
from __future__ import annotations

import base64
import hashlib
import hmac

from app.services import button_mac
from app.services.audience import key_press, tap
from app.services.broadcast.reporting import unsubscribes
from tests.conftest import PUMP_TOKEN


def _expected(label: bytes, message: bytes) -> str:
    """The mac written out by hand: HMAC-SHA256 under a key derived from PUMP_TOKEN and the label, 6 bytes."""
    key = hmac.new(PUMP_TOKEN.encode(), label, hashlib.sha256).digest()
    return base64.urlsafe_b64encode(hmac.new(key, message, hashlib.sha256).digest()[:6]).decode()


def test_every_button_kind_signs_as_the_copies_already_sent_and_under_its_own_key(app):
    job_id = 2**62
    assert tap.callback_data(job_id) == f"b.tap:{job_id}.{_expected(b'tap-v1', str(job_id).encode())}"
    assert key_press.callback_data(job_id, 100) == f"b.key:{job_id}.100.{_expected(b'key-v1', b'%d.100' % job_id)}"
    data = unsubscribes.callback_data(job_id)
    assert data == f"u.off:{job_id}.{_expected(b'unsub-v1', str(job_id).encode())}" and len(data.encode()) <= 64
    tap_mac, unsub_mac = tap.callback_data(7).rsplit(".", 1)[1], unsubscribes.callback_data(7).rsplit(".", 1)[1]
    assert tap_mac != unsub_mac  # the tap button's mac never passes for the unsubscribe button's
    assert button_mac.matches(b"unsub-v1", b"7", unsub_mac) and not button_mac.matches(b"unsub-v1", b"7", tap_mac)
    assert button_mac.parse_signed(f"7.{unsub_mac}") == (7, unsub_mac)
    assert button_mac.parse_signed("07.AAAAAAAA") is None and button_mac.parse_signed("7.AAAA") is None
