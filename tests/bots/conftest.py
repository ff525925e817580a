"""A clock for the levels that moves on by a fixed tick each time it is read, so that
a test sees a level keep its deadline (and use its time) whatever the machine's load:
wall-clock figures belong to bench/think.py."""

import pytest

from matches.bots import clock


class TickingClock:
    def __init__(self, tick: float) -> None:
        self.time, self.tick = 0.0, tick

    def __call__(self) -> float:
        self.time += self.tick
        return self.time


@pytest.fixture
def ticking(monkeypatch):
    """`ticking(tick)`: the levels' clock from now on, moving `tick` s each read."""
    def install(tick: float) -> TickingClock:
        made = TickingClock(tick)
        monkeypatch.setattr(clock, "now", made)
        return made
    return install
