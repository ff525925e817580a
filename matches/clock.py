"""The turn clock's loop: resolve every due turn, then sleep until the next deadline.

An asyncio loop around one `clock_tick()` (services.turns), run by `manage.py
runclock` and, in the embedded demo, on the server's own event loop. Several clocks
may run against one database: each turn is claimed by exactly one of them.

Between ticks the clock sleeps until the next deadline it knows of. A new match (or a
changed schedule) wakes it early: PostgreSQL's LISTEN/NOTIFY, else the channel layer
across processes and a direct wake-up within this one (`services.turns.clock_wake`).
It never sleeps longer than `idle_seconds`, so a missed notification only makes a turn
that late, never lost.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from concurrent.futures import ThreadPoolExecutor

import psycopg
from asgiref.sync import sync_to_async
from channels.layers import get_channel_layer
from django.db import close_old_connections, connection, connections
from django.utils import timezone

from matches.services.turns import (
    CLOCK_CHANNEL,
    CLOCK_GROUP,
    IN_PROCESS_CLOCKS,
    clock_tick,
    layer_reaches_other_processes,
    next_wakeup,
)
from matches.tournaments.runner import BOT_TICK, seconds_to_next_check, tournaments_tick

log = logging.getLogger("matches.clock")
IDLE_SECONDS = 5.0  # the longest sleep: how late a turn is when a notification is lost
RETRY_SECONDS = 1.0  # after a failed tick, or a lost listening connection
REJOIN_SECONDS = 3600.0


def tick_and_wait(idle_seconds: float = IDLE_SECONDS, woken: bool = False) -> float:
    """One step: resolve what is due; return how long to sleep before the next. `woken`:
    the clock was told something changed (its tournaments' runner reads them again)."""
    close_old_connections()
    resolved = clock_tick()
    if resolved:
        log.info("resolved %d turn(s)", resolved)
    now = timezone.now()
    bots_playing = tournaments_tick(now, woken)
    wakeup = next_wakeup(now)
    delay = idle_seconds if wakeup is None else (wakeup - now).total_seconds()
    tournament = seconds_to_next_check(now)
    delay = min(idle_seconds, max(delay, 0.0), BOT_TICK if bots_playing else idle_seconds,
                idle_seconds if tournament is None else tournament)
    log.debug("tick: next in %.3f s", delay)
    return delay


class Alarm:
    """What ends a clock's sleep: its stop, a notification, or the time."""

    def __init__(self, stop: asyncio.Event) -> None:
        self.stop = stop
        self.rung = asyncio.Event()

    async def sleep(self, seconds: float) -> None:
        waits = [asyncio.ensure_future(self.rung.wait()), asyncio.ensure_future(self.stop.wait())]
        try:
            await asyncio.wait(waits, timeout=seconds, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for wait in waits:
                wait.cancel()


async def run_clock(stop: asyncio.Event | None = None, *,
                    idle_seconds: float = IDLE_SECONDS) -> None:
    """Tick until `stop` is set; a tick under way when it is set is finished first."""
    stop = stop or asyncio.Event()
    # One thread of its own: one database connection, and HTTP views are never
    # queued behind a tick in the same process (the embedded demo).
    executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="clock")
    step = sync_to_async(tick_and_wait, thread_sensitive=False, executor=executor)
    try:
        async with clock_alarm(stop) as alarm:
            while not stop.is_set():
                woken = alarm.rung.is_set()
                alarm.rung.clear()  # a notification during the tick rings again after it
                try:
                    delay = await step(idle_seconds, woken)
                except Exception:  # a database hiccup must not stop the match clock
                    log.exception("clock tick failed; retrying")
                    delay = RETRY_SECONDS
                await alarm.sleep(delay)
    finally:  # the tick thread's database connection closes with the clock
        executor.submit(connections.close_all)
        executor.shutdown(wait=False)


@contextlib.asynccontextmanager
async def clock_alarm(stop: asyncio.Event) -> AsyncIterator[Alarm]:
    """An alarm rung by whatever tells this database's clocks about changed schedules."""
    alarm = Alarm(stop)
    loop = asyncio.get_running_loop()
    listeners = []
    if connection.vendor == "postgresql":
        listeners.append(asyncio.create_task(_listen_postgres(alarm)))
    else:
        if layer_reaches_other_processes(get_channel_layer()):
            listeners.append(asyncio.create_task(_listen_layer(alarm)))
    wake = _threadsafe(loop, alarm)
    IN_PROCESS_CLOCKS.add(wake)
    try:
        yield alarm
    finally:
        IN_PROCESS_CLOCKS.discard(wake)
        for listener in listeners:
            listener.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await listener


def _threadsafe(loop: asyncio.AbstractEventLoop, alarm: Alarm):
    def wake() -> None:
        with contextlib.suppress(RuntimeError):  # the loop has closed: nothing to wake
            loop.call_soon_threadsafe(alarm.rung.set)
    return wake


async def _listen_postgres(alarm: Alarm) -> None:
    """LISTEN on a connection of its own; connect again whenever it is lost."""
    params = connection.get_connection_params()
    for django_only in ("cursor_factory", "context"):  # Django's own (synchronous) classes
        params.pop(django_only, None)
    while True:
        try:
            conn = await psycopg.AsyncConnection.connect(**params, autocommit=True)
            async with conn:
                await conn.execute(f"LISTEN {CLOCK_CHANNEL}")
                alarm.rung.set()  # whatever changed before it listened
                async for _ in conn.notifies():
                    alarm.rung.set()
        except (psycopg.Error, OSError) as error:
            log.warning("listening for new matches failed (%r); retrying", error)
            await asyncio.sleep(RETRY_SECONDS)


async def _listen_layer(alarm: Alarm) -> None:
    """Receive on a channel of the layer's `clock` group. It joins again every hour (a
    layer forgets a group's members after a day) and after any failure (a restarted
    Redis forgets its groups)."""
    layer = get_channel_layer()
    channel = await layer.new_channel()
    while True:
        try:
            await layer.group_add(CLOCK_GROUP, channel)
            alarm.rung.set()  # whatever changed before it listened
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(REJOIN_SECONDS):
                    while True:
                        await layer.receive(channel)
                        alarm.rung.set()
        except Exception as error:  # the layer's server is away; the safety wake-up holds
            log.warning("listening for new matches failed (%r); retrying", error)
            await asyncio.sleep(RETRY_SECONDS)
