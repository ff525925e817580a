"""Viewer counts cannot outlive their sockets: a process publishes its own counts with an
expiry, and a process that stops refreshing them (it died) is no longer counted."""

import time

import pytest
from django.core.cache import cache

from matches.live.viewers import ProcessCounts, viewers


@pytest.fixture(autouse=True)
def _short_ttl(settings):
    settings.VIEWER_COUNT_TTL = 1


def wait_for(match_id: int, count: int, seconds: float = 4) -> int:
    deadline = time.monotonic() + seconds
    while viewers(match_id) != count and time.monotonic() < deadline:
        time.sleep(0.05)
    return viewers(match_id)


def test_the_counts_of_every_live_process_add_up():
    first, second = ProcessCounts("first"), ProcessCounts("second")
    first.change(7, +1)
    second.change(7, +1)
    second.change(7, +1)
    assert viewers(7) == 3 and viewers(8) == 0
    second.change(7, -1)
    assert viewers(7) == 2
    time.sleep(1.5)  # past the TTL: the refreshers keep the counts
    assert viewers(7) == 2
    first.stop()
    second.stop()


def test_the_count_of_a_process_that_stopped_refreshing_vanishes_after_the_ttl():
    alive, dead = ProcessCounts("alive"), ProcessCounts("dead")
    alive.change(7, +1)
    dead.change(7, +2)
    assert viewers(7) == 3
    dead.stop()  # as a killed process: no count out
    assert wait_for(7, 1) == 1
    later = ProcessCounts("later")  # a new process drops the dead one from the list
    later.change(9, +1)
    listed = cache.get("viewers:processes")
    assert "dead" not in listed and {"alive", "later"} <= set(listed)
    alive.stop()
    later.stop()
