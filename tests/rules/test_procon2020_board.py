"""Procon 2020 boards and records: parse_board, check_agents, the start, the result, the API."""

from __future__ import annotations

import copy

import pytest

from matches.rules.checks import RecordError
from matches.rules.records import parse_record
from matches.rules.timeline import compute_timeline
from tests.rules.test_procon2020_actions import RULES, mv, play, position, scores

POINTS = [[(x + 2 * y) % 7 - 1 for x in range(10)] for y in range(10)]


def board_json(**overrides) -> dict:
    board = {
        "width": 10,
        "height": 10,
        "points": copy.deepcopy(POINTS),
        "obstacles": [[4, 4], [5, 5]],
        "treasures": [{"x": 1, "y": 8, "point": 12}, {"x": 8, "y": 1, "point": 12}],
        "start": [[[0, 0], [2, 3]], [[9, 9], [7, 6]]],
    }
    return board | overrides


def record_json(board=None, **overrides) -> dict:
    record = {
        "format": "match-record/1",
        "game": "procon2020",
        "board": board if board is not None else board_json(),
        "agents": 2,
        "turns": 3,
        "teams": [{"name": "A"}, {"name": "B"}],
        "actions": [],
    }
    return record | overrides


def refusal(board=None, **overrides) -> str:
    with pytest.raises(RecordError) as error:
        parse_record(record_json(board, **overrides))
    return str(error.value)


# --- parse_board ---------------------------------------------------------------------


def test_a_good_board_comes_back_canonical():
    extra = board_json(note="ignored", obstacles=[[4, 4]])
    extra["treasures"][0]["colour"] = "gold"
    record = parse_record(record_json(extra))
    assert record.board == board_json(obstacles=[[4, 4]])
    assert record.agents == 2


def test_obstacles_and_treasures_may_be_left_out():
    board = board_json()
    del board["obstacles"], board["treasures"]
    assert parse_record(record_json(board)).board == board_json(obstacles=[], treasures=[])


@pytest.mark.parametrize(("board", "message"), [
    (board_json(width=9), "board.width: 9 is outside 10..20"),
    (board_json(height=21), "board.height: 21 is outside 10..20"),
    (board_json(points=POINTS[:9]), "board.points: 9 rows, expected 10 (board.height)"),
    (board_json(points=[[17] * 10] * 10), "board.points[0][0]: 17 is outside -16..16"),
    (board_json(obstacles=[[10, 0]]), "board.obstacles[0][0]: 10 is outside 0..9"),
    (board_json(obstacles={"x": 1}), "board.obstacles: expected a list, got an object"),
    (board_json(obstacles=[[1, 1], [1, 1]]),
     "board.obstacles[1]: [1, 1] is also board.obstacles[0]"),
    (board_json(treasures=[{"x": 1, "y": 1, "point": 7}]),
     "board.treasures[0].point: 7 is outside 8..16"),
    (board_json(treasures=[{"x": 1, "y": 1, "point": 17}]),
     "board.treasures[0].point: 17 is outside 8..16"),
    (board_json(treasures=[{"x": 1, "point": 9}]), "board.treasures[0].y: missing"),
    (board_json(treasures=[[1, 1, 9]]), "board.treasures[0]: expected an object, got a list"),
    (board_json(treasures=[{"x": 4, "y": 4, "point": 9}]),
     "board.treasures[0]: [4, 4] is also board.obstacles[0]"),
    (board_json(treasures=[{"x": 3, "y": 3, "point": 9}, {"x": 3, "y": 3, "point": 8}]),
     "board.treasures[1]: [3, 3] is also board.treasures[0]"),
    ({k: v for k, v in board_json().items() if k != "start"}, "board.start: missing"),
    (board_json(start=[[[0, 0], [1, 1]]]), "board.start: expected 2 teams, got 1"),
    (board_json(start=[[[0, 0], [5, 5]], [[9, 9], [8, 8]]]),
     "board.start[0][1]: [5, 5] is also board.obstacles[1]"),
    (board_json(start=[[[0, 0], [1, 1]], [[1, 1], [8, 8]]]),
     "board.start[1][0]: [1, 1] is also board.start[0][1]"),
    (board_json(start=[[[0, 0], [1, 1]], [[9, 9], [8, 10]]]),
     "board.start[1][1][1]: 10 is outside 0..9"),
])
def test_bad_boards_are_refused_naming_the_field(board, message):
    assert refusal(board) == message


def test_a_start_cell_may_hold_a_treasure():
    board = board_json(treasures=[{"x": 0, "y": 0, "point": 10}])
    assert parse_record(record_json(board)).board["treasures"] == [{"x": 0, "y": 0, "point": 10}]


# --- check_agents ----------------------------------------------------------------------


def test_agents_are_two_to_eight_and_match_each_teams_start_list():
    assert refusal(agents=1) == "agents: 1 is outside 2..8"
    assert refusal(agents=9) == "agents: 9 is outside 2..8"
    assert refusal(agents=3) == "board.start[0]: 2 start cells, expected 3 (agents)"
    uneven = board_json(start=[[[0, 0], [2, 3]], [[9, 9], [7, 6], [8, 6]]])
    assert refusal(uneven) == "board.start[1]: 3 start cells, expected 2 (agents)"
    eight = [[[x, 0] for x in range(8)], [[x, 9] for x in range(8)]]
    assert parse_record(record_json(board_json(start=eight), agents=8)).agents == 8


