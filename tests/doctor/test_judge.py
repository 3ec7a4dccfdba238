"""The doctor's judge (pure): many combinations of limits in, the right verdicts and fixes out."""
from __future__ import annotations

import pytest

from app.services.doctor import judge as J
from app.services.doctor import judge_ops as O
from app.services.doctor.facts import FAIL, INFO, OK, UNKNOWN, Facts
from app.texts import LANGS, t

BASE = dict(processes=6, cron_interval=60, cron_pump_seconds=57, broadcast_rate=29.0, telegram_rate=29.0,
            broadcast_concurrency=6, updates_per_hour=2000)


def facts(**changes) -> Facts:
    """Return the defaults of a fresh install on an unread host, with changes."""
    return Facts(**{**BASE, **changes})


def by_check(verdicts, check: str):
    (found,) = [v for v in verdicts if v.check == check]
    return found


# Memory: 6 x 100 + 160 = 760 MB against 85% of the limit.
@pytest.mark.parametrize("limit, processes, state, fixed_to", [
    (1024, 6, OK, None),          # 760 <= 870
    (1024, 8, FAIL, 7),           # 960 > 870: (870 - 160) // 100 = 7
    (512, 6, FAIL, 2),            # 760 > 435: (435 - 160) // 100 = 2
    (256, 1, FAIL, 0),            # 260 > 217: not even one process fits
    (4096, 30, OK, None),         # 3160 <= 3481
    (894, 6, FAIL, 5),            # the boundary: 894 * 0.85 = 759.9 MB, one short of 760
    (895, 6, OK, None),           # 760.75
])
def test_memory_is_processes_times_a_worker_plus_cron_against_85_percent(limit, processes, state, fixed_to):
    verdict = J.memory(facts(memory_limit_mb=limit, memory_read=True, processes=processes))
    assert verdict.state == state
    assert verdict.values["need"] == processes * J.WORKER_RSS_MB + J.CRON_RSS_MB
    assert (verdict.fix_values.get("processes") if verdict.fix else None) == fixed_to


def test_memory_unread_is_unknown_and_no_limit_is_info():
    assert J.memory(facts()).state == UNKNOWN and J.memory(facts()).key == "doc_memory_unread"
    unlimited = J.memory(facts(memory_read=True))
    assert unlimited.state == INFO and unlimited.key == "doc_memory_unlimited"


@pytest.mark.parametrize("nproc, processes, state", [
    (100, 6, OK),     # 48 + 4 + 6 + 5 = 63
    (100, 10, OK),    # 80 + 15 = 95
    (100, 11, FAIL),  # 88 + 15 = 103
    (40, 6, FAIL),
    (96367, 6, OK),
])
def test_threads_of_every_process_count_against_nproc(nproc, processes, state):
    verdict = J.threads(facts(nproc_limit=nproc, nproc_read=True, processes=processes))
    assert verdict.state == state
    if state == FAIL:
        most = verdict.fix_values["processes"]
        assert J.threads(facts(nproc_limit=nproc, nproc_read=True, processes=max(most, 1))).state == (
            OK if most else FAIL)


def test_a_larger_concurrency_needs_more_threads():
    assert J.threads_need(facts(broadcast_concurrency=30)) == J.threads_need(facts()) + 24


@pytest.mark.parametrize("cap, processes, state, fixed_to", [
    (10, 6, FAIL, 3),   # 2 x (6 + 2) = 16 > 10; 10 // 2 - 2 = 3 processes fit
    (16, 6, OK, None),
    (30, 6, OK, None),
    (4, 1, FAIL, 0),    # 6 > 4
    (151, 6, OK, None),
])
def test_connections_are_two_per_process_cron_and_command(cap, processes, state, fixed_to):
    verdict = J.connections(facts(user_connections=cap, processes=processes))
    assert verdict.state == state
    assert (verdict.fix_values.get("processes") if verdict.fix else None) == fixed_to
    if fixed_to:
        assert J.connections(facts(user_connections=cap, processes=fixed_to)).state == OK


