"""Titles the server makes are said in the reader's language (matches/models/titles.py): a
tournament's match and a later game of a match read in Japanese on a Japanese page and
in Vietnamese on a Vietnamese one, while the stored title, which the records and exports
carry, stays in English; an organiser's own title is shown as written."""

from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone, translation

from matches.models import Match
from matches.services.boards import board_choose
from matches.services.matches import Timing, match_make
from matches.tournaments.runner import tournaments_tick
from matches.tournaments.services import EntrantSpec, Plan, tournament_create

pytestmark = pytest.mark.django_db


def said(match, language):
    with translation.override(language):
        return str(Match.objects.get(pk=match.pk))


def test_a_tournaments_match_is_titled_in_each_readers_language():
    created = tournament_create(Plan(
        name="Kosen Cup", game="kakomimasu", format="knockout", start_at=timezone.now(),
        teams=[EntrantSpec(name) for name in ("Nara", "Hanoi")], boards=["A-1"], turns=3,
        strategy_seconds=1, transition_seconds=0.5, gap_seconds=0, public=True))
    tournaments_tick(timezone.now() + timedelta(seconds=1))
    match = Match.objects.get(fixture__tournament=created.tournament)
    assert match.title == "Kosen Cup · round 1: Nara vs Hanoi"  # the records' words
    assert said(match, "en") == match.title
    assert said(match, "ja") == "Kosen Cup · 1回戦：Nara 対 Hanoi"
    assert said(match, "vi") == "Kosen Cup · vòng 1: Nara gặp Hanoi"
    state = Client().get(f"/api/matches/{match.pk}?lang=ja").json()
    assert state["titles"]["ja"] == "Kosen Cup · 1回戦：Nara 対 Hanoi"
    assert state["titles"]["en"] == match.title


def test_a_later_games_title_says_its_number_in_the_readers_language():
    made = match_make(game="procon2020", team_names=["Hà Nội", "Huế"],
                      start_at=timezone.now(), boards=[board_choose("procon2020", "random:1")],
                      timing=Timing(turns=3, strategy_seconds=4, transition_seconds=1),
                      title="Final")
    first, second = made.games
    assert second.title == "Final (game 2)"
    assert (said(first, "ja"), said(second, "ja")) == ("Final", "Final（第2ゲーム）")
    assert said(second, "vi") == "Final (ván 2)"
    untitled = match_make(game="procon2020", team_names=["A", "B"], start_at=timezone.now())
    assert said(untitled.games[1], "ja") == f"試合 {untitled.games[1].pk}"


def test_a_protocol_servers_later_game_says_its_number_in_the_readers_language():
    from matches.services import protocol
    from tests.protocol_servers.test_chaser_audit import BOARD, TURNS

    board = protocol.map_board("CHaser test map", BOARD, "a test", "chaser")
    first = protocol.game_create(board=board, team_names=["Cool", "Hot"], turns=TURNS,
                                 title="Cool vs Hot", public_live=True, games=3)
    later = protocol.game_create(board=board, team_names=["Hot", "Cool"], turns=TURNS,
                                 title="Hot vs Cool", public_live=True, games=3,
                                 first=first.match_id, number=2)
    match = Match.objects.get(pk=later.match_id)
    assert match.title == "Hot vs Cool (game 2)"
    assert said(match, "vi") == "Hot vs Cool (ván 2)"
    assert said(Match.objects.get(pk=first.match_id), "ja") == "Cool vs Hot"


def test_a_protocol_servers_tournament_game_is_titled_in_each_readers_language():
    # A CHaser tournament's fixture, as its protocol server claims and plays it: the
    # title in parts reaches each game, a later game's number said after it.
    from matches.services import protocol
    from matches.tournaments.runner import protocol_fixture_claim
    from tests.protocol_servers.test_chaser_audit import BOARD, TURNS

    created = tournament_create(Plan(
        name="U-16 Cup", game="chaser", format="knockout", start_at=timezone.now(),
        teams=[EntrantSpec(name) for name in ("Nara", "Hanoi")], turns=TURNS, public=True))
    claimed = protocol_fixture_claim(created.tournament.pk, timezone.now())
    assert claimed.title == "U-16 Cup · round 1: Nara vs Hanoi"
    board = protocol.map_board("CHaser test map", BOARD, "a test", "chaser")
    first = protocol.game_create(board=board, team_names=list(claimed.names), turns=TURNS,
                                 title=claimed.title, title_parts=claimed.title_parts,
                                 public_live=True, games=2)
    later = protocol.game_create(board=board, team_names=list(claimed.names[::-1]),
                                 turns=TURNS, title=claimed.title,
                                 title_parts=claimed.title_parts, public_live=True, games=2,
                                 first=first.match_id, number=2)
    assert said(Match.objects.get(pk=first.match_id), "ja") == "U-16 Cup · 1回戦：Nara 対 Hanoi"
    match = Match.objects.get(pk=later.match_id)
    assert match.title == "U-16 Cup · round 1: Nara vs Hanoi (game 2)"
    assert said(match, "vi") == "U-16 Cup · vòng 1: Nara gặp Hanoi (ván 2)"
