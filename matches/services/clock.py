"""The turn clock, in one place: its tick (resolve every due turn), when it must wake
next, how it is woken, and the loop that runs it.

An asyncio loop around one `clock_tick()`, run by `manage.py runclock` and, in the
embedded demo, on the server's own event loop. Several clocks may run against one
database: each turn is claimed by exactly one of them (services/transition.py).

Between ticks the clock sleeps until the next deadline it knows of. A new match (or a
changed schedule) wakes it early (`clock_wake`): PostgreSQL's LISTEN/NOTIFY, else the
channel layer across processes and a direct wake-up within this one. It never sleeps
longer than `idle_seconds`, so a missed notification only makes a turn that late,
never lost. What else runs on the clock's beat (a tournament's runner) listens to
`clock_ticked` and answers how soon it needs the clock again, so that the clock never
names the features that use it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
import time
from collections.abc import AsyncIterator, Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timedelta

from asgiref.sync import async_to_sync
from channels.layers import InMemoryChannelLayer, get_channel_layer
from django.conf import settings
from django.core.cache import cache
from django.db import close_old_connections, connection, connections, transaction
from django.dispatch import Signal
from django.utils import timezone

from matches import selectors
from matches.caches import Every
from matches.live.hub import stop_if_cancelled
from matches.live.outbox import OUTBOX
from matches.models import Match
from matches.responsive import keep_responsive
from matches.services import wal
from matches.services.transition import Due, time_out, turns_ahead, turns_resolve

# Sent after every tick with `now` and `woken` (the clock was told something changed,
# maybe in another process); each receiver does what is due and returns how many
# seconds it can wait for the next (None: no time of its own).
clock_ticked = Signal()

log = logging.getLogger("matches.clock")  # (the name operators' log settings know)
IDLE_SECONDS = 5.0  # the longest sleep: how late a turn is when a notification is lost
RETRY_SECONDS = 1.0  # after a failed tick, or a lost listening connection
DRAIN_SECONDS = 1.0  # the longest a stopping clock waits for its last turns to be sent
REJOIN_SECONDS = 3600.0
# How much earlier than a deadline the clock's thread wakes from its sleep for its tick,
# which reads what it reads first and then waits for the deadline (`tick_and_wait`'s
# `at`) (the two reads take 2-3 ms on a quiet server; a lead of 5 ms left under a
# millisecond to spare, and a busy moment made the turn late). With 1,000 sockets held
# by the same process its two reads took 10-30 ms, sharing the interpreter with the
# loop: at 12 ms every turn was resolved 7-33 ms after its deadline (bench/capacity.py
# --only storm, traced). At 50 ms the reads are done with 34-41 ms to spare and each
# turn is claimed within a millisecond of its deadline. (What is read ahead is only the
# matches due and their board and teams: the claim at the deadline reads each match's
# row again, locked, and the submissions.)
LEAD_SECONDS = 0.05
# The longest a tick waits, once its turns are posted, for this process's sockets to be
# handed them before it does its other work (the log's checkpoint, its listeners).
FANOUT_WAIT = 0.05

# What the clock reads of each unfinished match: enough for its deadlines (`created_at`:
# its identity, by which the thinking time used is kept). The turns themselves read the
# whole match again, in their transaction.
CLOCK_FIELDS = ("game", "start_at", "strategy_ms", "transition_ms", "turns", "resolved_turns",
                "clock_ms", "ended_early", "created_at", "paused_at", "credits")


def unfinished_matches() -> list[Match]:
    """Every unfinished match, by id, in one query through the index of unfinished
    matches (sorted here: ordered by id, SQLite would scan every match instead)."""
    return sorted(Match.objects.unfinished().only(*CLOCK_FIELDS), key=lambda match: match.pk)


def clock_tick(now: datetime | None = None, matches: list[Match] | None = None, *,
               ahead: dict[int, Match] | None = None, checkpoint: bool = True) -> int:
    """Resolve every due turn of every match, in order, and end the alternating games
    whose mover's time has run out (`matches`: the unfinished ones, read here when not
    given; their turns and ends are brought up to date; `ahead`: those with a turn due,
    read before the deadline, `turns_ahead`). Returns how many turns and games this call
    did. Then, on SQLite, the write-ahead log is folded back (services/wal.py) unless
    the caller does it (`checkpoint`: False) once the turns are posted.

    The turns due at once are resolved together, in waves: each match's first due turn
    in one transaction, then the second of those with two or more, and so on
    (services/transition.py's `turns_resolve`), so that a round of 45 matches whose
    deadlines fall together costs a few queries, not a few per match. The turns stored
    are posted to the outbox (live/outbox.py), whose announcer sends them."""
    now = now or timezone.now()
    resolved = 0
    listed = {match.pk: match for match in (unfinished_matches() if matches is None
                                            else matches)}
    waiting: dict[int, list[Due]] = {}
    for match in listed.values():
        if match.start_at > now or match.paused_at is not None:
            continue  # not begun, or held by the judges (services/control.py)
        if match.alternating:
            if selectors.move_clock(match, now)["deadline"] <= now and time_out(
                    match_id=match.pk, number=match.resolved_turns + 1):
                match.ended_early = True
                resolved += 1
            continue
        turns = [Due(match.pk, number, match.deadline(number))
                 for number in match.due_turns(now)]
        if turns:
            waiting[match.pk] = turns
    while waiting:
        wave = [turns.pop(0) for turns in waiting.values()]
        taken = turns_resolve(wave, ahead=ahead)
        resolved += len(taken)
        for match_id, row in taken.items():  # the caller's copies stay current
            listed[match_id].resolved_turns = row.number
            listed[match_id].ended_early = row.match.ended_early
        # a match whose turn another clock took is that clock's to carry on, in order
        waiting = {match_id: turns for match_id, turns in waiting.items()
                   if turns and match_id in taken}
    if resolved and checkpoint:
        wal.checkpoint()
    return resolved


def next_wakeup(now: datetime, matches: list[Match] | None = None) -> datetime | None:
    """The earliest deadline still to come among unfinished matches (an alternating
    game's: its start, then when the mover's time runs out); `matches`: as the tick
    read and left them."""
    soonest = None
    for match in unfinished_matches() if matches is None else matches:
        if match.over or match.protocol_played or match.paused_at is not None:
            continue  # ended, or its server plays it step by step, or the judges hold it
        if match.alternating:
            deadline = (match.start_at if now < match.start_at
                        else selectors.move_clock(match, now)["deadline"])
        else:
            deadline = match.deadline(match.resolved_turns + 1)
        if soonest is None or deadline < soonest:
            soonest = deadline
    return soonest


# How the clocks hear that a match's schedule changed (the loop below sleeps until then):
CLOCK_CHANNEL = "matches_clock"  # PostgreSQL's LISTEN/NOTIFY channel
CLOCK_GROUP = "clock"  # the channel-layer group, on other databases
IN_PROCESS_CLOCKS: set[Callable[[], None]] = set()  # thread-safe wake-ups of this process's


def clock_wake() -> None:
    """Wake every clock once the caller's transaction commits: call it in the
    transaction that creates a match or moves its deadlines. PostgreSQL delivers a
    NOTIFY at commit (and drops it on rollback); other databases use the channel layer."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute(f"NOTIFY {CLOCK_CHANNEL}")
    else:
        transaction.on_commit(_clocks_wake, robust=True)


def _clocks_wake() -> None:
    for wake in list(IN_PROCESS_CLOCKS):
        wake()
    layer = get_channel_layer()
    if layer_reaches_other_processes(layer):
        async_to_sync(layer.group_send)(CLOCK_GROUP, {"type": "clock.wake"})


def wakes_from_other_processes() -> bool:
    """Whether what another process changes wakes this process's clock (PostgreSQL's
    NOTIFY, or a channel layer shared between processes); not on the embedded default,
    whose clock finds such changes by reading again (the tournaments' runner, say)."""
    return connection.vendor == "postgresql" or layer_reaches_other_processes(
        get_channel_layer())


def layer_reaches_other_processes(layer) -> bool:
    """False for none and for the in-memory layer, whose one process's clocks are woken
    directly (its queues are not safe to fill from another thread's event loop)."""
    return layer is not None and not isinstance(layer, InMemoryChannelLayer)


# When a clock last ticked (time.time()), on the cache every process shares: /healthz
# reads it (matches/views/operations.py). Written at most once a HEARTBEAT_SECONDS.
CLOCK_TICKED_KEY = "clock:ticked"
HEARTBEAT_SECONDS = 1.0
HEARTBEAT = Every("clock heartbeat", HEARTBEAT_SECONDS)


def heartbeat() -> None:
    now = time.time()
    if HEARTBEAT.due(now):
        try:
            cache.set(CLOCK_TICKED_KEY, now, timeout=3600)
        except Exception:  # a cache that fails never stops the clock
            log.warning("the clock's heartbeat could not be written to the cache")


def tick_and_wait(idle_seconds: float = IDLE_SECONDS, woken: bool = False,
                  at: float | None = None) -> float:
    """One step: resolve what is due, then let the clock's listeners do theirs; return
    how long to sleep before the next. `woken`: the clock was told something changed.
    `at` (time.monotonic()): the time the step was meant for, which the clock's thread
    wakes for a little before (LEAD_SECONDS): what it reads first is read then (the
    unfinished matches, and those with a turn due at `at` with their board and teams,
    so that the claim at the deadline reads only their rows), and the turns are resolved
    at `at` exactly, not when a timer's wake-up would have made it (1.3-2.7 ms after a
    deadline, and the read another 1).
    The turns it stored go to the outbox together once they are all stored
    (live/outbox.py); the tick then waits (FANOUT_WAIT at most) until this process's
    sockets have been handed them, and only then folds the log back and lets the
    clock's listeners do theirs (what they post goes once they are done): a turn's
    messages are built and sent while the clock waits or sleeps, never while turns are
    being stored nor while other Python work of the clock's takes the interpreter."""
    close_old_connections()
    heartbeat()
    with OUTBOX.together():
        matches = unfinished_matches()  # the tick's one read of the matches
        ahead = None
        if at is not None:
            ahead = _due_ahead(matches, at)
            while (left := at - time.monotonic()) > 0:
                time.sleep(left)
        resolved = clock_tick(matches=matches, ahead=ahead, checkpoint=False)
    if resolved:
        # the turns' fan-out first: what follows would share the interpreter with it
        OUTBOX.handed_out(FANOUT_WAIT)
        wal.checkpoint()
        log.info("resolved %d turn(s)", resolved)
    now = timezone.now()
    with OUTBOX.together():
        asked = [seconds for _, seconds in clock_ticked.send(sender=None, now=now,
                                                             woken=woken)
                 if seconds is not None]
    wakeup = next_wakeup(now, matches)
    # (from the time the sleep starts, not `now`: the listeners' time would make the
    # next turn that much late)
    delay = idle_seconds if wakeup is None else (wakeup - timezone.now()).total_seconds()
    delay = min(idle_seconds, max(delay, 0.0), *asked)
    log.debug("tick: next in %.3f s", delay)
    return delay


def _due_ahead(matches: list[Match], at: float) -> dict[int, Match] | None:
    """The matches with a turn due at `at` (time.monotonic()), read now, before it, with
    their board and teams (transition.turns_ahead): at the deadline their claim reads
    only their rows. None when none has."""
    when = timezone.now() + timedelta(seconds=max(0.0, at - time.monotonic()))
    due = [match.pk for match in matches if match.due_turns(when)]
    return turns_ahead(due) if due else None


def _tick_until(idle_seconds: float, woken: bool, at: float | None) -> float:
    """`tick_and_wait`, its answer as the time (time.monotonic()) the next step is for,
    taken on the tick's thread: the loop may come back to it later than that."""
    delay = tick_and_wait(idle_seconds, woken, at)
    return time.monotonic() + delay


class Alarm:
    """What ends a clock's sleep: its stop, or a notification (`rung`, set on the loop)."""

    def __init__(self, stop: asyncio.Event) -> None:
        self.stop = stop
        self.rung = asyncio.Event()


async def run_clock(stop: asyncio.Event | None = None, *,
                    idle_seconds: float = IDLE_SECONDS) -> None:
    """Tick until `stop` is set; a tick under way when it is set is finished first.

    The ticks and the sleeps between them are a thread's of its own (`_keep_time`): the
    loop only rings it early (a notification, the stop). A loop that serves sockets can
    be busy for 100 ms and more at a time (a storm of a thousand connects): while it
    timed the clock's sleeps, a turn due then was resolved that late."""
    stop = stop or asyncio.Event()
    keep_responsive()  # (a full collection held the tick it met for 50 ms or more)
    loop = asyncio.get_running_loop()
    OUTBOX.serve_from(loop)  # the turns go out from this loop
    # One thread of its own: one database connection, and HTTP views are never
    # queued behind a tick in the same process (the embedded demo).
    executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="clock")
    bell, stopped = threading.Event(), threading.Event()
    try:
        async with clock_alarm(stop) as alarm:
            relay = asyncio.create_task(_relay(alarm, bell, stopped))
            try:
                await loop.run_in_executor(executor, _keep_time, idle_seconds, bell, stopped)
            finally:
                stopped.set()
                bell.set()
                relay.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await relay  # (ended here, not left pending on the loop)
    finally:  # the last turns sent
        await OUTBOX.drained(DRAIN_SECONDS)
        executor.shutdown(wait=False)


