"""Blokus Duo legality (rules 1-5 of docs/rules/blokus-duo.md), turns, views and results."""

from __future__ import annotations

from pathlib import Path

import pytest

from matches.rules.blokus_duo import BlokusDuoRules
from matches.rules.blokus_duo_board import (
    has_legal_move,
    illegal_reason,
    legal_moves,
    new_state,
    on_board_placements,
    placement,
)
from matches.rules.checks import RecordError
from matches.rules.records import parse_record
from matches.rules.timeline import compute_timeline

RULES = BlokusDuoRules()
VECTORS = Path(__file__).resolve().parent.parent / "conformance" / "blokus-duo"


def turn(state, *actions):
    """One turn in which the mover sends `actions` ({"move": ...} dicts or codes)."""
    sent = [a if isinstance(a, dict) else {"move": a} for a in actions]
    lists = [[], []]
    lists[state.mover] = sent
    return RULES.resolve_turn(state, lists)


def play(*codes):
    """The state after the codes, one a turn, and the outcomes of the last turn."""
    state, outcomes = new_state(), None
    for code in codes:
        state, outcomes = turn(state, code)
    return state, outcomes


def last(codes):
    """The outcome of the last code of a game."""
    state, outcomes = play(*codes)
    return outcomes[1 - state.mover][0]


def ok(*codes):
    return last(codes)["result"] == "ok"


def reason(*codes):
    out = last(codes)
    assert out["result"] == "invalid"
    return out["reason"]


def vector_record(name):
    return parse_record((VECTORS / f"{name}.record.json").read_bytes())


def state_after(record, turns):
    state = RULES.initial_state(record)
    for actions in record.actions[:turns]:
        state, _ = RULES.resolve_turn(state, actions)
    return state


def squares(state, letter):
    return {(x, y) for y, row in enumerate(RULES.view(state)["cells"])
            for x, c in enumerate(row) if c == letter}


# --- rule 1: an unused piece, on the board, on free squares --------------------------


def test_rule1_a_piece_is_placed_once():
    assert ok("55a0", "AAa0")
    assert reason("55a0", "AAa0", "66a0") == "piece a was already placed"
    assert reason("55a0", "AAa0", "66A0") == "piece a was already placed"  # any case
    assert ok("55a0", "AAa0", "66b0")  # another piece in the same place is fine


def test_rule1_each_team_has_its_own_pieces():
    assert ok("55a0", "AAa0")  # both place piece a


def test_rule1_the_piece_lies_on_the_board():
    # A: a column x=4, y=2..6; its corner (3, 1) is one row from the top edge.
    assert ok("55j0", "AAa0", "41b0")  # (3,0) (3,1): on the board
    assert reason("55j0", "AAa0", "41c0") == "the piece does not lie entirely on the board"
    state, _ = play("55j0", "AAa0", "41c0")
    assert squares(state, "A") == {(4, y) for y in range(2, 7)}
    assert state.remaining == (84, 88)


def test_rule1_no_overlap_with_own_or_opponent_squares():
    # A: the p pentomino around 65; B: the u cross at AA.
    base = ("65p3", "AAu0")
    assert reason(*base, "75a0") == "the piece overlaps a placed square"  # A's own (6,4)
    assert reason(*base, "AAb0") == "the piece overlaps a placed square"  # B's (9,9)
    assert reason(*base, "75a0", "A9a0") == "the piece overlaps a placed square"  # B's own
    assert reason(*base, "75a0", "65a0") == "the piece overlaps a placed square"  # A's (5,4)
    state, _ = play(*base, "AAb0")
    assert state.remaining == (84, 84) and squares(state, "A") == {
        (5, 4), (4, 4), (6, 4), (6, 3), (6, 5)}


# --- rule 2: the first pieces cover the start points ------------------------------------


def test_rule2_the_first_piece_of_team_a_covers_55():
    assert reason("66a0") == "the first piece must cover 55"
    assert reason("AAa0") == "the first piece must cover 55"  # not B's start point
    assert ok("55a0")
    assert ok("53j0")  # a piece covering 55 with another cell as reference


def test_rule2_the_first_piece_of_team_b_covers_aa():
    assert reason("55a0", "55b0") == "the piece overlaps a placed square"
    assert reason("55a0", "66b0") == "the first piece must cover AA"
    assert ok("55a0", "AAb2")  # (9,9) (8,9)
    assert reason("55a0", "BBa0") == "the first piece must cover AA"


def test_rule2_applies_to_the_first_piece_not_the_first_turn():
    # A's first move is illegal and not played: A's next one must still cover 55.
    state, _ = play("66a0", "AAa0")
    assert state.squares[0] == 0
    assert legal_moves(state)[0] == "55a0"
    assert all(any(c == (4, 4) for c in placement(code).cells()) for code in legal_moves(state))
    assert reason("66a0", "AAa0", "BBa0") == "the first piece must cover 55"


def test_rule2_a_code_refused_as_first_move_is_legal_later():
    assert reason("66a0") == "the first piece must cover 55"
    assert ok("55a0", "AAa0", "66b0")


