"""How many sockets watch each match, in counts that cannot outlive their sockets.

Each server process counts its own sockets per match and publishes the count in the
cache every process shares, under `viewers:<match>:<process>`, with an expiry of
VIEWER_COUNT_TTL seconds that a thread of the process pushes forward while it lives.
A match's count is the sum of those keys over the processes listed in
`viewers:processes`. A process that dies (killed, out of memory) stops pushing, and its
counts vanish within the TTL; a socket is counted out however its consumer ends
(`live/consumers.py`). No count is ever kept without an expiry.

The list of processes is read, changed and written back; two processes that start at
the same moment may lose one another's entry, which the next refresh puts back (its
count is missing for a third of the TTL at most).
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import uuid

from django.conf import settings
from django.core.cache import cache

log = logging.getLogger(__name__)

PROCESSES = "viewers:processes"


def ttl() -> int:
    """Seconds a process's counts outlive its last refresh (whole seconds: Redis's own)."""
    return max(int(getattr(settings, "VIEWER_COUNT_TTL", 30)), 1)


def _count_key(match_id: int, process: str) -> str:
    return f"viewers:{match_id}:{process}"


def _alive_key(process: str) -> str:
    return f"viewers:alive:{process}"


class ProcessCounts:
    """The sockets one process has open on each match, published with an expiry."""

    def __init__(self, name: str | None = None) -> None:
        self.name = name or f"{socket.gethostname()}-{os.getpid()}-{uuid.uuid4().hex[:6]}"
        self.counts: dict[int, int] = {}
        self.lock = threading.Lock()  # the refresher thread reads what sockets change
        self.stopped = threading.Event()
        self.refresher: threading.Thread | None = None

    def change(self, match_id: int, change: int) -> None:
        """Count a socket in (+1) or out (-1), and publish this process's new count."""
        with self.lock:
            count = max(self.counts.get(match_id, 0) + change, 0)
            if count:
                self.counts[match_id] = count
                cache.set(_count_key(match_id, self.name), count, timeout=ttl())
            else:
                self.counts.pop(match_id, None)
                cache.delete(_count_key(match_id, self.name))
        self._register()
        if self.refresher is None:
            self.refresher = threading.Thread(target=self._refresh_until_stopped,
                                              name="viewer counts", daemon=True)
            self.refresher.start()

    def refresh(self) -> None:
        """Push the expiry of this process's counts forward."""
        with self.lock:
            cache.set_many({_count_key(match_id, self.name): count
                            for match_id, count in self.counts.items()}, timeout=ttl())
        cache.set(_alive_key(self.name), 1, timeout=ttl())
        self._register()

    def stop(self) -> None:
        """Stop refreshing, as a process that dies does (tests)."""
        self.stopped.set()

    def _register(self) -> None:
        """Be on the list of processes, dropping those whose refreshes stopped."""
        names = cache.get(PROCESSES) or []
        if self.name in names:
            return
        cache.set(_alive_key(self.name), 1, timeout=ttl())
        alive = cache.get_many([_alive_key(name) for name in names])
        cache.set(PROCESSES, [name for name in names if _alive_key(name) in alive]
                  + [self.name], timeout=None)

    def _refresh_until_stopped(self) -> None:
        while not self.stopped.wait(ttl() / 3):
            try:
                self.refresh()
            except Exception as error:  # the cache's server restarting, say: next time
                log.warning("viewer counts of %s: refresh failed: %r", self.name, error)


# This process's sockets.
process_counts = ProcessCounts()


def viewers_change(match_id: int, change: int) -> int:
    """Count a viewer of this process in (+1) or out (-1); the match's new count."""
    process_counts.change(match_id, change)
    return viewers(match_id)


def viewers(match_id: int) -> int:
    """The sockets on a match, over every live server process."""
    names = cache.get(PROCESSES) or []
    return sum(cache.get_many([_count_key(match_id, name) for name in names]).values())


def viewers_news(match_id: int) -> int | None:
    """The viewer count to tell a match's sockets with a turn: None when they were last
    told the same number (a newcomer hears the count when it connects), so that a
    steady audience is not written a second message per turn."""
    count, key = viewers(match_id), f"viewers-told:{match_id}"
    if cache.get(key) == count:
        return None
    cache.set(key, count, timeout=24 * 3600)
    return count
