"""The tournaments' runner works when something happens, not at every tick: a round's
last match ending opens the next round at the next tick; with nothing to do, a tick
asks the database nothing."""

from datetime import timedelta

import pytest

from matches.models import Fixture, Match, Tournament
from matches.services import seats as seats_module
from matches.services.clock import clock_tick, tick_and_wait, wakes_from_other_processes
from matches.tournaments.runner import READ_SECONDS, tournaments_tick
from matches.tournaments.services import EntrantSpec, Plan, tournament_create

pytestmark = pytest.mark.django_db(transaction=True)  # a match's end is heard at its commit


def cup(clock, **plan):
    defaults = {"name": "Cup", "game": "kakomimasu", "format": "knockout",
                "teams": [EntrantSpec(n) for n in ("Alpha", "Beta", "Gamma", "Delta")],
                "start_at": clock.now(), "boards": ["A-1"], "turns": 2,
                "strategy_seconds": 1.0, "transition_seconds": 0.5, "gap_seconds": 0.0}
    return tournament_create(Plan(**{**defaults, **plan})).tournament


def test_the_next_round_opens_at_the_tick_after_the_last_match_ends(clock):
    tournament = cup(clock, format="round-robin")  # drawn matches end a fixture too
    tournaments_tick(clock.now())
    first = list(Match.objects.filter(fixture__round=1))
    assert len(first) == 2
    Tournament.objects.filter(pk=tournament.pk).update(next_check_at=None)  # no backstop
    ended_at = None
    for _ in range(200):  # the matches are played (no actions: both teams stay)
        clock.advance(0.25)
        clock_tick(clock.now())
        if ended_at is None and all(m.over for m in Match.objects.filter(fixture__round=1)):
            ended_at = clock.now()
        tournaments_tick(clock.now())
        if Match.objects.filter(fixture__round=2).exists():
            break
    assert ended_at is not None, "round 1 never ended"
    made = Match.objects.filter(fixture__round=2).order_by("pk").first()
    assert made is not None, "round 2 never opened"
    # made at the very tick that saw round 1's end (its start comes START_SECONDS later)
    assert made.start_at - timedelta(seconds=5) - ended_at <= timedelta(seconds=1)
    assert Match.objects.filter(fixture__round=2).count() == 2
    assert Fixture.objects.filter(tournament=tournament, round=1, finished_at=None).count() == 0


def test_with_nothing_to_do_a_tick_asks_the_database_nothing(clock,
                                                            django_assert_num_queries):
    cup(clock, start_at=clock.now() + timedelta(seconds=30))  # no bots; not started yet
    tournaments_tick(clock.now())  # reads the schedule once: nothing due before its start
    embedded = not wakes_from_other_processes()
    for second in range(1, 21):
        clock.advance(1)
        # (on the embedded default, which no other process can wake, the schedule is
        # read again every READ_SECONDS: a tournament made there is found so)
        reads = 2 if embedded and second % READ_SECONDS == 0 else 0
        with django_assert_num_queries(reads):
            tournaments_tick(clock.now())
    clock.advance(10)  # its start has come: it is looked at, and its matches made
    tournaments_tick(clock.now())
    assert Match.objects.filter(fixture__round=1).count() == 2


def test_the_clock_sleeps_no_longer_than_the_runner_asks(clock):
    assert tick_and_wait(idle_seconds=60, woken=True) == 60  # nothing scheduled anywhere
    tournament = cup(clock, start_at=clock.now() + timedelta(seconds=20), bots=True)
    # its start is when the runner must look next: the clock wakes for it
    assert tick_and_wait(idle_seconds=60, woken=True) == pytest.approx(20, abs=0.01)
    clock.advance(20)
    tick_and_wait(idle_seconds=60, woken=True)  # opens round 1: the bots' matches
    assert Match.objects.filter(fixture__tournament=tournament).exists()
    # the seated levels' driver looks again within its TICK
    assert tick_and_wait(idle_seconds=60, woken=True) == seats_module.TICK
