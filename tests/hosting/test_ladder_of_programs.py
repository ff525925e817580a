"""The ladder of programs (docs/programs.md, "The ladder"): the clock starts fast
ladder matches between programs near each other in rating, a few an hour each, a few
at once, and their games are rated on the game's ladder as their teams'."""

from datetime import timedelta

import pytest
from django.test import override_settings
from django.utils import timezone

from matches.hosted.ladder import ladder_look
from matches.hosting import sandbox
from matches.models import LadderStanding, Match
from matches.services.clock import clock_tick
from matches.services.control import match_void
from matches.services.ladder import ladder_record
from tests.hosting.test_programs import built

pytestmark = [pytest.mark.django_db,
              pytest.mark.skipif(bool(sandbox.available()), reason=sandbox.available()
                                 or "the sandbox is available")]

PLAYER = b"print('hello')\n"


def void(match_id: int) -> None:
    match_void(match_id=match_id, reason="the test is done with it", judge="test")


def played_out(match: Match) -> Match:
    """Every turn of `match` resolved by the clock, as at its last deadline."""
    for _ in range(200):
        match = Match.objects.get(pk=match.pk)
        if match.over:
            return match
        clock_tick(now=match.deadline(match.turns) + timedelta(seconds=5))
    raise AssertionError("the clock did not play it out")


def programs(*teams: str) -> list[int]:
    return [built("python", "main.py", PLAYER, team=team, game="kakomimasu").program_id
            for team in teams]


@override_settings(HOSTED_LADDER_GAMES_AN_HOUR=2, HOSTED_LADDER_AT_ONCE=1)
def test_the_clock_starts_fast_ladder_matches_a_few_at_once_and_an_hour():
    programs("Nara", "Hanoi")
    now = timezone.now()
    first = ladder_look(now)
    assert len(first) == 1
    match = Match.objects.get(pk=first[0])
    assert match.title == "Ladder: Nara vs Hanoi" and match.fast_play
    assert ladder_look(now + timedelta(seconds=1)) == []  # one at once: it is under way
    void(match.pk)
    second = ladder_look(now + timedelta(seconds=2))
    assert len(second) == 1  # each has played one of its two this hour
    void(second[0])
    assert ladder_look(now + timedelta(seconds=3)) == []  # both had their two
    assert len(ladder_look(now + timedelta(hours=1, seconds=5))) == 1  # a new hour


@override_settings(HOSTED_LADDER_GAMES_AN_HOUR=0)
def test_no_ladder_when_it_is_off_nor_for_a_program_alone():
    programs("Nara", "Hanoi")
    assert ladder_look(timezone.now()) == []


@override_settings(HOSTED_LADDER_GAMES_AN_HOUR=4, HOSTED_LADDER_AT_ONCE=3)
def test_a_program_meets_its_neighbours_in_rating():
    ids = programs("Low", "Mid", "High", "Top", "Far")
    for name, rating in (("Low", 5.0), ("Mid", 20.0), ("High", 21.0), ("Top", 22.0),
                         ("Far", 40.0)):
        LadderStanding.objects.create(game="kakomimasu", kind=LadderStanding.TEAM, name=name,
                                      mu=rating, sigma=3.0, rating=rating,
                                      updated_at=timezone.now())
    assert ids
    match = Match.objects.get(pk=ladder_look(timezone.now())[0])
    names = [team.name for team in match.teams.order_by("index")]
    assert names[0] == "Low" and names[1] in ("Mid", "High", "Top")  # never Far


def test_a_hosted_programs_game_is_rated_as_its_teams():
    ids = programs("Nara", "Hanoi")
    from matches.services.programs import scrimmage_start

    match = played_out(scrimmage_start((ids[0], ids[1]), board="A-1", kind="Ladder"))
    ladder_record(match)
    rated = {standing.name: standing for standing in LadderStanding.objects.filter(
        game="kakomimasu", kind=LadderStanding.TEAM)}
    assert set(rated) == {"Nara", "Hanoi"}
    assert sum(s.wins + s.draws + s.losses for s in rated.values()) == 2
