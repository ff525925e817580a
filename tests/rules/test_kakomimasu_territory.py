"""Kakomimasu territory (rings, leaks, nesting, persistence), scores and the winner."""

from matches.rules.kakomimasu import KakomimasuRules, scores
from tests.factories import board, play, position, put, remove

RULES = KakomimasuRules()


def draw_rings(size: int, rings: list[tuple[int, str]], fill: dict | None = None) -> list[str]:
    """A square board with square rings: (distance from the edge, team letter)."""
    grid = [["."] * size for _ in range(size)]
    for depth, letter in rings:
        low, high = depth, size - 1 - depth
        for i in range(low, high + 1):
            for x, y in ((i, low), (i, high), (low, i), (high, i)):
                grid[y][x] = letter
    for (x, y), char in (fill or {}).items():
        grid[y][x] = char
    return ["".join(row) for row in grid]


def test_a_closed_ring_encloses_its_inside():
    before = [".....", ".AAA.", ".A.A.", ".AA..", "....."]
    after, a, _ = play(position(before, agents=1), a=[put(0, 3, 3)])
    assert board(after) == [".....", ".AAA.", ".AaA.", ".AAA.", "....."]


def test_walls_joined_only_at_corners_leak():
    before = [".....", "..A..", ".A.A.", ".....", "....."]
    after, _, _ = play(position(before, agents=1), a=[put(0, 2, 3)])
    assert board(after) == [".....", "..A..", ".A.A.", "..A..", "....."]


def test_the_board_edge_never_closes_an_enclosure():
    before = ["A.A..", "A.A..", "AA..."]
    after, _, _ = play(position(before, agents=1), a=[put(0, 2, 2)])
    assert board(after) == ["A.A..", "A.A..", "AAA.."]


def test_walls_standing_on_edge_cells_do_close():
    before = ["AAA..", "A.A..", "AA..."]
    after, _, _ = play(position(before, agents=1), a=[put(0, 2, 2)])
    assert board(after) == ["AAA..", "AaA..", "AAA.."]


def test_opponent_walls_inside_a_ring_stay_walls_and_agents_play_no_part():
    before = ["AAAAA", "A...A", "A.B.A", "A...A", "AAAA."]
    state = position(before, b=[(2, 2)], agents=1)
    after, _, _ = play(state, a=[put(0, 4, 4)])
    assert board(after) == ["AAAAA", "AaaaA", "AaBaA", "AaaaA", "AAAAA"]


def test_nesting_three_deep_goes_to_the_innermost_ring():
    rings = draw_rings(11, [(0, "A"), (2, "B"), (4, "A")], fill={(10, 10): "."})
    after, _, _ = play(position(rings, agents=1), a=[put(0, 10, 10)])
    expected = draw_rings(11, [(0, "A"), (2, "B"), (4, "A")], fill={
        **{(x, y): "a" for x in range(1, 10) for y in (1, 9)},
        **{(x, y): "a" for y in range(1, 10) for x in (1, 9)},
        **{(x, y): "b" for x in range(3, 8) for y in (3, 7)},
        **{(x, y): "b" for y in range(3, 8) for x in (3, 7)},
        (5, 5): "a",
    })
    assert board(after) == expected


def nested_game():
    """A's outer ring on the edge of 9x9, B's ring inside, A agent 0 on (4, 1)."""
    rows = draw_rings(9, [(0, "A"), (2, "B")], fill={
        **{(x, y): "a" for x in range(1, 8) for y in (1, 7)},
        **{(x, y): "a" for y in range(1, 8) for x in (1, 7)},
        **{(x, y): "b" for x in range(3, 6) for y in range(3, 6)},
        (4, 1): "A",
    })
    return position(rows, a=[(4, 1)], b=[(4, 2)])


def test_inner_ring_broken_while_the_outer_stands_goes_to_the_outer_team():
    state = nested_game()
    # B's agent steps off its wall onto (5, 3)... its own territory; A removes (3, 2)
    after, a, b = play(state, a=[remove(0, 3, 2)], b=[{"agent": 0, "type": "move", "x": 4, "y": 3}])
    assert a[0]["result"] == b[0]["result"] == "ok"
    cells = board(after)
    assert cells[2] == "AaBaBBBaA"  # the hole (3, 2) became A's territory
    assert cells[3][3:6] == "aBa" and cells[4][3:6] == "aaa"  # B's old territory is A's now


