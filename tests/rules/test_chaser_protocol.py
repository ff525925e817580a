"""The CHaser protocol points 1-6 (docs/rules/chaser.md) as the step functions give them."""

from __future__ import annotations

import pytest

from matches.rules.chaser import (
    COMMANDS,
    PORTS,
    decided,
    end_turn,
    fault,
    ready_digits,
    shown_name,
    step,
)
from matches.rules.records import parse_record
from matches.rules.timeline import compute_timeline
from tests.rules.test_chaser_helpers import RULES, game, play, record

# Cool at (2, 2) in the middle; items, blocks and Hot around it.
MIDDLE = ("*#...", "..*..", "..C..", "...#.", "..H..")


# --- 1. connecting ------------------------------------------------------------------------


def test_1_cool_and_hot_ports_and_the_shown_name():
    assert PORTS == (2009, 2010)
    assert shown_name("Hot1\r\n") == "Hot1"
    assert shown_name("ABCDEFG\r\n") == "ABCD"
    assert shown_name("ab") == "ab"


# --- 2. one step: @, gr, ready digits, command, reply digits, # -----------------------------


def test_2_every_turn_cool_acts_before_hot():
    timeline = compute_timeline(parse_record(record(["C.H..", "....."], [(["wr"], ["ll"])])))
    cool, hot = timeline["states"][1]["outcomes"]
    assert cool == [{"command": "wr", "result": "ok", "ready": "1222200200",
                     "reply": "1222001000"}]
    assert hot[0]["ready"] == "1222100000"  # Hot's gr comes after Cool's walk
    assert timeline["states"][1]["agents"] == [[[1, 0]], [[2, 0]]]


def test_2_the_ready_digits_are_those_before_the_command():
    state = game(*MIDDLE)
    for player in (0, 1):
        ready = ready_digits(state, player)
        state, fields = step(state, player, "pd" if player == 0 else "pr")
        assert fields["ready"] == ready
    assert ready_digits(state, 0) == "1030000022"  # the put below Cool shows in the next gr


# --- 3. the 16 commands ---------------------------------------------------------------------


def test_3_the_commands_are_walk_look_search_put_in_four_directions():
    assert len(COMMANDS) == 16
    assert set(COMMANDS) == {kind + way for kind in "wlsp" for way in "udlr"}
    for command in COMMANDS:
        _, fields = step(game(*MIDDLE), 0, command)
        assert fields["result"] == "ok", command


@pytest.mark.parametrize("command", ["WU", "w", "wx", "xw", "uw", "xx", "", "gr", "#", "@",
                                     "wuu", None, 3, ["wu"], {"command": "wu"}])
def test_3_anything_else_is_a_fault(command):
    state, fields = step(game(*MIDDLE), 1, command)
    assert fields["result"] == "invalid"
    assert "command" in fields["reason"]
    assert RULES.result(state) == {"winner": 0, "decided_by": "fault"}


# --- 4. the reply digits --------------------------------------------------------------------


def test_4_after_gr_the_3x3_around_the_player_row_by_row():
    state = game("*#.", ".C*", "H.#")
    assert ready_digits(state, 0) == "1" + "320" + "003" + "102"
    assert ready_digits(state, 1) == "1" + "201" + "200" + "222"  # off the map reads 2


def test_4_after_a_walk_the_3x3_around_the_new_cell():
    state, fields = step(game("*#.", ".C*", "H.#"), 0, "wr")
    assert fields["reply"] == "1" + "202" + "202" + "022"  # the item taken, a block left


def test_4_after_a_put_the_3x3_with_the_new_block():
    state, fields = step(game("*#.", ".C*", "H.#"), 0, "pl")
    assert fields["reply"] == "1" + "320" + "203" + "102"


@pytest.mark.parametrize(("command", "digits"), [
    ("lu", "222" "200" "030"),  # centre (2, 0)
    ("ld", "002" "010" "222"),  # centre (2, 4): Hot reads 1
    ("ll", "200" "200" "200"),  # centre (0, 2)
    ("lr", "002" "002" "202"),  # centre (4, 2)
])
def test_4_a_look_shows_the_3x3_two_cells_away(command, digits):
    _, fields = step(game(*MIDDLE), 0, command)
    assert fields["reply"] == "1" + digits


@pytest.mark.parametrize(("command", "digits"), [
    ("su", "30" + "2" * 7), ("sd", "01" + "2" * 7), ("sl", "00" + "2" * 7), ("sr", "00" + "2" * 7),
])
def test_4_a_search_shows_nine_cells_in_a_line(command, digits):
    _, fields = step(game(*MIDDLE), 0, command)
    assert fields["reply"] == "1" + digits


def test_4_a_search_reads_exactly_nine_cells():
    _, fields = step(game("C..*...#..*H"), 0, "sr")
    assert fields["reply"] == "1" + "003000200"
    _, fields = step(game("C..*...#.H*."), 0, "sr")
    assert fields["reply"] == "1" + "003000201"
    _, fields = step(game("C.*.....#..H"), 1, "sl")  # to the left, from the right edge
    assert fields["reply"] == "1" + "002000003"


# --- 5. the end of the game -----------------------------------------------------------------


def test_5_the_deciding_reply_starts_with_0_and_the_other_player_then_reads_0():
    state, fields = step(game(".C#H."), 1, "wl")  # Hot walks onto a block
    assert fields["reply"] == "0" + "222" + "120" + "222"  # Hot's own cell reads 2
    assert ready_digits(state, 0) == "0" + "222" + "001" + "222"  # Hot reads 1 on its block


def test_5_after_the_decision_every_command_is_refused_and_changes_nothing():
    state, _ = step(game(".CH.."), 0, "pr")
    assert decided(state)
    for player in (0, 1):
        after, fields = step(state, player, "wl")
        assert after == state
        assert fields == {"result": "invalid", "reason": "the game is already decided"}


def test_5_after_the_last_turn_every_ready_starts_with_0():
    state, fields = play(game("C....", "....H", turns=1), (0, "sr"), (1, "sl"))
    assert fields["reply"][0] == "0"
    state = end_turn(state)
    assert ready_digits(state, 0)[0] == ready_digits(state, 1)[0] == "0"


# --- 6. faults ------------------------------------------------------------------------------


@pytest.mark.parametrize("player", [0, 1])
def test_6_a_fault_loses_for_that_player(player):
    state = fault(game(*MIDDLE), player)
    assert RULES.result(state) == {"winner": 1 - player, "decided_by": "fault"}
    assert ready_digits(state, 1 - player)[0] == "0"


def test_6_a_fault_after_the_decision_changes_nothing():
    state, _ = step(game(".CH.."), 0, "pr")
    assert fault(state, 0) == state


def test_6_an_unknown_command_in_a_record_loses_and_ends_the_turn():
    timeline = compute_timeline(parse_record(record(["C....", "....H"], [(["xx"], ["wl"])])))
    cool, hot = timeline["states"][1]["outcomes"]
    assert cool == [{"command": "xx", "result": "invalid", "reason": "unknown command 'xx'"}]
    assert hot[0]["result"] == "invalid"
    assert timeline["states"][1]["agents"] == [[[0, 0]], [[4, 1]]]
    assert timeline["result"] == {"winner": 1, "decided_by": "fault"}
