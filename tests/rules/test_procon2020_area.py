"""Procon 2020 scores: tile, area (4-neighbour flood from the edge), treasure, total."""

from __future__ import annotations

from tests.rules.test_procon2020_actions import play, position, rm, scores


def area(rows, points=None, team=0) -> int:
    return scores(position(rows, points=points))[team]["area"]


RING = [
    "......",
    ".AAA..",
    ".A.A..",
    ".AAA..",
    "......",
]


def test_tile_points_are_the_signed_sum_of_the_teams_tiles():
    points = [[3, -7, 2], [5, 0, -16]]
    state = position(["AAB", "BAB"], points=points)
    assert [s["tile"] for s in scores(state)] == [3 - 7 + 0, 2 + 5 - 16]


def test_a_closed_ring_encloses_its_inside():
    assert area(RING) == 1
    assert area(RING, team=1) == 0


def test_a_diamond_of_diagonal_steps_encloses_since_the_flood_is_four_neighbour():
    rows = [".....", "..A..", ".A.A.", "..A..", "....."]
    assert area(rows) == 1


def test_an_open_side_leaks():
    rows = list(RING)
    rows[2] = ".A...."
    assert area(rows) == 0
    rows = [".....", "..A..", ".A.A.", ".....", "....."]
    assert area(rows) == 0


def test_edge_cells_are_never_enclosed():
    assert area(["A.A...", "AAA...", "......"]) == 0  # (1, 0) is open to the edge
    assert area(["....", "A.A.", "AAA."]) == 0
    # A diamond standing on the bottom edge encloses the cell above its foot.
    assert area(["......", "..A...", ".A.A..", "..A..."]) == 1


def test_an_enclosed_negative_cell_scores_its_absolute_value_and_tiles_stay_signed():
    points = [[1] * 6 for _ in range(5)]
    points[2][2] = -7
    points[1][1] = -3
    state = position(RING, points=points)
    assert scores(state)[0] == {"tile": 7 - 3, "area": 7, "treasure": 0, "total": 11}


def test_opponent_tiles_and_agents_inside_count_for_area_and_stay_their_tiles():
    rows = list(RING)
    rows[2] = ".ABA.."
    points = [[1] * 6 for _ in range(5)]
    points[2][2] = 5
    state = position(rows, b=[(2, 2)], points=points)
    a, b = scores(state)
    assert a["area"] == 5 and b["tile"] == 5 and b["area"] == 0


def test_own_tiles_inside_a_ring_score_as_tiles_not_area():
    rows = [".......", ".AAAAA.", ".A.A.A.", ".AAAAA.", "......."]
    state = position(rows)
    assert scores(state)[0] == {"tile": 13, "area": 2, "treasure": 0, "total": 15}


def test_an_enclosed_obstacle_scores_zero_and_obstacles_do_not_stop_the_flood():
    points = [[9] * 6 for _ in range(5)]
    inside = list(RING)
    inside[2] = ".A#A.."
    assert area(inside, points) == 0  # the obstacle is the whole inside
    big = [".......", ".AAAA..", ".A#.A..", ".AAAA..", "......."]
    assert area(big, [[9] * 7 for _ in range(5)]) == 9
    # A ring that uses an obstacle as part of its wall encloses nothing.
    wall = list(RING)
    wall[1] = ".A#A.."
    assert area(wall, points) == 0


def test_both_teams_score_their_own_rings_at_once_nested_or_apart():
    rows = [
        ".........",
        ".AAAAA...",
        ".A.B.A...",
        ".AB.BA.BB",
        ".A.B.AB.B",
        ".AAAAA.BB",
    ]
    a, b = scores(position(rows))
    # A encloses the 4 B tiles and the 5 other cells inside its ring (a 3 x 3 square),
    # B encloses (3, 3) in its diamond and (7, 4), which is not on the edge.
    assert a["area"] == 9
    assert b["area"] == 2


def test_area_is_recomputed_every_turn():
    state = position(["......", ".AAAB.", ".A.A..", ".AAA..", "......"], b=[(4, 1)])
    assert scores(state)[0]["area"] == 1
    broken, _, b = play(state, b=[rm(0, -1, 1)])  # B takes (3, 2) off
    assert b[0]["result"] == "ok"
    assert scores(broken)[0] == {"tile": 7, "area": 0, "treasure": 0, "total": 7}
    assert scores(broken)[1]["total"] == 1


def test_a_ring_needs_no_corners():
    rows = list(RING)
    rows[1], rows[3] = "..A...", "..A..."
    assert area(rows) == 1
    state = position(["......", ".AAAB.", ".A.A..", ".AAA..", "......"], b=[(4, 1)])
    after, _, b = play(state, b=[rm(0, -1, 0)])  # B takes the corner (3, 1) off
    assert b[0]["result"] == "ok"
    assert scores(after)[0] == {"tile": 7, "area": 1, "treasure": 0, "total": 8}