# --- the start ----------------------------------------------------------------------------


def test_agents_start_on_their_start_cells_which_begin_tiled():
    view = RULES.view(RULES.initial_state(parse_record(record_json())))
    assert view["turn"] == 0
    assert view["agents"] == [[[0, 0], [2, 3]], [[9, 9], [7, 6]]]
    cells = view["cells"]
    assert cells[0][0] == "A" and cells[3][2] == "A" and cells[9][9] == "B" and cells[6][7] == "B"
    assert cells[4][4] == cells[5][5] == "#"
    assert sum(row.count(".") for row in cells) == 100 - 6
    tile_a, tile_b = POINTS[0][0] + POINTS[3][2], POINTS[9][9] + POINTS[6][7]
    assert view["scores"] == [
        {"tile": tile_a, "area": 0, "treasure": 0, "total": tile_a},
        {"tile": tile_b, "area": 0, "treasure": 0, "total": tile_b},
    ]


# --- is_over and result ---------------------------------------------------------------


def test_the_match_is_over_when_the_turns_are_played():
    state = RULES.initial_state(parse_record(record_json()))
    assert not RULES.is_over(state, 1)
    state, _ = RULES.resolve_turn(state, [[], []])
    assert RULES.is_over(state, 1) and not RULES.is_over(state, 2)
    assert "result" not in compute_timeline(parse_record(record_json(actions=[[[], []]])))


def test_the_higher_total_wins():
    state = position(["A..B", "...."], a=[(0, 0)], b=[(3, 0)])
    after, _, _ = play(state, a=[mv(0, 1, 0)])
    assert RULES.result(after) == {"winner": 0, "decided_by": "total"}
    after, _, _ = play(state, b=[mv(0, -1, 0)])
    assert RULES.result(after) == {"winner": 1, "decided_by": "total"}


def test_equal_totals_are_decided_by_tile_points_then_drawn():
    # A: tiles 4 + 1 area; B: tiles 5. Equal totals, B has more tile points.
    rows = [".....", "..A..", ".A.A.", "..A..", "....B"]
    points = [[1] * 5 for _ in range(5)]
    points[4][4] = 5
    state = position(rows, b=[(4, 4)], points=points)
    assert [s["total"] for s in scores(state)] == [5, 5]
    assert RULES.result(state) == {"winner": 1, "decided_by": "tile"}
    state = position(["A..B", "...."], a=[(0, 0)], b=[(3, 0)])
    assert RULES.result(state) == {"winner": None, "decided_by": "draw"}


def test_treasure_points_count_in_the_total_that_decides():
    state = position(["A..B", "...."], a=[(0, 0)], b=[(3, 0)], treasures={(0, 1): 8})
    after, _, _ = play(state, a=[mv(0, 0, 1)], b=[mv(0, 0, 1)])
    assert RULES.result(after) == {"winner": 0, "decided_by": "total"}


# --- the answer API --------------------------------------------------------------------


@pytest.mark.parametrize(("action", "problem"), [
    ({"agent": 0, "type": "move", "dx": 1, "dy": -1}, ""),
    ({"agent": 3, "type": "remove", "dx": 0, "dy": 1}, ""),
    ({"agent": 0, "type": "stay"}, ""),
    ({"agent": 0, "type": "stay", "dx": "x"}, ""),
    ({"agent": 0, "type": "move", "dx": 2, "dy": 0}, ""),  # judged at the transition
    ([0, "move"], ": expected an object"),
    ({"type": "stay"}, ".agent: missing"),
    ({"agent": 0}, ".type: missing"),
    ({"agent": "0", "type": "stay"}, ".agent: expected a whole number"),
    ({"agent": True, "type": "stay"}, ".agent: expected a whole number"),
    ({"agent": 0, "type": "put", "dx": 0, "dy": 0}, '.type: expected "move", "remove" or "stay"'),
    ({"agent": 0, "type": "move", "dy": 0}, ".dx: missing (a move needs dx and dy)"),
    ({"agent": 0, "type": "remove", "dx": 0}, ".dy: missing (a remove needs dx and dy)"),
    ({"agent": 0, "type": "move", "dx": 1.0, "dy": 0}, ".dx: expected a whole number"),
    ({"agent": 0, "type": "move", "dx": 1, "dy": None}, ".dy: expected a whole number"),
])
def test_action_problem_checks_the_shape_only(action, problem):
    assert RULES.action_problem(action) == problem


def test_action_fields_keep_what_the_record_needs():
    move = {"agent": 1, "type": "move", "dx": -1, "dy": 0, "agentID": 7}
    assert RULES.action_fields(move) == {"agent": 1, "type": "move", "dx": -1, "dy": 0}
    assert RULES.action_fields({"agent": 1, "type": "stay", "dx": 0, "dy": 0}) == {
        "agent": 1, "type": "stay"}
