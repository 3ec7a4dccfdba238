"""SQLite's pause between population chunks follows its busy handler's polls: a queued writer always wakes in it."""
import pytest

from app.services.broadcast.jobs import population as jobs_population


@pytest.mark.parametrize("held,interval", [
    (0.0, 0.001), (0.0005, 0.001), (0.002, 0.002), (0.05, 0.020), (0.1, 0.025), (0.2, 0.050), (0.3, 0.100), (5, 0.100),
])
def test_the_pause_is_the_poll_interval_of_a_writer_that_waited_as_long_as_the_chunk(held, interval):
    # sqlite3.c sqliteDefaultBusyCallback: sleeps of 1, 2, 5, 10, 15, 20, 25, 25, 25, 50, 50, 100 ms, then 100 ms.
    assert jobs_population.sqlite_poll_interval(held) == pytest.approx(interval)


def test_no_pause_is_longer_than_the_old_fixed_one():
    assert max(jobs_population.sqlite_poll_interval(s / 100) for s in range(500)) + jobs_population.SQLITE_WAKE_MARGIN \
        <= jobs_population.SQLITE_CHUNK_PAUSE
