"""Procon 2020 transition step, rule by rule (docs/rules/procon2020.md, steps 1-5).

The helpers at the top build positions from pictures; the other procon2020 test
modules import them.
"""

from __future__ import annotations

from matches.rules import rules_for
from matches.rules.procon2020 import (
    OBSTACLE,
    TILE,
    Procon2020Rules,
    Procon2020State,
    make_board,
    tile_and_area,
)

RULES = rules_for("procon2020")
_CODES = {".": 0, "A": TILE[0], "B": TILE[1], "#": OBSTACLE}


def position(rows, a=(), b=(), points=None, treasures=None) -> Procon2020State:
    """A position: rows of . A B #; a/b: each agent's (x, y); treasures: {(x, y): value}.

    Every agent must stand on its own tile, as in a real game. The picture need not
    be a legal field size: the engine does not care, only `parse_board` does.
    """
    height, width = len(rows), len(rows[0])
    spec = {
        "width": width,
        "height": height,
        "points": points if points is not None else [[1] * width for _ in range(height)],
        "obstacles": [[x, y] for y, row in enumerate(rows) for x, c in enumerate(row)
                      if c == "#"],
        "treasures": [{"x": x, "y": y, "point": v} for (x, y), v in (treasures or {}).items()],
        "start": [[list(c) for c in a], [list(c) for c in b]],
    }
    board, cells = make_board(spec)
    for y, row in enumerate(rows):
        for x, char in enumerate(row):
            cells[y + 1, x + 1] = _CODES[char]
    for team, letter in enumerate("AB"):
        for x, y in board.start[team]:
            assert rows[y][x] == letter, f"({x}, {y}) is not {letter}"
    (tile_a, area_a), (tile_b, area_b) = tile_and_area(board, cells)
    scores = ((tile_a, area_a, 0), (tile_b, area_b, 0))
    return Procon2020State(0, board, cells, board.start, frozenset(board.treasures), scores)


def play(state, a=(), b=(), rules=RULES):
    """Resolve one turn; returns (new state, outcomes of team 0 (A), outcomes of team 1 (B))."""
    new_state, outcomes = rules.resolve_turn(state, [list(a), list(b)])
    return new_state, outcomes[0], outcomes[1]


def board(state) -> list[str]:
    return RULES.view(state)["cells"]


def agents(state) -> list[list[list[int]]]:
    return RULES.view(state)["agents"]


def scores(state) -> list[dict[str, int]]:
    return RULES.view(state)["scores"]


def results(outcomes) -> list[str]:
    return [outcome["result"] for outcome in outcomes]


def mv(agent, dx, dy):
    return {"agent": agent, "type": "move", "dx": dx, "dy": dy}


def rm(agent, dx, dy):
    return {"agent": agent, "type": "remove", "dx": dx, "dy": dy}


def stay(agent):
    return {"agent": agent, "type": "stay"}


FIELD = [
    ".....",
    ".A.B.",
    ".....",
    ".....",
    ".....",
]


# --- step 1: invalid actions -------------------------------------------------------


def test_direction_out_of_range_is_invalid():
    state = position(FIELD, a=[(1, 1)], b=[(3, 1)])
    for action in (mv(0, 2, 0), mv(0, 0, -2), rm(0, 1, 2), mv(0, -5, 1)):
        after, a, _ = play(state, a=[action])
        assert results(a) == ["invalid"]
        assert "out of range" in a[0]["reason"]
        assert board(after) == FIELD and agents(after) == [[[1, 1]], [[3, 1]]]


def test_direction_zero_is_invalid_for_move_and_remove():
    state = position(FIELD, a=[(1, 1)], b=[(3, 1)])
    _, a, b = play(state, a=[mv(0, 0, 0)], b=[rm(0, 0, 0)])
    assert results(a) == results(b) == ["invalid"]
    assert a[0]["reason"] == "direction (0, 0) does not point to a neighbour"


def test_target_off_the_field_is_invalid():
    state = position(["A...B", "....."], a=[(0, 0)], b=[(4, 0)])
    after, a, b = play(state, a=[mv(0, -1, 0)], b=[rm(0, 1, -1)])
    assert results(a) == results(b) == ["invalid"]
    assert a[0]["reason"] == "target (-1, 0) is off the field"
    assert b[0]["reason"] == "target (5, -1) is off the field"
    assert board(after) == ["A...B", "....."]


