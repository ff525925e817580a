"""CHaser actions and decision rules 1-5 (docs/rules/chaser.md), one small position each."""

from __future__ import annotations

import pytest

from matches.rules.chaser import decided, end_turn, step
from tests.rules.test_chaser_helpers import RULES, game, play


def cells(state) -> list[str]:
    return RULES.view(state)["cells"]


def agents(state) -> list:
    return RULES.view(state)["agents"]


def items(state) -> list[int]:
    return [score["items"] for score in RULES.view(state)["scores"]]


def outcome(state) -> dict:
    return RULES.result(state) if decided(state) else {}


OPEN = (".....", ".....", "..C..", ".....", "....H")


# --- actions -------------------------------------------------------------------------


@pytest.mark.parametrize(("command", "cell"), [("wu", [2, 1]), ("wd", [2, 3]), ("wl", [1, 2]),
                                               ("wr", [3, 2])])
def test_walk_moves_one_cell(command, cell):
    state, fields = step(game(*OPEN), 0, command)
    assert fields["result"] == "ok"
    assert agents(state) == [[cell], [[4, 4]]]
    assert cells(state) == [".....", ".....", ".....", ".....", "....."]
    assert not decided(state)


def test_walk_onto_an_item_scores_it_and_leaves_a_block_behind():
    state, fields = step(game("C*...", ".....", "....H"), 0, "wr")
    assert agents(state) == [[[1, 0]], [[4, 2]]]
    assert cells(state) == ["#....", ".....", "....."]
    assert items(state) == [1, 0]
    assert fields["reply"] == "1222200000"
    assert not decided(state)


def test_walk_onto_the_other_player_changes_nothing():
    before = game("CH...", ".....")
    after, fields = step(before, 0, "wr")
    assert after == before
    assert fields["result"] == "ok"
    assert fields["reply"] == "1222201200"  # Cool still at (0, 0), Hot beside it


@pytest.mark.parametrize(("command", "row"), [("pr", ".#..."), ("pd", "....."), ("pl", "....."),
                                              ("pu", ".....")])
def test_put_makes_the_neighbour_a_block(command, row):
    state, _ = step(game("C....", ".....", "....H"), 0, command)
    assert cells(state)[0] == row
    assert cells(state)[1] == ("#...." if command == "pd" else ".....")
    assert agents(state) == [[[0, 0]], [[4, 2]]]


def test_put_destroys_an_item_without_scoring_it():
    state, fields = step(game("C*...", ".....", "....H"), 0, "pr")
    assert cells(state)[0] == ".#..."
    assert items(state) == [0, 0]
    assert fields["reply"] == "1222202200"


def test_put_off_the_map_or_onto_a_block_changes_nothing():
    before = game("C#...", ".....", "....H")
    for command in ("pu", "pl", "pr"):
        after, fields = step(before, 0, command)
        assert after == before
        assert fields["result"] == "ok"


@pytest.mark.parametrize("command", ["lu", "ld", "ll", "lr", "su", "sd", "sl", "sr"])
def test_look_and_search_change_nothing(command):
    before = game(*OPEN)
    after, fields = step(before, 0, command)
    assert after == before
    assert fields["result"] == "ok"


# --- decision rules 1-4, after every action ----------------------------------------------


def test_rule_1_walking_onto_a_block_buries_the_walker():
    state, fields = step(game("C#...", ".....", "....H"), 0, "wr")
    assert agents(state) == [[[1, 0]], [[4, 2]]]  # on the block
    assert outcome(state) == {"winner": 1, "decided_by": "buried"}
    assert fields["reply"] == "0222020000"  # own cell reads 2


def test_rule_1_walking_off_the_map_buries_the_walker_who_leaves_the_board():
    state, fields = step(game("C....", ".....", "....H"), 0, "wl")
    assert agents(state) == [[None], [[4, 2]]]
    assert outcome(state) == {"winner": 1, "decided_by": "buried"}
    assert fields["reply"] == "0222220220"


def test_rule_1_comes_before_rule_4():
    position = ("#....", "H#...", "#..C#")  # Hot is trapped from the start
    buried, _ = step(game(*position), 0, "wr")
    assert outcome(buried) == {"winner": 1, "decided_by": "buried"}
    looked, _ = step(game(*position), 0, "lr")
    assert outcome(looked) == {"winner": 0, "decided_by": "trapped"}


