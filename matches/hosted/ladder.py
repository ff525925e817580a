"""The ladder of programs (docs/programs.md, "The ladder"): every program with a version
that built plays a few fast games an hour against its neighbours in rating, unattended,
so that a game's ladder keeps moving while the teams sleep.

The clock looks every LOOK_SECONDS (after a tick, as for lost workers: hosted/watch.py)
and, for each game, starts at most one ladder match a look: for the program that has
played the fewest ladder matches in the last hour (fewer than GAMES_AN_HOUR), against
one of the NEIGHBOURS other programs nearest to it on the game's ladder (a program not
rated yet stands at the newcomers' rating), while fewer than AT_ONCE of the game's
ladder matches are under way (the workers are shared with scrimmages and tournaments).
The matches are scrimmages (`programs.scrimmage_start`, fast play) titled "Ladder: …",
rated as any hosted program's game (services/ladder.py). It starts matches; the workers
play them: no clock runs a program.
"""

from __future__ import annotations

import logging
import random
from datetime import datetime, timedelta

from django.conf import settings
from django.dispatch import receiver

from matches.caches import Every
from matches.models import HostedRun, LadderStanding, Match, Program, ProgramVersion
from matches.services.clock import clock_ticked
from matches.services.ladder import MODEL
from matches.services.programs import ProgramError, scrimmage_start

log = logging.getLogger(__name__)

LOOK_SECONDS = 30.0
NEIGHBOURS = 3  # the nearest in rating, one chosen at random
KIND = "Ladder"  # the matches' titles begin with it
LOOKS = Every("ladder look", LOOK_SECONDS)


def games_an_hour() -> int:
    """Ladder matches a program plays an hour (the settings'; 0: no ladder)."""
    return settings.HOSTED_LADDER_GAMES_AN_HOUR


def at_once() -> int:
    """A game's ladder matches under way at most (the settings')."""
    return settings.HOSTED_LADDER_AT_ONCE


def ladder_look(now: datetime) -> list[int]:
    """Start the ladder matches due now; their ids."""
    if games_an_hour() <= 0:
        return []
    current = Program.objects.filter(versions__status=ProgramVersion.READY).distinct()
    started = []
    for game in sorted(set(current.values_list("game", flat=True))):
        match = _one_for(game, list(current.filter(game=game)), now)
        if match is not None:
            started.append(match.pk)
    return started


def _ladder_matches(game: str):
    return Match.objects.filter(game=game, title__startswith=f"{KIND}: ",
                                first_game__isnull=True)


def _one_for(game: str, programs: list[Program], now: datetime) -> Match | None:
    if len(programs) < 2:
        return None
    under_way = [match for match in _ladder_matches(game).filter(
        created_at__gt=now - timedelta(hours=6)) if not match.over]
    if len(under_way) >= at_once():
        return None
    played = _played_this_hour(game, now)
    due = sorted((program for program in programs
                  if played.get(program.pk, 0) < games_an_hour()),
                 key=lambda program: (played.get(program.pk, 0), program.pk))
    if not due:
        return None
    ratings = _ratings(game, programs)
    first = due[0]
    others = sorted((program for program in programs if program.pk != first.pk),
                    key=lambda program: abs(ratings[program.pk] - ratings[first.pk]))
    second = random.choice(others[:NEIGHBOURS])
    try:
        return scrimmage_start((first.pk, second.pk), now=now, kind=KIND)
    except ProgramError as error:  # (a version gone since, say): the next look tries again
        log.warning("the %s ladder could not start %s v %s: %s", game, first, second, error)
        return None


def _played_this_hour(game: str, now: datetime) -> dict[int, int]:
    """Ladder matches each program played (or plays) in the last hour, by program id."""
    runs = HostedRun.objects.filter(
        match__in=_ladder_matches(game).filter(created_at__gt=now - timedelta(hours=1)))
    counts: dict[int, int] = {}
    for program_id in runs.values_list("version__program_id", flat=True):
        counts[program_id] = counts.get(program_id, 0) + 1
    return counts


def _ratings(game: str, programs: list[Program]) -> dict[int, float]:
    """Each program's rating on its game's ladder (its team's standing)."""
    stood = dict(LadderStanding.objects.filter(
        game=game, kind=LadderStanding.TEAM, name__in=[p.name for p in programs])
        .values_list("name", "rating"))
    newcomer = MODEL.rating().mu
    return {program.pk: stood.get(program.name, newcomer) for program in programs}


@receiver(clock_ticked)
def _clock_ticked(sender, now: datetime, woken: bool, **kwargs) -> None:
    if LOOKS.due(now):
        ladder_look(now)
    return None