def _keep_time(idle_seconds: float, bell: threading.Event, stopped: threading.Event) -> None:
    """The clock's thread: a tick, then a sleep until LEAD_SECONDS before the time the
    tick asked for, or until the bell rings (a notification: a tick at once, told it was
    woken; the stop: no more ticks). Its database connection closes as it ends."""
    at = None
    try:
        while not stopped.is_set():
            woken = bell.is_set()
            bell.clear()  # (a notification during the tick rings again after it)
            try:
                at = _tick_until(idle_seconds, woken, at)
            except Exception:  # a database hiccup must not stop the match clock
                log.exception("clock tick failed; retrying")
                at = time.monotonic() + RETRY_SECONDS
            if bell.wait(max(0.0, at - time.monotonic() - LEAD_SECONDS)):
                at = None  # woken before its time: at once
    finally:
        connections.close_all()


async def _relay(alarm: Alarm, bell: threading.Event, stopped: threading.Event) -> None:
    """On the loop: each notification, and the stop, rung on the clock thread's bell."""
    stopping = asyncio.ensure_future(alarm.stop.wait())
    try:
        while True:
            ringing = asyncio.ensure_future(alarm.rung.wait())
            await asyncio.wait([ringing, stopping], return_when=asyncio.FIRST_COMPLETED)
            ringing.cancel()
            if stopping.done():
                stopped.set()
                bell.set()
                return
            alarm.rung.clear()
            bell.set()
    finally:
        stopping.cancel()


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
    import psycopg  # here: a process on SQLite never loads it

    params = connection.get_connection_params()
    for django_only in ("cursor_factory", "context"):  # Django's own (synchronous) classes
        params.pop(django_only, None)
    # Behind a PgBouncer in transaction mode, PostgreSQL itself (DATABASE_DIRECT_URL): a
    # LISTEN is its session's, which the pooler would hand to others between transactions.
    params.update(settings.DATABASE_LISTEN)
    while True:
        try:
            conn = await psycopg.AsyncConnection.connect(**params, autocommit=True)
            async with conn:
                await conn.execute(f"LISTEN {CLOCK_CHANNEL}")
                alarm.rung.set()  # whatever changed before it listened
                async for _ in conn.notifies():
                    alarm.rung.set()
        except (psycopg.Error, OSError) as error:
            stop_if_cancelled()
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
            stop_if_cancelled()
            log.warning("listening for new matches failed (%r); retrying", error)
            await asyncio.sleep(RETRY_SECONDS)
