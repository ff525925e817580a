"""What each game's rules say a turn did, for the board picture (`last_turn`): the cells
acted on, read or placed, and the agents' moves; the screens draw the same from
static/matches/games/<game>.js."""

import json
from pathlib import Path

import pytest

from matches.rules import rules_for
from matches.rules.chaser import cells_read

VECTORS = Path(__file__).resolve().parents[1] / "conformance"
DIGITS = {".": "0", "#": "2", "*": "3"}


def states(vector):
    return json.loads((VECTORS / f"{vector}.timeline.json").read_text())["states"]


def test_kakomimasu_moves_start_where_the_agent_stood_and_walls_put_are_acted_on():
    played = states("kakomimasu/random_s7_04")
    before, after = played[-2], played[-1]
    last = rules_for("kakomimasu").last_turn(after, before)
    for start, end, team in last["moves"]:
        assert start in before["agents"][team] and end in after["agents"][team]
        assert max(abs(start[0] - end[0]), abs(start[1] - end[1])) == 1
    puts = [[o["x"], o["y"], "acted", team] for team, outcomes in enumerate(after["outcomes"])
            for o in outcomes if o["result"] == "ok" and o["type"] in ("put", "remove")]
    assert last["marks"] == puts and len(last["moves"]) == 7
    # joining late, without the state before, no move is guessed
    assert rules_for("kakomimasu").last_turn(after)["moves"] == []


def test_procon2020_moves_need_no_earlier_state():
    played = states("procon2020/invalid_actions")
    last = rules_for("procon2020").last_turn(played[-1])
    # A's agent 2 moved up to (4, 4), B's agent 0 down-left to (8, 2); the invalid
    # remove and the stay are not drawn
    assert last == {"marks": [], "moves": [[[4, 5], [4, 4], 0], [[9, 1], [8, 2], 1]],
                    "areas": [[], []]}


def test_procon2020_says_which_neutral_cells_each_team_encloses_as_its_points_do():
    from matches.rules.procon2020 import areas_shown

    ring = [".....", ".AAA.", ".A.A.", ".AAA.", "B...."]
    assert areas_shown(ring) == [[[2, 2]], []]
    # B's tiles inside A's ring stop nothing of A's flood (they are B's colour, not
    # shaded); an edge cell is never enclosed
    assert areas_shown([".AAA.", "AB.BA", ".AAA."]) == [[[2, 1]], []]
    assert areas_shown(["A.A", "...", "A.A"]) == [[], []]
    assert areas_shown([]) == [[], []]  # a secret board's, before its start
    assert areas_shown(["BBBBB", "B...B", "BA..B", "BBBBB"]) == [[], [[1, 1], [2, 1], [3, 1],
                                                                     [2, 2], [3, 2]]]


@pytest.mark.parametrize("vector", ["chaser/random_s7_00", "chaser/random_s7_01"])
def test_chaser_look_and_search_mark_the_cells_their_reply_tells_of(vector):
    played = states(vector)
    looked = 0
    for before, after in zip(played, played[1:], strict=False):
        last = rules_for("chaser").last_turn(after, before)
        for team, outcomes in enumerate(after["outcomes"]):
            for outcome in outcomes:
                if outcome["result"] != "ok" or outcome["command"][0] not in "ls":
                    continue
                looked += 1
                # Cool steps first, on the board before the turn; Hot last, on the board after
                board = before if team == 0 else after
                other = (before if team == 0 else after)["agents"][1 - team][0]
                cells = cells_read(outcome["command"], after["agents"][team][0])
                assert "".join(digit(board, other, cell) for cell in cells) == outcome["reply"][1:]
                on_map = [[*cell, "read", team] for cell in cells if on(board, cell)]
                assert all(mark in last["marks"] for mark in on_map)
    assert looked > 5


def digit(state, other, cell):
    if list(cell) == other:
        return "1"
    return DIGITS[state["cells"][cell[1]][cell[0]]] if on(state, cell) else "2"


def on(state, cell):
    x, y = cell
    return 0 <= y < len(state["cells"]) and 0 <= x < len(state["cells"][0])


def test_chaser_walks_and_puts():
    played = states("chaser/random_s7_00")
    last = rules_for("chaser").last_turn(played[9], played[8])
    assert last["moves"] == [[played[8]["agents"][1][0], [7, 9], 1]]  # Hot walked up
    assert [mark[3] for mark in last["marks"]] == [0] * 7  # Cool's search, 7 cells on the map


def test_blokus_duo_marks_the_piece_just_placed_and_after_a_pass_the_one_before():
    played = states("blokus-duo/random_s7_00")
    first = rules_for("blokus-duo").last_turn(played[1])
    placed = {(x, y) for x, y, kind, team in first["marks"]}
    assert {kind for *_, kind, _ in first["marks"]} == {"placed"}
    assert placed == {(x, y) for y, row in enumerate(played[1]["cells"])
                      for x, char in enumerate(row) if char == "A"}
    passed = [turn for turn, state in enumerate(played) if turn and all(
        o["move"] in ("----", "0000") for team in state["outcomes"] for o in team)]
    rules = rules_for("blokus-duo")
    assert passed and rules.last_turn(played[passed[0]])["marks"] == []  # nothing before
    before = played[passed[0] - 1]
    assert rules.last_turn(played[passed[0]], before) == rules.last_turn(before)
    assert rules.last_turn(before)["marks"]
