"""Settings: typed defaults, ranges and storage."""
import pytest

from app.services.settings import load_settings, set_setting
from app.settings_schema import DEFS, SettingError, defaults, parse_value


def test_defaults_are_the_documented_ones():
    d = defaults()
    assert (d["broadcast_batch_size"], d["broadcast_progress_every"], d["telegram_max_retries"]) == (25, 5, 2)
    assert (d["telegram_rate_per_second"], d["broadcast_rate_per_second"], d["broadcast_concurrency"]) == (29, 29, 6)
    assert (d["broadcast_max_consecutive_errors"], d["cron_pump_seconds"]) == (10, 57)
    assert d["broadcast_progress_min_seconds"] == 5
    assert (d["webhook_pump_calls"], d["webhook_pump_seconds"]) == (3, 3)


@pytest.mark.parametrize("key,raw,expected", [
    ("broadcast_batch_size", " 100 ", 100), ("broadcast_rate_per_second", "12.5", 12.5),
    ("broadcast_paid_enabled", "ON", True), ("broadcast_paid_enabled", "0", False),
])
def test_values_are_parsed(key, raw, expected):
    assert parse_value(key, raw) == expected


@pytest.mark.parametrize("key,raw,message", [
    ("broadcast_batch_size", "0", "outside the allowed range 1..500"),
    ("broadcast_batch_size", "2.5", "expected an integer"),
    ("broadcast_rate_per_second", "31", "outside"),
    ("broadcast_rate_per_second", "nan", "finite"),
    ("broadcast_paid_enabled", "maybe", "on/off"),
    ("no_such_key", "1", "unknown setting"),
])
def test_bad_values_are_refused_with_a_clear_message(key, raw, message):
    with pytest.raises(SettingError, match=message):
        parse_value(key, raw)


def test_settings_are_stored_validated_and_nothing_is_stored_on_error(app):
    assert set_setting("broadcast_batch_size", "40") == 40
    assert load_settings()["broadcast_batch_size"] == 40
    with pytest.raises(SettingError):
        set_setting("broadcast_batch_size", "501")
    with pytest.raises(SettingError):
        set_setting("cron_pump_seconds", "59")  # a cron pump must end before the next minute's call
    assert load_settings()["cron_pump_seconds"] == DEFS["cron_pump_seconds"].default
    assert load_settings()["broadcast_batch_size"] == 40


@pytest.mark.parametrize("raw", ["9" * 5000, "x" * 300])
def test_over_long_input_is_refused_with_a_short_message(raw):
    with pytest.raises(SettingError, match="characters long") as err:
        parse_value("broadcast_batch_size", raw)
    assert len(str(err.value)) < 120, "the message is shown back to the admin in Telegram"


def test_error_messages_quote_input_cut_short():
    with pytest.raises(SettingError) as err:
        parse_value("broadcast_batch_size", "y" * 30)
    assert "'yyyyyyyyyyyyyyyyyyyyyyyyyyyyyy'" in str(err.value)
