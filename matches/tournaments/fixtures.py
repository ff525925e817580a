"""A round's fixtures as unsaved rows, from the pairings `pairing.py` draws: made when a
tournament is created (`services.py`) and when the runner draws the next round
(`runner.py`), which both store them. A bye is won at once."""

from __future__ import annotations

from collections.abc import Sequence

from django.utils import timezone

from matches.models import Fixture


def knockout_fixtures(number: int, pairs: Sequence[tuple[int, int | None]],
                      seeds: Sequence[int], stage: str = Fixture.KNOCKOUT) -> list[Fixture]:
    """A knockout round's fixtures from pairs of places in `seeds` (None: a bye, won at
    once)."""
    now = timezone.now()
    fixtures = []
    for slot, (a, b) in enumerate(pairs):
        fixture = Fixture(round=number, slot=slot, stage=stage, team_a=seeds[a],
                          team_b=None if b is None else seeds[b])
        if b is None:
            fixture.winner, fixture.finished_at, fixture.decided_by = seeds[a], now, "bye"
        fixtures.append(fixture)
    return fixtures


def swiss_fixtures(number: int, pairs: Sequence[tuple[int, int]],
                   bye: int | None) -> list[Fixture]:
    """A Swiss round's fixtures from its pairs of seeds, and the bye's (the team left
    over, if any)."""
    fixtures = [Fixture(round=number, slot=slot, team_a=a, team_b=b)
                for slot, (a, b) in enumerate(pairs)]
    if bye is not None:
        fixtures.append(Fixture(round=number, slot=len(pairs), team_a=bye, winner=bye,
                                finished_at=timezone.now(), decided_by="bye"))
    return fixtures