def test_inner_ring_keeps_its_territory_when_the_outer_ring_was_broken_first():
    rows = ["." * 11] + ["." + row + "." for row in nested_game_rows()] + ["." * 11]
    rows[0] = "B" + rows[0][1:]
    state = position(rows, a=[(5, 2)], b=[(0, 0), (5, 3)])
    # turn 1: B breaks A's outer ring at its corner (1, 1)
    state, _, b = play(state, b=[remove(0, 1, 1)])
    assert b[0]["result"] == "ok"
    assert board(state)[2][1:10] == "AaaaAaaaA"  # A's territory persists
    # turn 2: A breaks B's inner ring: B keeps its territory, the hole stays neutral
    state, a, _ = play(state, a=[remove(0, 4, 3)])
    assert a[0]["result"] == "ok"
    cells = board(state)
    assert cells[3][1:10] == "AaB.BBBaA"
    assert cells[4][4:7] == "bbb" and cells[5][4:7] == "bbb"


def nested_game_rows() -> list[str]:
    return board(nested_game())


def test_territory_survives_a_broken_ring_until_built_on():
    rows = [".....", ".AAA.", ".AaA.", ".AAA.", "....B"]
    state = position(rows, a=[(1, 1)], b=[(4, 4)])
    state, _, b = play(state, b=[remove(0, 3, 3)])
    assert board(state) == [".....", ".AAA.", ".AaA.", ".AA..", "....B"]
    state = position(board(state), a=[(1, 1)], b=[(4, 4)])
    state, _, b = play(state, b=[{"agent": 0, "type": "move", "x": 3, "y": 3}])
    state, _, b = play(state, b=[{"agent": 0, "type": "move", "x": 2, "y": 2}])
    assert board(state) == [".....", ".AAA.", ".ABA.", ".AAB.", "....B"]


def test_the_other_team_takes_territory_over_by_enclosing_it_innermost():
    rows = ["aaaaa", "aBBBa", "aBaBa", "aBB.a", "aaaaa"]
    after, _, _ = play(position(rows, agents=1), b=[put(0, 3, 3)])
    assert board(after) == ["aaaaa", "aBBBa", "aBbBa", "aBBBa", "aaaaa"]


def test_a_removed_wall_becomes_territory_of_the_team_enclosing_it():
    rows = ["AAAAA", "AaaaA", "AaAaA", "AaaaA", "AAAAA"]
    state = position(rows, a=[(2, 2)])
    after, a, _ = play(state, a=[{"agent": 0, "type": "move", "x": 1, "y": 1}])
    after, a, _ = play(after, a=[remove(0, 2, 2)])
    assert a[0]["result"] == "ok"
    assert board(after)[2] == "AaaaA"


def test_scores_sign_walls_and_take_territory_absolutely():
    rows = ["AAA", "AaA", "AAB"]
    points = [[1, 1, 1], [1, -5, 1], [1, -3, 2]]
    state = position(rows, points=points, agents=1)
    assert scores(state) == [
        {"wall": 1 + 1 + 1 + 1 + 1 + 1 - 3, "territory": 5, "total": 8},
        {"wall": 2, "territory": 0, "total": 2},
    ]


def test_the_higher_total_wins():
    assert RULES.result(position(["AAB"])) == {"winner": 0, "decided_by": "total"}
    assert RULES.result(position(["ABB"])) == {"winner": 1, "decided_by": "total"}


def test_equal_totals_are_decided_by_wall_points_then_drawn():
    # A: wall 2 + territory 2 = 4; B: wall 1 + 3 = 4 -> B wins on walls
    assert RULES.result(position(["AaBB"], points=[[2, 2, 1, 3]])) == {
        "winner": 1, "decided_by": "wall"}
    assert RULES.result(position(["AB"])) == {"winner": None, "decided_by": "draw"}