# --- rule 3: own corners, never own edges ------------------------------------------------


def test_rule3_a_later_piece_touches_an_own_square_at_a_corner():
    assert ok("55a0", "AAa0", "66b0")  # (5,5) is diagonal to (4,4)
    assert reason("55a0", "AAa0", "77b0") == "the piece touches no own square at a corner"


def test_rule3_touching_only_the_opponent_at_a_corner_does_not_count():
    # B's (9,9) is diagonal to (8,8) and (10,10); A has nothing near.
    assert reason("55a0", "AAa0", "99b0") == "the piece touches no own square at a corner"
    assert reason("55a0", "AAa0", "BBb0") == "the piece touches no own square at a corner"


def test_rule3_no_edge_with_an_own_square_even_with_a_corner():
    # (5,4) (5,5): corner at (5,5) with (4,4), but (5,4) shares an edge with it.
    assert reason("55a0", "AAa0", "65b0") == "the piece shares an edge with an own square"
    # B's edge-neighbour of its own square.
    assert reason("55a0", "AAa0", "66b0", "ABb0") == "the piece shares an edge with an own square"


def test_rule3_an_edge_with_the_opponent_is_fine():
    # A: (4,4) (5,5) (5,6); B: (9,9) (8,8) (7,8).
    base = ("55a0", "AAa0", "66b0", "99b2")
    state, _ = play(*base)
    assert squares(state, "A") == {(4, 4), (5, 5), (5, 6)}
    assert squares(state, "B") == {(9, 9), (8, 8), (7, 8)}
    # A's row (6..10, 7): a corner at (6,7) with its own (5,6), and edges with B's (7,8)
    # and (8,8).
    after, outcomes = turn(state, "98j2")
    assert outcomes[0] == [{"move": "98j2", "result": "ok"}]
    placed = squares(after, "A") - squares(state, "A")
    assert placed == {(x, 7) for x in range(6, 11)}
    assert {(x, y + 1) for x, y in placed} & squares(state, "B") == {(7, 8), (8, 8)}


# --- rule 4: passes ------------------------------------------------------------------


def test_rule4_a_pass_while_a_move_exists_is_invalid_and_names_one():
    for code in ("----", "0000"):
        state, outcomes = play(code)
        out = outcomes[0][0]
        assert out == {"move": code, "result": "invalid",
                       "reason": "pass while a legal move exists (e.g. 55a0)"}
        assert state.turn == 1 and state.squares == (0, 0)
    state, _ = play("55a0", "AAa0")
    _, outcomes = turn(state, "----")
    example = outcomes[0][0]["reason"].removeprefix("pass while a legal move exists (e.g. ")
    assert example.rstrip(")") in legal_moves(state)


def test_rule4_a_pass_is_ok_when_the_mover_is_stuck():
    record = vector_record("full_game_draw")
    stuck = state_after(record, 24)  # turn 25: A has no legal move, B has
    assert not has_legal_move(stuck, 0) and legal_moves(stuck) == []
    assert has_legal_move(stuck, 1)
    after, outcomes = turn(stuck, "----")
    assert outcomes == [[{"move": "----", "result": "ok"}], []]
    assert after.squares == stuck.squares and after.turn == 25
    _, outcomes = turn(stuck, "0000")
    assert outcomes == [[{"move": "0000", "result": "ok"}], []]
    _, outcomes = turn(stuck, "A7a0")  # any placement is illegal for a stuck player
    assert outcomes[0][0]["result"] == "invalid"


# --- rule 5: the end ----------------------------------------------------------------


def test_rule5_the_game_ends_when_neither_player_can_move():
    record = vector_record("full_game_draw")
    assert not RULES.is_over(new_state(), 1)
    one_stuck = state_after(record, 24)
    assert not RULES.is_over(one_stuck, 24)  # B can still move
    final = state_after(record, 26)
    assert not has_legal_move(final, 0) and not has_legal_move(final, 1)
    assert RULES.is_over(final, 26)
    assert RULES.is_over(state_after(record, 28), 28)  # the optional final passes change nothing


def test_rule5_the_turn_limit_does_not_end_the_game():
    state, _ = play("55a0", "AAa0")
    assert not RULES.is_over(state, 2)
    record = vector_record("overlap")
    assert len(record.actions) == record.turns
    assert "result" not in compute_timeline(record)


def test_result_fewer_remaining_squares_wins():
    state, _ = play("55a0", "AAa0", "66b0")
    assert RULES.result(state) == {"winner": 0, "decided_by": "remaining"}
    state, _ = play("55a0", "AAb2")
    assert RULES.result(state) == {"winner": 1, "decided_by": "remaining"}
    state, _ = play("55a0", "AAa0")
    assert RULES.result(state) == {"winner": None, "decided_by": "draw"}


# --- turns, actions and views ------------------------------------------------------------


