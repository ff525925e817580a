"""A fast scrimmage waits for its programs (docs/programs.md, "Fast play"): it starts a
moment after a worker has taken its last run, its later games as much earlier; one no
worker takes before the end of its wait is void; and a turn that closes early brings
the match's next game forward by as much."""

from datetime import timedelta

import pytest
from django.utils import timezone

from matches.hosted.watch import unstarted_end
from matches.hosting import sandbox
from matches.models import HostedRun, Match
from matches.selectors import match_games
from matches.services.programs import (
    PROGRAMS_LEAD,
    PROGRAMS_WAIT,
    programs_taken,
    scrimmage_start,
)
from tests.factories import submit
from tests.hosting.test_programs import built

pytestmark = [pytest.mark.django_db(transaction=True),
              pytest.mark.skipif(bool(sandbox.available()), reason=sandbox.available()
                                 or "the sandbox is available")]


def programs(game: str) -> tuple[int, int]:
    return tuple(built("python", "main.py", b"print(1)\n", team=team, game=game).program_id
                 for team in ("Nara", "Hanoi"))


def taken(match: Match, now) -> None:
    HostedRun.objects.filter(match=match).update(status=HostedRun.PLAYING, started_at=now)


def test_it_starts_once_its_last_run_is_taken_and_its_later_games_with_it():
    now = timezone.now()
    match = scrimmage_start(programs("procon2020"), now=now)
    games = match_games(match)
    assert len(games) == 2 and all(game.fast_play for game in games)
    assert match.start_at >= now + PROGRAMS_WAIT
    gap = games[1].start_at - games[0].start_at
    HostedRun.objects.filter(match=match, team_index=0).update(status=HostedRun.PLAYING)
    assert not programs_taken(match.pk, now)  # one program only: it still waits
    taken(match, now)
    assert programs_taken(match.pk, now)
    moved = match_games(Match.objects.get(pk=match.pk))
    assert now + PROGRAMS_LEAD <= moved[0].start_at < now + PROGRAMS_LEAD + timedelta(seconds=1)
    assert moved[1].start_at - moved[0].start_at == gap
    assert not programs_taken(match.pk, now)  # (once)


def test_one_that_no_worker_takes_before_its_start_is_void():
    match = scrimmage_start(programs("kakomimasu"), board="A-1")
    assert unstarted_end(match.start_at - timedelta(seconds=1)) == 0
    assert unstarted_end(match.start_at) == 2
    ended = Match.objects.get(pk=match.pk)
    assert ended.over and ended.result["decided_by"] == "void"
    assert set(HostedRun.objects.filter(match=match).values_list("ended_by", flat=True)) == \
        {"no worker took it"}


def test_a_turn_closed_early_brings_the_next_game_forward_as_much():
    now = timezone.now()
    match = scrimmage_start(programs("procon2020"), now=now)
    taken(match, now)
    programs_taken(match.pk, now)
    match = Match.objects.get(pk=match.pk)
    before = match_games(match)[1].start_at
    tokens = []
    from matches.services.tokens import token_reissue
    for team in match.teams.order_by("index"):
        tokens.append(token_reissue(team))
    submit(match, tokens[0], [], 1)
    submit(match, tokens[1], [], 1)  # both answered a second into the step
    closed = Match.objects.get(pk=match.pk)
    moved = before - match_games(closed)[1].start_at
    assert moved == match.deadline(1) - closed.deadline(1) > timedelta(0)
