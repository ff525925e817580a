"""The turn clock's loop: resolve every due turn, then sleep until the next deadline.

An asyncio loop around one `clock_tick()` (services.turns), run by `manage.py
runclock` and, in the embedded demo, on the server's own event loop. Several clocks
may run against one database: each turn is claimed by exactly one of them.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from concurrent.futures import ThreadPoolExecutor

from asgiref.sync import sync_to_async
from django.db import close_old_connections
from django.utils import timezone

from matches.services.turns import clock_tick, next_wakeup

log = logging.getLogger("matches.clock")
POLL_SECONDS = 0.05  # new matches and missed deadlines are noticed within this


def tick_and_wait() -> float:
    """One step: resolve what is due; return how long to sleep before the next."""
    close_old_connections()
    resolved = clock_tick()
    if resolved:
        log.info("resolved %d turn(s)", resolved)
    now = timezone.now()
    wakeup = next_wakeup(now)
    if wakeup is None:
        return POLL_SECONDS
    return min(POLL_SECONDS, max((wakeup - now).total_seconds(), 0.0))


async def run_clock(stop: asyncio.Event | None = None) -> None:
    stop = stop or asyncio.Event()
    # One thread of its own: one database connection, and HTTP views are never
    # queued behind a tick in the same process (the embedded demo).
    executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="clock")
    step = sync_to_async(tick_and_wait, thread_sensitive=False, executor=executor)
    while not stop.is_set():
        try:
            delay = await step()
        except Exception:  # a database hiccup must not stop the match clock
            log.exception("clock tick failed; retrying")
            delay = 1.0
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), timeout=delay)