def test_connections_unread_is_unknown_and_zero_is_no_cap():
    assert J.connections(facts()).state == UNKNOWN
    assert J.connections(facts(user_connections=0)).state == INFO


@pytest.mark.parametrize("cap, state", [(100, FAIL), (276, OK), (275, FAIL), (0, INFO), (None, UNKNOWN)])
def test_connections_per_hour_count_recycling_and_cron_runs(cap, state):
    verdict = J.connections_hourly(facts(max_connections_per_hour=cap))
    assert verdict.values["need"] == (6 * J.RECONNECTS_PER_HOUR + 60) * 2 == 276
    assert verdict.state == state


@pytest.mark.parametrize("cap, rate, updates, state, fitting", [
    (50_000, 29.0, 2000, FAIL, 20.9),     # 52,200 + 12,000 + 360 = 64,560 > 50,000
    (100_000, 29.0, 2000, OK, None),
    (50_000, 20.0, 2000, OK, None),       # 36,000 + 12,360 = 48,360
    (20_000, 29.0, 2000, FAIL, 4.2),      # (20,000 - 12,360) / 1,800 = 4.24
    (10_000, 29.0, 2000, FAIL, None),     # updates alone pass the cap: no rate fits
    (5_000, 29.0, 0, FAIL, 2.5),          # (5,000 - 360) / 1,800 = 2.58
])
def test_an_hour_of_broadcasting_against_the_query_cap(cap, rate, updates, state, fitting):
    verdict = O.queries(facts(max_questions=cap, broadcast_rate=rate, updates_per_hour=updates))
    assert verdict.state == state
    if state == FAIL:
        assert verdict.fix == ("doc_fix_rate" if fitting else "doc_fix_queries_cap")
        assert verdict.fix_values.get("rate") == fitting
        if fitting:  # the rate offered fits
            fixed = facts(max_questions=cap, broadcast_rate=fitting, updates_per_hour=updates)
            assert O.queries(fixed).state == OK


def test_the_query_check_uses_the_lower_of_the_two_rates():
    verdict = O.queries(facts(max_questions=0, broadcast_rate=29.0, telegram_rate=10.0))
    assert verdict.values["rate"] == 10.0 and verdict.state == INFO
    assert O.queries(facts()).state == UNKNOWN


@pytest.mark.parametrize("seconds, interval, state, fixed_to", [
    (57, 60, OK, None), (58, 60, FAIL, 57), (28, 30, FAIL, 27), (27, 30, OK, None), (57, 120, OK, None),
])
def test_cron_start_and_budget_fit_its_interval(seconds, interval, state, fixed_to):
    verdict = O.cron_budget(facts(cron_pump_seconds=seconds, cron_interval=interval))
    assert verdict.state == state
    assert verdict.fix_values.get("seconds") == fixed_to


@pytest.mark.parametrize("changes, state, key", [
    ({}, UNKNOWN, "doc_cron_unread"),
    ({"cron_read": True}, INFO, "doc_cron_never"),
    ({"cron_read": True, "cron_late": True}, FAIL, "doc_cron_never"),
    ({"cron_read": True, "cron_minutes_ago": 0, "cron_last_ms": 57_300, "cron_late": False}, OK, "doc_cron_ran"),
    ({"cron_read": True, "cron_minutes_ago": 9, "cron_last_ms": 1_000, "cron_late": True}, FAIL, "doc_cron_late"),
    ({"cron_read": True, "cron_minutes_ago": 1, "cron_last_ms": 61_000, "cron_late": False}, FAIL, "doc_cron_long"),
])
def test_cron_last_run(changes, state, key):
    verdict = O.cron_last_run(facts(**changes))
    assert (verdict.state, verdict.key) == (state, key)


HOOK = "https://bot.example.com/telegram/webhook"