def test_move_onto_an_obstacle_is_invalid_and_an_obstacle_cannot_be_removed():
    state = position(["..#..", ".A.B.", "....."], a=[(1, 1)], b=[(3, 1)])
    after, a, b = play(state, a=[mv(0, 1, -1)], b=[rm(0, -1, -1)])
    assert results(a) == results(b) == ["invalid"]
    assert a[0]["reason"] == b[0]["reason"] == "target is an obstacle"
    assert board(after) == ["..#..", ".A.B.", "....."]


def test_move_onto_an_opponent_tile_is_invalid_but_onto_any_other_cell_is_not():
    state = position(["AAB..", "....."], a=[(0, 0)], b=[(2, 0)])
    after, a, _ = play(state, a=[mv(0, 1, 0)])
    assert results(a) == ["ok"]  # onto its own tile
    after, a, _ = play(after, a=[mv(0, 1, 0)])
    assert results(a) == ["invalid"]
    assert a[0]["reason"] == "target is an opponent tile"
    assert agents(after) == [[[1, 0]], [[2, 0]]]


def test_remove_of_a_cell_that_is_not_an_opponent_tile_is_invalid():
    state = position(["AA.B.", "....."], a=[(0, 0)], b=[(3, 0)])
    after, a, b = play(state, a=[rm(0, 1, 0)], b=[rm(0, -1, 0)])
    assert results(a) == results(b) == ["invalid"]
    assert a[0]["reason"] == "target is the team's own tile"
    assert b[0]["reason"] == "target is not an opponent tile"
    assert board(after) == ["AA.B.", "....."]


def test_the_match_option_allows_removing_ones_own_tile_but_not_an_empty_cell():
    rules = Procon2020Rules(allow_remove_own=True)
    state = position(["AA.B.", "....."], a=[(0, 0)], b=[(3, 0)])
    after, a, b = play(state, a=[rm(0, 1, 0)], b=[rm(0, -1, 0)], rules=rules)
    assert results(a) == ["ok"] and results(b) == ["invalid"]
    assert board(after) == ["A..B.", "....."]


def test_invalid_actions_take_part_in_no_conflict():
    # A0's move onto B's tile (2, 2) is invalid, so B0's move there meets no rival.
    state = position([".....", ".A.B.", "..B.."], a=[(1, 1)], b=[(3, 1)])
    after, a, b = play(state, a=[mv(0, 1, 1)], b=[mv(0, -1, 1)])
    assert results(a) == ["invalid"] and results(b) == ["ok"]
    assert agents(after) == [[[1, 1]], [[2, 2]]]
    # A0's remove of the empty (2, 2) is invalid: B0's move there meets no rival either.
    state = position([".....", ".A.B.", "....."], a=[(1, 1)], b=[(3, 1)])
    after, a, b = play(state, a=[rm(0, 1, 1)], b=[mv(0, -1, 1)])
    assert results(a) == ["invalid"] and results(b) == ["ok"]
    assert board(after) == [".....", ".A.B.", "..B.."]


def test_unknown_agents_repeated_agents_and_unknown_types_are_invalid():
    state = position(FIELD, a=[(1, 1)], b=[(3, 1)])
    _, a, b = play(state,
                   a=[mv(1, 1, 0), mv(-1, 1, 0), {"type": "move", "dx": 1, "dy": 0},
                      {"agent": True, "type": "stay"}],
                   b=[mv(0, 1, 0), stay(0), {"agent": 0, "type": "jump", "dx": 1, "dy": 0}])
    assert results(a) == ["invalid"] * 4
    assert [o["reason"] for o in a] == ["there is no agent 1", "there is no agent -1",
                                        "there is no agent null", "there is no agent true"]
    assert results(b) == ["invalid"] * 3
    assert b[0]["reason"] == "agent 0 has 3 actions this turn"
    _, _, b = play(state, b=[{"agent": 0, "type": "jump", "dx": 1, "dy": 0}])
    assert b[0]["reason"] == 'unknown action type "jump" (expected move, remove or stay)'