def test_rule_2_a_put_onto_the_other_player_captures():
    state, fields = step(game(".CH..", "....."), 0, "pr")
    assert cells(state) == ["..#..", "....."]
    assert agents(state) == [[[1, 0]], [[2, 0]]]  # the captured player stays on the block
    assert outcome(state) == {"winner": 0, "decided_by": "capture"}
    assert fields["reply"] == "0222001000"  # the captured player reads 1


def test_rule_2_hot_captures_cool_too():
    state, _ = play(game(".CH..", "....."), (0, "sd"), (1, "pl"))
    assert outcome(state) == {"winner": 1, "decided_by": "capture"}


def test_rule_2_a_capture_that_traps_the_capturer_is_a_draw():
    state, fields = step(game("....", "#...", "CH..", "#...", "...."), 0, "pr")
    assert outcome(state) == {"winner": None, "decided_by": "draw"}
    assert fields["reply"] == "0220201220"


def test_rule_3_both_trapped_is_a_draw():
    state, fields = step(game(".#.#.", "#C.H#", ".#.#."), 0, "pr")
    assert outcome(state) == {"winner": None, "decided_by": "draw"}
    assert fields["reply"] == "0020202020"


def test_rule_4_trapping_the_other_player_wins():
    state, _ = step(game(".....#", "...C.H", ".....#"), 0, "pr")
    assert outcome(state) == {"winner": 0, "decided_by": "trapped"}


def test_rule_4_trapping_oneself_by_a_put_loses():
    state, fields = step(game("C...", "#...", "...H"), 0, "pr")
    assert outcome(state) == {"winner": 1, "decided_by": "trapped"}
    assert fields["reply"] == "0222202220"


def test_rule_4_the_block_left_by_a_pickup_can_trap_the_picker():
    state, _ = step(game("#*#", "#C.", "..H"), 0, "wu")
    assert items(state) == [1, 0]
    assert outcome(state) == {"winner": 1, "decided_by": "trapped"}


def test_rule_4_the_other_player_is_not_a_block_until_it_leaves_one_behind():
    position = game("#*.", "CH.", "#..")
    looked, _ = step(position, 0, "lr")  # Cool's only open side is Hot's cell
    assert not decided(looked)
    state, fields = step(looked, 1, "wu")  # Hot takes the item: its old cell is a block
    assert outcome(state) == {"winner": 1, "decided_by": "trapped"}
    assert fields["reply"] == "0222200120"


def test_rule_4_is_checked_after_a_look_or_a_search_too():
    state, _ = step(game("C#.", "#..", "..H"), 0, "su")  # Cool starts trapped
    assert outcome(state) == {"winner": 1, "decided_by": "trapped"}


def test_rule_4_hot_trapping_cool_wins_for_hot():
    state, _ = play(game("C..", "#H.", "..."), (0, "lr"), (1, "pu"))
    assert outcome(state) == {"winner": 1, "decided_by": "trapped"}


# --- rule 5: after the last turn -------------------------------------------------------


@pytest.mark.parametrize(("cool", "hot", "expected"), [
    ("wr", "wl", {"winner": None, "decided_by": "draw"}),
    ("wr", "sl", {"winner": 0, "decided_by": "items"}),
    ("sr", "wl", {"winner": 1, "decided_by": "items"}),
])
def test_rule_5_more_items_wins_after_the_last_turn(cool, hot, expected):
    state = game("C*...", ".....", "...*H", turns=1)
    state, cool_fields = step(state, 0, cool)
    state, hot_fields = step(state, 1, hot)
    assert not decided(state)
    assert cool_fields["reply"][0] == "1"
    assert hot_fields["ready"][0] == "1"
    assert hot_fields["reply"][0] == "0"  # Hot's reply to its last command
    state = end_turn(state)
    assert RULES.is_over(state, 1)
    assert outcome(state) == expected


def test_rule_5_waits_for_the_last_turn():
    state = game("C*...", ".....", "...*H", turns=2)
    state, _ = play(state, (0, "wr"), (1, "sl"))
    state = end_turn(state)
    assert state.turn == 1
    assert not decided(state)
    assert not RULES.is_over(state, 2)
    state, fields = play(state, (0, "sl"), (1, "sl"))
    assert fields["reply"][0] == "0"
    state = end_turn(state)
    assert RULES.is_over(state, 2)
    assert RULES.result(state) == {"winner": 0, "decided_by": "items"}


def test_a_decision_stands_after_the_last_turn():
    state, _ = step(game("C#...", ".....", "....H", turns=1), 0, "wr")
    state = end_turn(state)
    assert RULES.result(state) == {"winner": 1, "decided_by": "buried"}