@pytest.mark.parametrize("info, public_url, state, key", [
    (None, None, UNKNOWN, "doc_webhook_unread"),
    ({"url": ""}, None, FAIL, "doc_webhook_none"),
    ({"url": HOOK, "pending_update_count": 0}, None, OK, "doc_webhook_ok"),
    ({"url": HOOK, "pending_update_count": 0}, "https://bot.example.com", OK, "doc_webhook_ok"),
    ({"url": HOOK}, "https://other.example.com", FAIL, "doc_webhook_elsewhere"),
    ({"url": HOOK}, "https://bot.example.co", FAIL, "doc_webhook_elsewhere"),  # a prefix is not the same host
    ({"url": HOOK, "pending_update_count": 101}, None, FAIL, "doc_webhook_pending"),
    ({"url": HOOK, "last_error_message": "Connection timed out", "error_age_seconds": 60}, None, FAIL,
     "doc_webhook_error"),
    ({"url": HOOK, "last_error_message": "Connection timed out", "error_age_seconds": 7200}, None, OK,
     "doc_webhook_ok"),
])
def test_webhook(info, public_url, state, key):
    verdict = O.webhook(facts(webhook=info, public_url=public_url))
    assert (verdict.state, verdict.key) == (state, key)


@pytest.mark.parametrize("disk, state, key", [
    (("/home/u/app", 5000, 100_000), OK, "doc_disk_ok"),
    (("/home/u/app", 150, 100_000), FAIL, "doc_disk_low"),
    (("/home/u/app", 5000, 1500), FAIL, "doc_disk_low"),
    (("/tmp", 5000, None), OK, "doc_disk_ok_no_inodes"),
    (("/tmp", None, None), UNKNOWN, "doc_disk_unread"),
])
def test_disk_space_and_inodes(disk, state, key):
    (verdict,) = O.disks(facts(disks=(disk,)))
    assert (verdict.state, verdict.key) == (state, key)


def test_address_space_fails_only_below_a_cron_run():
    assert J.address_space(facts()).state == INFO
    assert J.address_space(facts(address_space_mb=4096)).state == INFO
    assert J.address_space(facts(address_space_mb=128)).state == FAIL


CHEAP_HOST = dict(memory_limit_mb=1024, memory_read=True, nproc_limit=100, nproc_read=True, user_connections=20,
                  max_questions=0, max_connections_per_hour=0, cron_read=True, cron_minutes_ago=0, cron_last_ms=900,
                  cron_late=False, webhook={"url": HOOK, "pending_update_count": 0},
                  disks=(("/home/u/app", 3000, 200_000),))


def test_the_default_pool_fits_a_1_gb_100_nproc_host_and_every_check_is_judged():
    verdicts = J.judge(facts(**CHEAP_HOST))
    assert J.fits(verdicts) and {v.state for v in verdicts} <= {OK, INFO}
    assert [v.check for v in verdicts] == ["memory", "address_space", "nproc", "connections", "connections_hourly",
                                           "queries", "cron_budget", "cron_last_run", "webhook", "disk"]


def test_one_check_that_does_not_fit_fails_the_whole_and_unread_ones_do_not():
    assert J.fits(J.judge(facts())) is True  # nothing read: nothing known not to fit
    assert J.fits(J.judge(facts(**{**CHEAP_HOST, "user_connections": 10}))) is False


@pytest.mark.parametrize("lang", LANGS)
def test_every_verdict_and_fix_renders_in_both_languages(lang):
    combos = [facts(), facts(**CHEAP_HOST), facts(**{**CHEAP_HOST, "memory_limit_mb": 256, "nproc_limit": 20,
                                                   "user_connections": 4, "max_questions": 1000,
                                                   "max_connections_per_hour": 10, "address_space_mb": 64,
                                                   "cron_pump_seconds": 58, "cron_late": True,
                                                   "webhook": {"url": ""}, "disks": (("/", 10, 10),)})]
    for combo in combos:
        for verdict in J.judge(combo):
            assert t(verdict.key, lang, **verdict.values)
            if verdict.fix:
                assert t(verdict.fix, lang, **verdict.fix_values)
