"""The clock: due turns resolved in order, exactly once, also after a restart."""

import contextlib
import time
from datetime import timedelta
from unittest import mock

import pytest

from matches.models import Match, Turn
from matches.rules.timeline import compute_timeline
from matches.selectors import match_record
from matches.services import transition
from matches.services.clock import clock_tick
from tests.factories import make_match


def stored_equals_replay(match: Match) -> bool:
    timeline = compute_timeline(match_record(match))
    stored = [row.state() for row in match.turn_rows.order_by("number")]
    replayed = [dict(state) for state in timeline["states"][1:]]
    return stored == [{k: s[k] for k in ("turn", "cells", "agents", "outcomes", "scores")}
                      for s in replayed]


@pytest.mark.django_db
def test_nothing_is_resolved_before_the_first_deadline():
    match, _ = make_match(strategy=5, transition=1, start_in=0)
    assert clock_tick(now=match.start_at + timedelta(seconds=4.9)) == 0
    assert clock_tick(now=match.start_at + timedelta(seconds=5)) == 1
    assert list(match.turn_rows.values_list("number", flat=True)) == [1]


@pytest.mark.django_db
def test_missed_deadlines_are_resolved_in_order_and_match_the_replay():
    match, _ = make_match(strategy=2, transition=1, start_in=0, turns=10)
    assert clock_tick(now=match.start_at + timedelta(seconds=3 * 3 + 2)) == 4
    assert list(match.turn_rows.values_list("number", flat=True)) == [1, 2, 3, 4]
    match.refresh_from_db()
    assert match.resolved_turns == 4 and stored_equals_replay(match)


@pytest.mark.django_db
def test_a_restarted_clock_picks_up_where_the_stored_turns_end():
    match, _ = make_match(strategy=2, transition=1, start_in=0, turns=6)
    clock_tick(now=match.start_at + timedelta(seconds=2))
    transition.STATES.reset()  # a new process remembers nothing
    assert clock_tick(now=match.start_at + timedelta(seconds=60)) == 5
    match.refresh_from_db()
    assert match.resolved_turns == 6 and match.result is not None
    assert stored_equals_replay(match)
    assert clock_tick(now=match.start_at + timedelta(seconds=120)) == 0


@pytest.mark.django_db
def test_a_turn_claimed_by_another_clock_is_not_resolved_again():
    match, _ = make_match(strategy=2, transition=1, start_in=0)
    assert transition.turn_resolve(match_id=match.pk, number=1) is not None
    assert transition.turn_resolve(match_id=match.pk, number=1) is None
    assert Turn.objects.filter(match=match).count() == 1


def test_two_clock_processes_resolve_every_turn_exactly_once(spawn, tmp_path):
    """Three matches whose deadlines fall together: each clock claims them in waves."""
    made = [make_match(strategy=0.15, transition=0.05, start_in=1.5, turns=25)[0]
            for _ in range(3)]
    Match.objects.filter(pk__in=[match.pk for match in made]).update(start_at=made[0].start_at)
    logs = [tmp_path / "clock1.log", tmp_path / "clock2.log"]
    for log in logs:
        spawn("runclock", log_to=log)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if all(match.resolved_turns == match.turns
               for match in Match.objects.filter(pk__in=[match.pk for match in made])):
            break
        time.sleep(0.2)
    time.sleep(0.5)  # let both clocks tick once more after the end
    for match in made:
        assert list(match.turn_rows.values_list("number", flat=True)) == list(range(1, 26))
        match.refresh_from_db()
        assert stored_equals_replay(match)
    text = [log.read_text() for log in logs]
    claimed = sum(int(line.split("resolved ")[1].split()[0])
                  for log in text for line in log.splitlines() if "resolved " in line)
    assert claimed == 3 * 25, text
    assert "Traceback" not in "".join(text)


# --- sleeping until the next deadline, woken by new matches; stopping cleanly ----------

def wait_for(predicate, what: str, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while not predicate():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.1)


def ticks(log) -> int:
    return log.read_text().count("tick: next in")


def test_an_idle_clock_process_sleeps_instead_of_polling(spawn, tmp_path):
    log = tmp_path / "clock.log"
    spawn("runclock", "-v", "2", "--idle-seconds", "60", log_to=log)
    wait_for(lambda: ticks(log) >= 1, "the first tick")
    time.sleep(0.5)  # the listening connection's first wake-up may add a tick
    before = ticks(log)
    time.sleep(3)
    assert ticks(log) == before, log.read_text()  # polling every 50 ms made 60 here


