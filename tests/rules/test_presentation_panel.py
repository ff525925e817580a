"""What the venue screen's side panel asks of each game's rules: who leads and the bar
between the cards, the end of a match in words, and each game's own panel parts."""

import pytest

from matches.rules import rules_for
from matches.rules.blokus_duo import move_words, unplaced_pieces
from matches.rules.blokus_duo_board import new_state, placement, play

NAMES = ["Alpha", "Beta"]


def kakomimasu(a, b):
    return [{"wall": 0, "territory": a, "total": a}, {"wall": 0, "territory": b, "total": b}]


def test_the_bar_is_the_share_of_two_positive_totals():
    lead = rules_for("kakomimasu").lead(kakomimasu(30, 10))
    assert lead == {"team": 0, "margin": 20, "share": 0.75}


def test_with_both_totals_negative_the_bar_still_shows_who_leads():
    """−109 against −13: Beta leads by 96, and the bar is not 50/50."""
    lead = rules_for("kakomimasu").lead(kakomimasu(-109, -13))
    assert lead["team"] == 1 and lead["margin"] == 96
    assert lead["share"] < 0.2


def test_a_negative_total_against_a_positive_one():
    lead = rules_for("procon2020").lead(
        [{"tile": -5, "area": 0, "treasure": 0, "total": -5},
         {"tile": 5, "area": 0, "treasure": 0, "total": 5}])
    assert lead == {"team": 1, "margin": 10, "share": 0.0}


def test_nothing_scored_yet_is_an_even_bar():
    assert rules_for("kakomimasu").lead(kakomimasu(0, 0)) == {
        "team": None, "margin": 0, "share": 0.5}


def test_blokus_duo_a_five_square_lead_is_not_the_whole_bar():
    lead = rules_for("blokus-duo").lead([{"remaining": 84}, {"remaining": 89}])
    assert lead["team"] == 0 and lead["margin"] == 5
    assert 0.5 < lead["share"] < 0.6


def test_blokus_duo_fewer_squares_left_take_more_of_the_bar():
    lead = rules_for("blokus-duo").lead([{"remaining": 30}, {"remaining": 10}])
    assert lead["team"] == 1 and lead["share"] < 0.5


def test_chaser_hot_wins_on_trapped_though_cool_took_more_items():
    lead = rules_for("chaser").lead([{"items": 4}, {"items": 1}],
                                    {"winner": 1, "decided_by": "trapped"})
    assert lead["team"] == 1
    assert lead["share"] == 0.0  # the whole bar is Hot's


def test_chaser_won_on_items_keeps_the_items_bar():
    lead = rules_for("chaser").lead([{"items": 3}, {"items": 1}],
                                    {"winner": 0, "decided_by": "items"})
    assert lead == {"team": 0, "margin": 2, "share": 0.75}


def test_a_tie_break_win_names_the_winner_on_an_even_bar():
    scores = [{"wall": 60, "territory": 60, "total": 120},
              {"wall": 55, "territory": 65, "total": 120}]
    lead = rules_for("kakomimasu").lead(scores, {"winner": 0, "decided_by": "wall"})
    assert lead == {"team": 0, "margin": 0, "share": 0.5}