def test_move_or_remove_needs_whole_number_dx_and_dy():
    state = position(FIELD, a=[(1, 1)], b=[(3, 1)])
    for action in ({"agent": 0, "type": "move", "dx": 1},
                   {"agent": 0, "type": "move", "dx": 1, "dy": "0"},
                   {"agent": 0, "type": "remove", "dx": 1.0, "dy": 0},
                   {"agent": 0, "type": "move", "dx": True, "dy": 0}):
        after, a, _ = play(state, a=[action])
        assert results(a) == ["invalid"]
        assert a[0]["reason"].endswith("needs whole-number dx and dy")
        assert board(after) == FIELD


def test_stay_is_always_ok_and_its_direction_is_not_read():
    state = position(FIELD, a=[(1, 1)], b=[(3, 1)])
    after, a, b = play(state, a=[{"agent": 0, "type": "stay", "dx": 7, "dy": "x"}], b=[stay(0)])
    assert results(a) == results(b) == ["ok"]
    assert board(after) == FIELD and agents(after) == [[[1, 1]], [[3, 1]]]


def test_outcomes_echo_the_action_fields_in_record_order_and_drop_unknown_keys():
    state = position([".....", ".A.B.", ".....", ".A...", "....."],
                     a=[(1, 1), (1, 3)], b=[(3, 1)])
    _, a, b = play(state, a=[mv(1, 0, 1) | {"note": "x"}, {"agent": 0, "type": "stay", "dx": 0}],
                   b=[{"agent": 0, "type": "move", "dx": 0}])
    assert a == [
        {"agent": 1, "type": "move", "dx": 0, "dy": 1, "result": "ok"},
        {"agent": 0, "type": "stay", "dx": 0, "result": "ok"},
    ]
    assert b == [{"agent": 0, "type": "move", "dx": 0, "result": "invalid",
                  "reason": "a move needs whole-number dx and dy"}]


def test_an_agent_without_an_action_stays():
    state = position(FIELD, a=[(1, 1)], b=[(3, 1)])
    after, a, b = play(state)
    assert a == b == []
    assert board(after) == FIELD and agents(after) == [[[1, 1]], [[3, 1]]]
    assert after.turn == 1 and scores(after) == scores(state)


# --- step 2: same target -----------------------------------------------------------


def test_moves_of_both_teams_to_one_target_all_fail():
    state = position(["A.B..", "....."], a=[(0, 0)], b=[(2, 0)])
    after, a, b = play(state, a=[mv(0, 1, 0)], b=[mv(0, -1, 0)])
    assert results(a) == results(b) == ["conflict"]
    assert a[0]["reason"] == "agent 0 of team 1 (B) also targets (1, 0)"
    assert board(after) == ["A.B..", "....."]


def test_moves_of_team_mates_to_one_target_fail_and_a_third_agent_also_fails():
    state = position(["A.A..", ".B..."], a=[(0, 0), (2, 0)], b=[(1, 1)])
    after, a, b = play(state, a=[mv(0, 1, 0), mv(1, -1, 0)], b=[mv(0, 0, -1)])
    assert results(a) == ["conflict", "conflict"] and results(b) == ["conflict"]
    assert board(after) == ["A.A..", ".B..."]


def test_a_move_and_a_remove_of_one_target_both_fail():
    # A0 removes B's tile (1, 0) while B0 moves onto it.
    state = position(["AB...", ".B..."], a=[(0, 0)], b=[(1, 1)])
    after, a, b = play(state, a=[rm(0, 1, 0)], b=[mv(0, 0, -1)])
    assert results(a) == results(b) == ["conflict"]
    assert a[0]["reason"] == "agent 0 of team 1 (B) also targets (1, 0)"
    assert board(after) == ["AB...", ".B..."] and agents(after) == [[[0, 0]], [[1, 1]]]


def test_two_removes_of_one_tile_both_fail():
    state = position(["A.A..", ".B..."], a=[(0, 0), (2, 0)])
    after, a, _ = play(state, a=[rm(0, 1, 1), rm(1, -1, 1)])
    assert results(a) == ["conflict", "conflict"]
    assert board(after) == ["A.A..", ".B..."]


# --- step 3: occupied targets, to a fixed point ----------------------------------------


def test_a_move_into_a_staying_or_silent_team_mate_fails():
    state = position(["AA...", "....."], a=[(0, 0), (1, 0)])
    for team_a in ([mv(0, 1, 0), stay(1)], [mv(0, 1, 0)]):
        after, a, _ = play(state, a=team_a)
        assert a[0]["result"] == "conflict"
        assert a[0]["reason"] == "agent 1 of team 0 (A) stays on the target"
        assert agents(after) == [[[0, 0], [1, 0]], []]