def test_a_new_match_wakes_a_sleeping_clock_process(spawn, tmp_path):
    from django.db import connection

    if connection.vendor != "postgresql":
        pytest.skip("another process hears of a new match through PostgreSQL's NOTIFY; the "
                    "embedded default's one process is the in-process test below")
    log = tmp_path / "clock.log"
    spawn("runclock", "-v", "2", "--idle-seconds", "600", log_to=log)
    wait_for(lambda: ticks(log) >= 1, "the first tick")
    time.sleep(0.5)
    match, _ = make_match(strategy=0.3, transition=0.1, start_in=0.3, turns=2)
    wait_for(lambda: Turn.objects.filter(match=match).count() == 2, "both turns", seconds=60)


def test_a_new_match_wakes_the_clock_running_in_this_process(transactional_db):
    """The embedded demo's case: the clock on a server's event loop, a match created in
    another thread (SQLite: a direct wake-up; PostgreSQL: its NOTIFY)."""
    with clock_in_this_process():  # it has ticked once and sleeps for up to 10 minutes
        match, _ = make_match(strategy=0.3, transition=0.1, start_in=0.3, turns=2)
        wait_for(lambda: Turn.objects.filter(match=match).count() == 2, "both turns")


def test_the_clock_sends_its_turns_from_a_thread_of_their_own_in_order(transactional_db,
                                                                        monkeypatch):
    """The tick goes on to its next deadline while its turns go out: each tick's turns
    are built by the outbox's announcer thread, after they are stored, in order."""
    import threading

    from matches.live import broadcast

    heard = []
    build = broadcast.turns_news

    def turns_news(played, watched=True):
        stored = Turn.objects.filter(match=played[0][0], number=played[0][1].number).exists()
        heard.append((threading.current_thread().name, played[0][1].number, stored))
        return build(played, watched)

    monkeypatch.setattr(broadcast, "turns_news", turns_news)
    with clock_in_this_process():
        match, _ = make_match(strategy=0.3, transition=0.1, start_in=0.3, turns=4)
        wait_for(lambda: len(heard) == 4, "four turns announced")
    assert [number for _, number, _ in heard] == [1, 2, 3, 4]
    assert all(name.startswith("announcer") and stored for name, _, stored in heard), heard


def test_a_turn_falls_due_while_the_event_loop_is_held_and_is_resolved_all_the_same(
        transactional_db):
    """The clock sleeps and wakes on a thread of its own, the loop only rings it early: a
    turn due while the loop that serves the sockets is held (a storm of connects; here
    one callback that holds it from 0.3 s before the deadline for 1.5 s) is resolved
    before the loop is free again."""
    from django.utils import timezone

    with clock_in_this_process() as loop:
        match, _ = make_match(strategy=1.0, transition=0.2, start_in=0.5, turns=1)
        freed = []

        def hold():
            time.sleep(1.5)
            freed.append(timezone.now())

        lead = (match.deadline(1) - timezone.now()).total_seconds() - 0.3
        loop.call_soon_threadsafe(loop.call_later, lead, hold)
        wait_for(lambda: freed, "the loop free again")
        assert Turn.objects.get(match=match, number=1).resolved_at < freed[0]


@contextlib.contextmanager
def clock_in_this_process():
    """A clock on an event loop in a thread of this process, as the demo runs it, that
    would sleep up to 10 minutes between ticks; stopped (and checked stopped) after.
    It is asleep when the block begins: its first tick is over, and so is the one its
    listener rings for once it listens (PostgreSQL's LISTEN, or the Redis layer's group:
    `clock_alarm`), so that what the block changes reaches it as a wake-up."""
    import asyncio
    import threading

    from channels.layers import get_channel_layer
    from django.db import connection

    from matches.services import clock
    from matches.services.clock import layer_reaches_other_processes, run_clock

    listens = (connection.vendor == "postgresql"
               or layer_reaches_other_processes(get_channel_layer()))
    ticked = threading.Semaphore(0)
    tick = clock.tick_and_wait

    def counted(*args, **kwargs):
        try:
            return tick(*args, **kwargs)
        finally:
            ticked.release()

    loop = asyncio.new_event_loop()
    stop = asyncio.Event()
    server = threading.Thread(target=loop.run_until_complete,
                              args=(run_clock(stop, idle_seconds=600),))
    with mock.patch.object(clock, "tick_and_wait", counted):
        server.start()
        for _ in range(1 + listens):
            assert ticked.acquire(timeout=30), "the clock did not tick"
    try:
        yield loop
    finally:
        loop.call_soon_threadsafe(stop.set)
        server.join(timeout=30)
    assert not server.is_alive()
    loop.close()