@pytest.mark.parametrize("game, scores, result, words", [
    ("kakomimasu", kakomimasu(250, 216), {"winner": 0, "decided_by": "total"},
     "Alpha wins by 34 points"),
    ("kakomimasu", kakomimasu(-13, -109), {"winner": 0, "decided_by": "total"},
     "Alpha wins by 96 points"),
    ("kakomimasu", kakomimasu(9, 10), {"winner": 1, "decided_by": "total"},
     "Beta wins by 1 point"),
    ("kakomimasu", [{"wall": 60, "territory": 60, "total": 120},
                    {"wall": 55, "territory": 65, "total": 120}],
     {"winner": 0, "decided_by": "wall"}, "Alpha wins on wall: 120 points each"),
    ("procon2020", [{"tile": 7, "area": 0, "treasure": 0, "total": 7}] * 2,
     {"winner": None, "decided_by": "draw"}, "A draw: 7 points each"),
    ("chaser", [{"items": 4}, {"items": 1}], {"winner": 1, "decided_by": "trapped"},
     "Beta (Hot) wins: Alpha (Cool) is boxed in"),
    ("chaser", [{"items": 0}, {"items": 2}], {"winner": 0, "decided_by": "capture"},
     "Alpha (Cool) wins: Beta (Hot) is captured (a block was put on it)"),
    ("chaser", [{"items": 0}, {"items": 0}], {"winner": 0, "decided_by": "buried"},
     "Alpha (Cool) wins: Beta (Hot) walked into a block or off the map"),
    ("chaser", [{"items": 5}, {"items": 3}], {"winner": 0, "decided_by": "items"},
     "Alpha (Cool) wins by 2 items"),
    ("chaser", [{"items": 5}, {"items": 3}], {"winner": None, "decided_by": "draw"},
     "A draw: both players are stuck"),
    ("chaser", [{"items": 3}, {"items": 3}], {"winner": None, "decided_by": "draw"},
     "A draw: 3 items each"),
    ("blokus-duo", [{"remaining": 12}, {"remaining": 17}],
     {"winner": 0, "decided_by": "remaining"}, "Alpha wins by 5 squares"),
])
def test_the_end_of_a_match_in_plain_words(game, scores, result, words):
    assert rules_for(game).verdict(result, scores, NAMES) == words


def test_chaser_names_a_team_called_as_its_player_once():
    words = rules_for("chaser").verdict({"winner": 1, "decided_by": "trapped"},
                                        [{"items": 1}, {"items": 0}], ["Cool", "Hot"])
    assert words == "Hot wins: Cool is boxed in"


def test_chaser_cards_say_the_items_taken_with_the_number():
    panel = rules_for("chaser").panel({"turn": 3, "scores": [{"items": 4}, {"items": 1}]})
    assert panel["words"] == ["Cool (C) · items taken: 4", "Hot (H) · items taken: 1"]
    assert panel["to_move"] is None and panel["trays"] is None


def test_games_whose_agents_act_at_once_have_no_one_to_move():
    panel = rules_for("kakomimasu").panel({"turn": 3, "scores": kakomimasu(3, 4)})
    assert panel == {"words": ["wall 0 · territory 3", "wall 0 · territory 4"],
                     "to_move": None, "trays": None, "moves": None}


def blokus_view(*codes):
    state = new_state()
    for code in codes:
        state = play(state, state.mover, placement(code))
    return rules_for("blokus-duo").view(state)


def test_blokus_duo_says_who_moves_next():
    rules = rules_for("blokus-duo")
    assert rules.panel(blokus_view())["to_move"] == 0
    assert rules.panel(blokus_view("55u0"))["to_move"] == 1
    assert rules.panel(blokus_view("55u0", "AAt0"))["to_move"] == 0


def test_blokus_duo_trays_hold_the_pieces_not_placed():
    view = blokus_view("55u0", "AAt0", "77a0")
    assert unplaced_pieces(view["cells"]) == [
        list("bcdefghijklmnopqrst"),
        list("abcdefghijklmnopqrsu")]
    tray = rules_for("blokus-duo").panel(view)["trays"][0]
    assert len(tray) == 19
    assert tray[0] == {"name": "b", "size": 2, "cells": [[0, 0], [0, 1]]}


def test_a_blokus_duo_move_is_its_piece_and_the_cells_it_covers():
    assert move_words("55a0") == "piece a · 1 square · 55"
    assert move_words("55b0") == "piece b · 2 squares · 55 56"
    assert move_words("----") == "pass"
    assert move_words("x") is None
    view = blokus_view("55b0") | {"outcomes": [[{"move": "55b0", "result": "ok"}], []]}
    assert rules_for("blokus-duo").panel(view)["moves"] == [["piece b · 2 squares · 55 56"], []]
