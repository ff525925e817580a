from datetime import timedelta

import pytest
from django.utils import timezone

from matches.models import Fixture
from matches.services.clock import clock_tick
from matches.tournaments.runner import tournaments_tick
from tests.api.conftest import Clock


@pytest.fixture
def clock(monkeypatch):
    """Every part of the server reads this time; the test moves it."""
    held = Clock(timezone.now())
    monkeypatch.setattr("django.utils.timezone.now", held.now)
    return held


def run_until(tournament, clock, done=None, step: float = 0.5, limit: float = 3600.0) -> float:
    """Drive the turn clock and the tournaments' runner as `runclock` does, on the held
    clock, until `done()` (by default: the tournament has ended); the seconds played."""
    done = done or (lambda: tournament.finished_at is not None)
    spent = 0.0
    while spent < limit:
        clock_tick(clock.now())
        tournaments_tick(clock.now())
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
