"""The pump token travels only in the Authorization header: the scripts and both deployment guides agree."""
from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("script", ["cron/pump.sh", "cron/pump.py"])
def test_scripts_send_the_header_and_refuse_a_token_in_the_url(script):
    text = (ROOT / script).read_text()
    assert "Authorization: Bearer" in text or '"Authorization": f"Bearer {token}"' in text
    assert "not in URL=" in text


@pytest.mark.parametrize("doc", ["docs/DEPLOY_CPANEL.md", "docs/DEPLOY_CPANEL_FA.md",
                                 "docs/TELEGRAM_LIMITS_AND_SCALE_FA.md"])
def test_guides_name_the_header_and_never_offer_the_query_string(doc):
    text = (ROOT / doc).read_text()
    assert "Authorization: Bearer" in text
    for paragraph in text.split("\n\n"):
        if "?token=" in paragraph:
            assert "401" in paragraph, paragraph  # mentioned only as refused