@pytest.mark.parametrize("signal_name", ["SIGTERM", "SIGINT"])
def test_a_stopped_clock_finishes_its_tick_and_exits_0(spawn, tmp_path, signal_name):
    import signal

    match, _ = make_match(strategy=0.2, transition=0.05, start_in=0.5, turns=200)
    log = tmp_path / "clock.log"
    clock = spawn("runclock", log_to=log)
    wait_for(lambda: Turn.objects.filter(match=match).count() >= 3, "three turns")
    clock.send_signal(getattr(signal, signal_name))
    assert clock.wait(timeout=30) == 0, log.read_text()
    text = log.read_text()
    assert "Traceback" not in text and text.rstrip().endswith("Clock stopped.")
    match.refresh_from_db()
    numbers = list(match.turn_rows.values_list("number", flat=True))
    assert numbers == list(range(1, match.resolved_turns + 1))  # whole turns, none half-done
    assert match.resolved_turns < match.turns and stored_equals_replay(match)
    time.sleep(1)
    assert match.turn_rows.count() == len(numbers)  # it stopped: nothing more is resolved


def test_the_channel_layer_wakes_the_clocks_of_other_processes():
    """Databases without NOTIFY: a clock listens on the layer's `clock` group (Redis
    reaches every process), and the services' after-commit wake-up sends to it."""
    import asyncio

    from channels.layers import get_channel_layer

    from matches.services.clock import (
        Alarm,
        _clocks_wake,
        _listen_layer,
        layer_reaches_other_processes,
    )

    if not layer_reaches_other_processes(get_channel_layer()):
        pytest.skip("the in-memory layer reaches this process only: its clocks are woken "
                    "directly (the in-process test above)")

    async def scenario():
        alarm = Alarm(asyncio.Event())
        listener = asyncio.create_task(_listen_layer(alarm))
        try:
            await asyncio.wait_for(alarm.rung.wait(), 30)  # it has joined the group
            alarm.rung.clear()
            await asyncio.to_thread(_clocks_wake)  # as after a commit, from another thread
            await asyncio.wait_for(alarm.rung.wait(), 30)
        finally:
            listener.cancel()

    asyncio.run(scenario())


@pytest.mark.django_db
def test_a_start_moved_in_the_admin_wakes_the_clock(transactional_db, rf, admin_user):
    """A judge brings a match forward in the admin: the clock asleep until its old start
    (an hour away) resolves its turns from the new one."""
    from django.contrib import admin
    from django.utils import timezone

    match, _ = make_match(strategy=0.5, transition=0.2, start_in=3600, turns=2)
    with clock_in_this_process():  # asleep: the match's start is an hour away
        model_admin = admin.site._registry[Match]
        request = rf.post("/admin/")
        request.user = admin_user
        match.start_at = timezone.now() + timedelta(seconds=0.5)
        form = model_admin.get_form(request, match)(instance=match)
        model_admin.save_model(request, match, form, change=True)
        wait_for(lambda: Turn.objects.filter(match=match).count() == 2, "both turns")


@pytest.mark.django_db
def test_a_game_its_protocol_server_plays_gives_the_clock_no_deadline():
    """A CHaser game under way has no deadline: its server plays it as the programs
    answer. (Its start, long past, was the clock's wake-up: it ticked without rest.)"""
    from django.utils import timezone

    from matches.protocol_servers.chaser.maps import map_path, map_read
    from matches.services import protocol
    from matches.services.clock import next_wakeup
    from matches.services.matches import match_create

    record = map_read(map_path("akisato_m01"))
    board = protocol.map_board("CHaser m01", record["board"], "map file", "chaser")
    match_create(board=board, team_names=["Cool", "Hot"], agents=1, turns=100,
                 strategy_seconds=0, transition_seconds=0,
                 start_at=timezone.now() - timedelta(seconds=30))
    assert next_wakeup(timezone.now()) is None
    make_match(start_in=10, strategy=1)  # a timed match's first deadline is still heard
    assert next_wakeup(timezone.now()) is not None
