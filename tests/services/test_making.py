"""match_make, the one way a match is made (creatematch, the demo, the tournaments'
runner): its boards, the defaults its boards and rules give, its later games and their
starts, in one transaction."""

import json
from datetime import timedelta

import pytest
from django.utils import timezone

from matches.access import team_by_authorization
from matches.boards.specs import board_spec_public
from matches.models import Board, Match
from matches.rules import rules_for
from matches.rules.checks import RecordError
from matches.services.boards import board_choose
from matches.services.matches import Timing, match_make

pytestmark = pytest.mark.django_db
START = timezone.now().replace(microsecond=0) + timedelta(minutes=5)


def team_of(token: str, game: Match):
    return team_by_authorization(f"Bearer {token}", game.pk)


def test_a_timed_match_takes_its_boards_settings_and_the_default_steps():
    made = match_make(game="kakomimasu", team_names=["Alpha", "Beta"], start_at=START,
                      boards=[board_choose("kakomimasu", "A-1")])
    hints = board_spec_public("kakomimasu", "A-1")[1]
    match = made.match
    assert made.games == [match] and match.match_games == 1
    assert (match.agents, match.turns) == (hints["agents"], hints["turns"])
    assert (match.strategy_ms, match.transition_ms, match.clock_ms) == (5000, 1000, None)
    assert (match.board.name, match.start_at, match.title) == ("A-1", START, "")
    assert [team_of(token, match).name for token in made.tokens] == ["Alpha", "Beta"]


def test_what_the_organiser_sets_wins_over_the_boards_settings():
    made = match_make(game="kakomimasu", team_names=["Alpha", "Beta"], start_at=START,
                      boards=[board_choose("kakomimasu", "A-1")], agents=3,
                      timing=Timing(turns=7, strategy_seconds=2, transition_seconds=0),
                      title="Final", public_live=True, team_shorts=["AL", "BE"])
    match = made.match
    assert (match.agents, match.turns, match.strategy_ms, match.transition_ms) == (3, 7, 2000, 0)
    assert (match.title, match.public_live) == ("Final", True)
    assert list(match.teams.values_list("short", flat=True)) == ["AL", "BE"]


def test_a_record_files_title_is_the_matchs_unless_one_is_given(tmp_path):
    record = {"format": "match-record/1", "game": "kakomimasu", "title": "Semi-final",
              "board": {"width": 3, "height": 3, "points": [[1, 2, 3]] * 3},
              "agents": 1, "turns": 4, "teams": [{"name": "A"}, {"name": "B"}]}
    path = tmp_path / "semi.json"
    path.write_text(json.dumps(record))
    made = match_make(game="kakomimasu", team_names=["A", "B"], start_at=START,
                      boards=[board_choose("kakomimasu", str(path))])
    assert (made.match.title, made.match.agents, made.match.turns) == ("Semi-final", 1, 4)
    retitled = match_make(game="kakomimasu", team_names=["A", "B"], start_at=START,
                          boards=[board_choose("kakomimasu", str(path))], title="Final")
    assert retitled.match.title == "Final"


def test_every_game_of_a_match_is_made_ahead_each_after_the_last_turn_and_the_pause():
    made = match_make(game="procon2020", team_names=["Hà Nội", "Huế"], start_at=START,
                      boards=[board_choose("procon2020", "random:1")],
                      timing=Timing(turns=3, strategy_seconds=4, transition_seconds=1,
                                    between_seconds=20), title="Final")
    first, second = made.games
    assert len(made.games) == rules_for("procon2020").games_per_match == 2
    assert second.first_game == first and second.secret_board and not first.secret_board
    assert second.start_at == START + timedelta(seconds=3 * 5 + 20)
    assert (second.turns, second.strategy_ms, second.title) == (3, 4000, "Final (game 2)")
    assert second.board != first.board and second.board.name.startswith("random ")
    assert second.agents == len(second.board.data["start"][0])  # its own board's agents
    assert [(team_of(token, second).match, team_of(token, second).index)
            for token in made.tokens] == [(second, 0), (second, 1)]


def test_a_negative_pause_starts_the_next_game_at_the_last_turns_end():
    made = match_make(game="procon2020", team_names=["A", "B"], start_at=START,
                      timing=Timing(turns=2, between_seconds=-10))
    first, second = made.games
    assert second.start_at == START + 2 * first.period
    assert first.board.name.startswith("random ") and second.title == ""


def test_an_alternating_match_has_its_rules_board_turns_and_clock():
    rules = rules_for("blokus-duo")
    made = match_make(game="blokus-duo", team_names=["A", "B"], start_at=START,
                      timing=Timing(turns=5, strategy_seconds=3))
    match = made.match
    assert match.clock_ms == rules.default_clock_seconds * 1000
    assert (match.strategy_ms, match.transition_ms) == (0, 0)
    assert match.turns == rules.max_turns and match.board.name == "Blokus Duo 14×14"
    timed = match_make(game="blokus-duo", team_names=["A", "B"], start_at=START,
                       timing=Timing(clock_seconds=60))
    assert timed.match.clock_ms == 60000 and timed.match.board == match.board


def test_a_title_no_match_may_have_stores_nothing():
    with pytest.raises(RecordError, match="title"):
        match_make(game="procon2020", team_names=["A", "B"], start_at=START,
                   title="bad\x00title")
    assert not Match.objects.exists() and not Board.objects.exists()
