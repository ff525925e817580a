from datetime import timedelta

import pytest
from django.utils import timezone

from matches.models import Fixture
from matches.services import seats as seats_module
from matches.services.clock import clock_tick
from matches.tournaments.runner import tournaments_tick
from tests.api.conftest import Clock


@pytest.fixture
def clock(monkeypatch):
    """Every part of the server reads this time; the test moves it. The seated levels
    think for a moment only (the held clock never runs their step out)."""
    held = Clock(timezone.now())
    monkeypatch.setattr("django.utils.timezone.now", held.now)
    monkeypatch.setattr(seats_module, "BUDGET_CAP", seats_module.MIN_BUDGET)
    return held


def run_until(tournament, clock, done=None, step: float = 0.5, limit: float = 3600.0) -> float:
    """Drive the turn clock, the tournaments' runner and the seated levels as `runclock`
    does, on the held clock, until `done()` (by default: the tournament has ended); the
    seconds played. The levels' answers of a step are sent before the clock moves on."""
    done = done or (lambda: tournament.finished_at is not None)
    spent = 0.0
    while spent < limit:
        clock_tick(clock.now())
        tournaments_tick(clock.now())
        seats_module.seats_tick(clock.now(), woken=True)
        seats_module.seats.executor.submit(lambda: None).result(120)
        tournament.refresh_from_db()
        if done():
            return spent
        clock.advance(step)
        spent += step
    fixtures = Fixture.objects.filter(tournament=tournament).values_list(
        "round", "team_a", "team_b", "winner", "finished_at")
    raise AssertionError(f"{tournament} did not get there in {limit} s: {list(fixtures)}")


def later(seconds: float = 1.0):
    return timezone.now() + timedelta(seconds=seconds)