def test_team_a_moves_on_odd_turns_whatever_happened():
    state = new_state()
    codes = ["66a0", "55a0", "55a0", "----", "66b0", "AAa0"]
    results = []
    for number, code in enumerate(codes, 1):
        assert state.mover == (0 if number % 2 else 1)
        state, outcomes = turn(state, code)
        assert outcomes[state.mover] == []  # the team not to move has no outcome
        results.append(outcomes[1 - state.mover][0]["result"])
    assert results == ["invalid", "invalid", "ok", "invalid", "ok", "ok"]
    assert squares(state, "A") == {(4, 4), (5, 5), (5, 6)} and squares(state, "B") == {(9, 9)}


def test_an_action_of_the_team_not_to_move_is_invalid():
    state, outcomes = RULES.resolve_turn(new_state(), [[{"move": "55a0"}], [{"move": "AAa0"}]])
    assert outcomes[0] == [{"move": "55a0", "result": "ok"}]
    assert outcomes[1][0]["result"] == "invalid"
    assert "turn 1 is team 0 (A)'s" in outcomes[1][0]["reason"]
    assert squares(state, "B") == set()


def test_a_silent_mover_changes_nothing_but_the_turn():
    state, outcomes = RULES.resolve_turn(new_state(), [[], []])
    assert outcomes == [[], []]
    assert state.turn == 1 and state.mover == 1 and state.squares == (0, 0)


def test_several_moves_in_one_turn_are_all_invalid():
    state, outcomes = turn(new_state(), "55a0", "53j0")
    assert [o["result"] for o in outcomes[0]] == ["invalid", "invalid"]
    assert outcomes[0][0]["reason"] == "2 moves sent; one move a turn"
    assert state.squares == (0, 0)


@pytest.mark.parametrize(("action", "problem"), [
    ({"move": "F5a0"}, "'F5a0': position must be two of 1-9, A-E"),
    ({"move": "CCa"}, "'CCa' is not a 4-character move code"),
    ({"move": 55}, "the move must be a string, got the number 55"),
    ({"type": "put"}, "the action has no move"),
])
def test_malformed_actions_are_invalid_and_echoed(action, problem):
    _, outcomes = RULES.resolve_turn(new_state(), [[action], []])
    echoed = {k: v for k, v in action.items() if k == "move"}
    assert outcomes[0] == [echoed | {"result": "invalid", "reason": problem}]


def test_outcomes_repeat_the_move_as_written():
    state, outcomes = play("55a0", "aaU0", "66B0")
    assert outcomes[0] == [{"move": "66B0", "result": "ok"}]
    assert squares(state, "B") == {(9, 9), (10, 9), (8, 9), (9, 8), (9, 10)}


def test_view():
    state, _ = play("65p6", "aaU0")
    view = RULES.view(state)
    assert view["turn"] == 2 and view["agents"] == [[], []]
    assert view["scores"] == [{"remaining": 84}, {"remaining": 84}]
    assert len(view["cells"]) == 14 and all(len(row) == 14 for row in view["cells"])
    assert view["cells"][4] == "....AAA......."
    assert view["cells"][3] == "......A......."
    assert view["cells"][9] == "........BBB..."
    assert RULES.view(new_state())["scores"] == [{"remaining": 89}, {"remaining": 89}]
    assert set("".join(RULES.view(new_state())["cells"])) == {"."}


def test_illegal_reason_checks_the_piece_before_the_board():
    state, _ = play("53j0", "AAa0")
    assert illegal_reason(state, 0, placement("62j0")) == "piece j was already placed"


def test_parse_board_and_agents():
    assert RULES.parse_board({"width": 14, "height": 14}) == {"width": 14, "height": 14}
    assert RULES.parse_board({"width": 14, "height": 14, "points": [[0]]}) == {
        "width": 14, "height": 14}
    with pytest.raises(RecordError, match=r"board.width: 13 is outside 14..14"):
        RULES.parse_board({"width": 13, "height": 14})
    with pytest.raises(RecordError, match=r"board.height: missing"):
        RULES.parse_board({"width": 14})
    assert RULES.check_agents(0, {}) == 0
    with pytest.raises(RecordError, match=r"agents: 2 is outside 0..0"):
        RULES.check_agents(2, {})


def test_action_problem_and_fields():
    assert RULES.action_problem({"move": "55a0"}) == ""
    assert RULES.action_problem({"move": "xyz"}) == ""  # judged at the transition
    assert RULES.action_problem([]) == ": expected an object"
    assert RULES.action_problem({}) == ".move: missing"
    assert RULES.action_problem({"move": 5}).startswith(".move: expected a string")
    assert RULES.action_fields({"move": "55a0", "extra": 1}) == {"move": "55a0"}


def test_legal_moves_of_the_first_turn():
    moves = legal_moves(new_state())
    assert moves[:5] == ["55a0", "54b0", "55b0", "55b2", "65b2"]  # piece, orientation, row
    covering = [p.code() for p in on_board_placements() if (4, 4) in p.cells()]
    assert len(moves) == len(set(moves)) == len(covering) == 414
    assert set(moves) == set(covering)
    assert set(legal_moves(new_state(), 1)) == {
        p.code() for p in on_board_placements() if (9, 9) in p.cells()}
    assert has_legal_move(new_state(), 0) and has_legal_move(new_state(), 1)