def test_a_chain_whose_head_moves_into_an_empty_cell_succeeds():
    state = position(["AAA..", "....."], a=[(0, 0), (1, 0), (2, 0)])
    after, a, _ = play(state, a=[mv(0, 1, 0), mv(1, 1, 0), mv(2, 1, 0)])
    assert results(a) == ["ok"] * 3
    assert agents(after) == [[[1, 0], [2, 0], [3, 0]], []]
    assert board(after) == ["AAAA.", "....."]


def test_a_chain_ending_in_a_staying_agent_fails_whole():
    state = position(["AAAA.", "....."], a=[(0, 0), (1, 0), (2, 0), (3, 0)])
    after, a, _ = play(state, a=[mv(0, 1, 0), mv(1, 1, 0), mv(2, 1, 0), stay(3)])
    assert results(a) == ["conflict", "conflict", "conflict", "ok"]
    assert a[2]["reason"] == "agent 3 of team 0 (A) stays on the target"
    assert a[0]["reason"] == "agent 1 of team 0 (A) on the target does not move away"
    assert agents(after) == [[[0, 0], [1, 0], [2, 0], [3, 0]], []]


def test_a_move_into_an_agent_whose_move_failed_or_was_invalid_fails():
    # A1's move conflicts with B0's (same target (2, 1)); A0 follows A1 and fails.
    state = position(["AA...", "...B.", "....."], a=[(0, 0), (1, 0)], b=[(3, 1)])
    after, a, b = play(state, a=[mv(0, 1, 0), mv(1, 1, 1)], b=[mv(0, -1, 0)])
    assert results(a) == ["conflict", "conflict"] and results(b) == ["conflict"]
    # A1's move is invalid (off the field); A0 still cannot move into its cell.
    after, a, _ = play(state, a=[mv(0, 1, 0), mv(1, 0, -1)])
    assert results(a) == ["conflict", "invalid"]
    assert agents(after) == [[[0, 0], [1, 0]], [[3, 1]]]


def test_swaps_fail():
    state = position(["AA...", "....."], a=[(0, 0), (1, 0)])
    after, a, _ = play(state, a=[mv(0, 1, 0), mv(1, -1, 0)])
    assert results(a) == ["conflict", "conflict"]
    assert a[0]["reason"] == (
        "a swap or cycle of moves (agent 0 of team 0 (A), agent 1 of team 0 (A))")
    assert agents(after) == [[[0, 0], [1, 0]], []]


def test_cycles_fail():
    # B0 -> B1 -> B2 -> B0 round a triangle. (No move can wait on a cycle: it would
    # share its target with a move of the cycle, and fail in step 2.)
    state = position(["BB...", ".B...", ".B..."], b=[(0, 0), (1, 0), (1, 1), (1, 2)])
    after, _, b = play(state, b=[mv(0, 1, 0), mv(1, 0, 1), mv(2, -1, -1)])
    assert results(b) == ["conflict"] * 3
    assert all("cycle" in outcome["reason"] for outcome in b)
    assert board(after) == ["BB...", ".B...", ".B..."]
    # The same agents as an open chain succeed.
    after, _, b = play(state, b=[mv(0, 0, 1), mv(1, -1, 0), mv(2, 1, 0)])
    assert results(b) == ["ok"] * 3
    assert agents(after) == [[], [[0, 1], [0, 0], [2, 1], [1, 2]]]


def test_a_remove_under_a_staying_or_silent_agent_fails():
    state = position(["AB...", "AB..."], a=[(0, 0), (0, 1)], b=[(1, 0), (1, 1)])
    after, a, b = play(state, a=[rm(0, 1, 0), rm(1, 1, 0)], b=[stay(0)])
    assert results(a) == ["conflict", "conflict"]
    assert a[0]["reason"] == "agent 0 of team 1 (B) ends the turn on the target"
    assert board(after) == ["AB...", "AB..."]


def test_a_remove_under_an_agent_that_moves_away_succeeds():
    state = position(["AB...", "....."], a=[(0, 0)], b=[(1, 0)])
    after, a, b = play(state, a=[rm(0, 1, 0)], b=[mv(0, 1, 1)])
    assert results(a) == results(b) == ["ok"]
    assert board(after) == ["A....", "..B.."]


