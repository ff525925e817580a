"""Scrimmages a team asks for on its programs' page, and a judge on theirs (docs/programs.md,
"The pages"): its program's latest built version against another team's program of the
same game (`programs.scrimmage_start`) or against one of the game's built-in levels,
played as a practice match's level is (services/seats.py). A team's scrimmages are
counted, as its hand-ins are: each one keeps workers busy for a whole match."""

from __future__ import annotations

from datetime import datetime, timedelta

from django.db import transaction
from django.utils import timezone

from matches.models import Match, Program, Team
from matches.rules import rules_for
from matches.selectors.programs import level_seats
from matches.services.matches import Timing, match_make
from matches.services.programs import (
    SCRIMMAGE_START,
    ProgramError,
    hosted_seat,
    latest_ready,
    scrimmage_board,
    scrimmage_start,
)

# Scrimmages a team may ask for in an hour (the judges' are not counted): a scrimmage
# holds a worker for its whole match, and a team's tries should not crowd out the
# others'. A team's are the scrimmages its own program plays as team A (the page seats
# the one who asks first); its ladder's and tournaments' matches are not scrimmages.
SCRIMMAGES_AN_HOUR = 12
SCRIMMAGE_TITLE = "Scrimmage: "  # (as scrimmage_start titles them)


def scrimmages_check(name: str, now: datetime) -> None:
    """ProgramError 429 for a team that asked for SCRIMMAGES_AN_HOUR scrimmages this hour."""
    asked = Match.objects.filter(
        created_at__gt=now - timedelta(hours=1), title__startswith=SCRIMMAGE_TITLE,
        hosted_runs__team_index=0,
        hosted_runs__version__program__name=name).distinct().count()
    if asked >= SCRIMMAGES_AN_HOUR:
        raise ProgramError(429, "too_many_scrimmages", f"at most {SCRIMMAGES_AN_HOUR} "
                                                       "scrimmages an hour: try again later")


def scrimmage_ask(*, program_id: int, opponent: str, team: str | None,
                  now: datetime | None = None) -> Match:
    """A scrimmage of program `program_id` (of `team`, when a team asks; any program, when
    a judge does: `team` None) against `opponent`: "program:<id>" or "level-<n>"."""
    now = now or timezone.now()
    program = Program.objects.filter(pk=program_id).first()
    if program is None or (team is not None and program.name != team):
        raise ProgramError(404, "no_program", f"no program {program_id} of yours")
    kind, number = _opponent(opponent)
    if team is not None:
        if kind == "program" and Program.objects.filter(pk=number, name=team).exists():
            raise ProgramError(400, "bad_opponent", "choose another team's program")
        scrimmages_check(team, now)
    if kind == "program":
        return scrimmage_start((program.pk, number), now=now)
    return scrimmage_with_level(program.pk, number, now=now)


def _opponent(opponent: str) -> tuple[str, int]:
    """("program", id) for "program:<id>", ("level", n) for "level-<n>"."""
    for kind, prefix in (("program", "program:"), ("level", "level-")):
        number = opponent[len(prefix):] if opponent.startswith(prefix) else ""
        if number.isdigit() and len(number) < 10:
            return kind, int(number)
    raise ProgramError(400, "bad_opponent", "choose a program or a level to play")


def scrimmage_with_level(program_id: int, level: int, *, board: str | None = None,
                         timing: Timing | None = None, now: datetime | None = None) -> Match:
    """A match between a program's latest built version (team A, hosted) and its game's
    built-in level `level` (team B), public live, starting as any scrimmage does."""
    now, timing = now or timezone.now(), timing or Timing()
    program = Program.objects.filter(pk=program_id).first()
    if program is None:
        raise ProgramError(404, "no_program", f"no program {program_id}")
    game = program.game
    if level not in level_seats(game):
        raise ProgramError(400, "bad_opponent", f"{rules_for(game).title} has no built-in "
                                                f"level {level} here")
    latest_ready(program)
    chosen = scrimmage_board(game, board, timing)
    names = [program.name, f"Level {level}"]
    with transaction.atomic():
        made = match_make(game=game, team_names=names, start_at=now + SCRIMMAGE_START,
                          boards=[chosen], timing=timing, public_live=True,
                          title=f"{SCRIMMAGE_TITLE}{names[0]} vs {names[1]}")
        Team.objects.filter(match__in=made.games, index=1).update(seat=f"level-{level}")
        hosted_seat(made.games, 0, program.pk)
    return made.match
