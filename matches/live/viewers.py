"""How many sockets watch each match, counted in the cache that every server process shares."""

from __future__ import annotations

from django.core.cache import cache


def viewers_change(match_id: int, change: int) -> int:
    """Count a viewer in (+1) or out (-1); the new count."""
    key = f"viewers:{match_id}"
    cache.add(key, 0, timeout=None)
    return max(cache.incr(key, change), 0)


def viewers(match_id: int) -> int:
    return max(cache.get(f"viewers:{match_id}", 0), 0)


def viewers_news(match_id: int) -> int | None:
    """The viewer count to tell a match's sockets with a turn: None when they were last
    told the same number (a newcomer hears the count when it connects), so that a
    steady audience is not written a second message per turn."""
    count, key = viewers(match_id), f"viewers-told:{match_id}"
    if cache.get(key) == count:
        return None
    cache.set(key, count, timeout=24 * 3600)
    return count