def test_a_remove_under_an_agent_whose_move_fails_fails():
    state = position(["AB.B.", "....."], a=[(0, 0)], b=[(1, 0), (3, 0)])
    after, a, b = play(state, a=[rm(0, 1, 0)], b=[mv(0, 1, 0), mv(1, -1, 0)])
    assert results(a) == ["conflict"] and results(b) == ["conflict", "conflict"]
    assert board(after) == ["AB.B.", "....."]


# --- step 4: apply ---------------------------------------------------------------------


def test_a_move_tiles_its_target_and_the_old_cell_stays_tiled():
    state = position(FIELD, a=[(1, 1)], b=[(3, 1)])
    after, a, b = play(state, a=[mv(0, 1, 1)], b=[mv(0, 1, -1)])
    assert results(a) == results(b) == ["ok"]
    assert board(after) == ["....B", ".A.B.", "..A..", ".....", "....."]
    assert agents(after) == [[[2, 2]], [[4, 0]]]
    assert [s["tile"] for s in scores(after)] == [2, 2]


def test_a_remove_empties_the_cell_and_the_remover_stays():
    state = position(["AB...", "B...."], a=[(0, 0)], b=[(1, 0)])
    after, a, _ = play(state, a=[rm(0, 0, 1)])
    assert results(a) == ["ok"]
    assert board(after) == ["AB...", "....."]
    assert agents(after) == [[[0, 0]], [[1, 0]]]
    assert [s["tile"] for s in scores(after)] == [1, 1]


# --- step 5: treasures -------------------------------------------------------------------


def test_the_first_move_onto_a_treasure_collects_it_once():
    state = position(FIELD, a=[(1, 1)], b=[(3, 1)], treasures={(2, 1): 12, (4, 4): 9})
    after, a, _ = play(state, a=[mv(0, 1, 0)])
    assert results(a) == ["ok"]
    assert scores(after)[0] == {"tile": 2, "area": 0, "treasure": 12, "total": 14}
    assert after.treasures == {(4, 4)}
    after, _, _ = play(after, a=[mv(0, -1, 0)])
    after, _, _ = play(after, a=[mv(0, 1, 0)])
    assert scores(after)[0]["treasure"] == 12


def test_a_failed_move_onto_a_treasure_collects_nothing():
    state = position(FIELD, a=[(1, 1)], b=[(3, 1)], treasures={(2, 1): 12})
    after, a, b = play(state, a=[mv(0, 1, 0)], b=[mv(0, -1, 0)])
    assert results(a) == results(b) == ["conflict"]
    assert [s["treasure"] for s in scores(after)] == [0, 0]
    after, _, b = play(after, b=[mv(0, -1, 0)])
    assert results(b) == ["ok"]
    assert [s["treasure"] for s in scores(after)] == [0, 12]


def test_removing_or_enclosing_a_treasure_does_not_collect_it():
    rows = [".....", "..A..", ".A.A.", "...B.", "....."]
    state = position(rows, a=[(2, 1), (1, 2), (3, 2)], b=[(3, 3)], treasures={(2, 2): 16})
    after, a, _ = play(state, a=[mv(2, -1, 1)])  # the diamond closes around (2, 2)
    assert results(a) == ["ok"]
    assert scores(after)[0] == {"tile": 4, "area": 1, "treasure": 0, "total": 5}
    assert after.treasures == {(2, 2)}
    state = position(["A....", "BB...", "....."], a=[(0, 0)], b=[(1, 1)],
                     treasures={(0, 1): 10})
    after, a, _ = play(state, a=[rm(0, 0, 1)])
    assert results(a) == ["ok"] and scores(after)[0]["treasure"] == 0
    assert after.treasures == {(0, 1)}


def test_a_treasure_cell_keeps_its_point_value_as_a_tile():
    points = [[1, 5, 1], [1, 1, 1]]
    state = position(["A..", "..."], a=[(0, 0)], points=points, treasures={(1, 0): 8})
    after, _, _ = play(state, a=[mv(0, 1, 0)])
    assert scores(after)[0] == {"tile": 6, "area": 0, "treasure": 8, "total": 14}
