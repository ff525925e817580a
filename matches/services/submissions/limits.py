"""The answer API's rate limits, over a sliding window of RATE_WINDOW, refused requests
included: RATE_LIMIT requests per team token, and ADDRESS_LIMIT strangers' requests per
source address (a team's own requests never count toward its address). Answered 429
with `Retry-After`. With Redis configured the windows are sorted sets in Redis, shared
by every server process; otherwise (the embedded default's one process, or Redis not
answering) they are kept in this process's memory (`windows`).
"""

from __future__ import annotations

import functools
import logging
import secrets
import threading
from collections import deque
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings

from matches.models import Team
from matches.services.submissions.answers import Refusal, Request, client_address

RATE_LIMIT = 20  # requests a token may send within RATE_WINDOW
ADDRESS_LIMIT = 20  # strangers' requests an address may send within RATE_WINDOW
RATE_WINDOW = timedelta(seconds=1)
WINDOWS = "spectator:answers:"  # the Redis keys of the rate-limit windows

# Logged under the package's name, as before the package was split: the name operators know.
logger = logging.getLogger("matches.services.submissions")


def rate_limited(request: Request, team: Team) -> Refusal | None:
    """429 if the token sent RATE_LIMIT other requests in the window up to this one.

    Every request of the token counts, refused ones and 429s included: a token that keeps
    flooding stays refused while it floods, and is answered again at most a second after
    its last request. Judges' offline entries neither count nor wait.
    """
    if request.entered_by:
        return None
    now = request.received_at
    recent = _window_count(f"token:{team.token_hash[:32]}", now)
    if recent < RATE_LIMIT:
        return None
    logger.warning("rate limited: match %s, team %s (%s): %d requests within a second",
                   team.match_id, team.name, team.letter, recent + 1)
    return Refusal(429, "rate_limited",
                   f"{recent + 1} requests within a second; a token may send {RATE_LIMIT}",
                   {"Retry-After": "1"})


def address_limited(request: Request) -> Refusal | None:
    """429 if this address sent ADDRESS_LIMIT other strangers' requests in the window."""
    now, address = request.received_at, client_address(request.remote_addr)
    recent = _window_count(f"address:{address}", now)
    if recent < ADDRESS_LIMIT:
        return None
    return Refusal(429, "rate_limited",
                   f"{recent + 1} requests without a team token from {address} within a "
                   f"second; an address may send {ADDRESS_LIMIT}", {"Retry-After": "1"})


def _window_count(key: str, now: datetime) -> int:
    """How many requests of `key` arrived in the window up to `now`, this one not counted;
    this one is counted for the next. From Redis when configured (one round trip), else
    from this process's windows."""
    client = _redis()
    if client is not None:
        from redis import RedisError

        try:
            return _redis_window(client, f"{WINDOWS}{key}", now.timestamp())
        except RedisError:  # Redis down: this process still counts
            logger.warning("rate windows: Redis did not answer; counting in this process")
    return windows.count(key, now.timestamp())


class Windows:
    """Sliding windows of request times per key, in this process's memory; thread-safe.
    Keys whose window has emptied are dropped now and then, so a flood of addresses
    leaves nothing behind."""

    def __init__(self) -> None:
        self._times: dict[str, deque[float]] = {}
        self._lock = threading.Lock()
        self._swept = 0.0

    def count(self, key: str, now: float) -> int:
        span = RATE_WINDOW.total_seconds()
        with self._lock:
            times = self._times.setdefault(key, deque())
            while times and times[0] <= now - span:
                times.popleft()
            recent = sum(1 for moment in times if moment <= now)
            times.append(now)
            if now - self._swept > 10 * span:
                self._sweep(now - span)
        return recent

    def _sweep(self, before: float) -> None:
        self._swept = before
        for key in [key for key, times in self._times.items() if not times or
                    times[-1] <= before]:
            del self._times[key]

    def reset(self) -> None:
        with self._lock:
            self._times.clear()


windows = Windows()


def _redis_window(client: Any, name: str, score: float) -> int:
    """Count the window's scores before `score`, add this one, drop the long gone."""
    seconds = RATE_WINDOW.total_seconds()
    pipe = client.pipeline(transaction=True)
    pipe.zremrangebyscore(name, "-inf", score - 10 * seconds)
    pipe.zcount(name, f"({score - seconds}", score)
    pipe.zadd(name, {secrets.token_hex(8): score})
    pipe.expire(name, 60)
    return pipe.execute()[1]


def rate_windows_reset() -> None:
    """Forget every rate-limit window, this process's and those kept in Redis (tests; an
    operator after an incident)."""
    windows.reset()
    client = _redis()
    keys = client.keys(f"{WINDOWS}*") if client is not None else []
    if keys:
        client.delete(*keys)


@functools.cache
def _redis() -> Any:
    """This process's Redis client for the rate windows, if Redis is configured (the
    client library is loaded only then: loading it took a quarter of a second, which the
    embedded default's first answer spent holding SQLite's lock): REDIS_URL's, through
    the Sentinels if any."""
    if not settings.REDIS_URL:
        return None
    from matches.redis_sentinel import settings_client

    return settings_client()
