"""Blokus Duo pieces and move codes: the table, orientations, synonyms, canonical codes."""

from __future__ import annotations

import pytest

from matches.rules.blokus_duo_board import (
    BASE_SHAPES,
    PIECE_SIZES,
    SHAPES,
    TOTAL_SQUARES,
    canonical_code,
    code_problem,
    on_board_placements,
    orient,
    placement,
)


def cells(code: str) -> set[tuple[int, int]]:
    return set(placement(code).cells())


def test_the_pieces_are_the_21_free_polyominoes_of_89_squares():
    assert len(BASE_SHAPES) == 21
    assert sorted(PIECE_SIZES) == [1, 2, 3, 3] + [4] * 5 + [5] * 12
    assert sum(PIECE_SIZES) == TOTAL_SQUARES == 89


def test_orientation_is_two_r_plus_m():
    d = BASE_SHAPES["d"]  # (0,0) (1,0) (0,-1)
    assert set(orient(d, 0)) == {(0, 0), (1, 0), (0, -1)}
    assert set(orient(d, 1)) == {(0, 0), (-1, 0), (0, -1)}  # mirror only
    assert set(orient(d, 2)) == {(0, 0), (0, 1), (1, 0)}  # one quarter turn clockwise
    assert set(orient(d, 3)) == {(0, 0), (0, 1), (-1, 0)}  # turn, then mirror
    assert set(orient(d, 4)) == {(0, 0), (-1, 0), (0, 1)}  # half turn
    assert set(orient(d, 6)) == {(0, 0), (0, -1), (-1, 0)}  # three quarter turns


def test_91_distinct_oriented_shapes():
    normal = set()
    for letter, base in BASE_SHAPES.items():
        for o in range(8):
            shape = orient(base, o)
            low_x, low_y = min(x for x, _ in shape), min(y for _, y in shape)
            normal.add((letter, frozenset((x - low_x, y - low_y) for x, y in shape)))
    assert len(normal) == 91
    assert len(SHAPES) == 91


def test_13729_distinct_placements_on_the_empty_board():
    placements = on_board_placements()
    assert len(placements) == 13_729
    assert len({(p.piece, frozenset(p.cells())) for p in placements}) == 13_729
    assert all(0 <= x < 14 and 0 <= y < 14 for p in placements for x, y in p.cells())


def test_the_documents_synonyms_cover_the_same_cells():
    assert cells("65p3") == cells("65p6") == {(5, 4), (4, 4), (6, 4), (6, 3), (6, 5)}
    assert cells("33b6") == cells("43b2") == {(2, 2), (3, 2)}


@pytest.mark.parametrize(("code", "canonical"), [
    ("65p6", "65p3"), ("65p3", "65p3"), ("33b6", "43b2"), ("44b5", "43b0"),
    ("7ai5", "79i1"), ("22i4", "21i0"), ("caK6", "CAk6"), ("aaU7", "AAu0"),
    ("----", "----"), ("0000", "----"), ("e8D3", "E8d3"),
])
def test_canonical_code(code, canonical):
    assert canonical_code(code) == canonical
    if canonical != "----":
        assert cells(code) == cells(canonical)


def test_every_code_of_a_placement_gets_the_smallest_orientation_as_canonical_code():
    groups: dict[tuple[str, frozenset], list[str]] = {}
    for x in "123456789ABCDE":
        for y in "123456789ABCDE":
            for letter in BASE_SHAPES:
                for o in range(8):
                    code = f"{x}{y}{letter}{o}"
                    if placement(code).on_board():
                        groups.setdefault((letter, frozenset(cells(code))), []).append(code)
                    else:
                        assert any(not (0 <= cx < 14 and 0 <= cy < 14) for cx, cy in cells(code))
    assert len(groups) == 13_729
    for codes in groups.values():
        smallest = min(int(code[3]) for code in codes)
        (canonical,) = {canonical_code(code) for code in codes}
        assert canonical in codes
        assert int(canonical[3]) == smallest


@pytest.mark.parametrize(("code", "problem"), [
    ("F5a0", "position"), ("5Fa0", "position"), ("05a0", "position"), ("CCv0", "piece"),
    ("CC00", "piece"), ("66a8", "orientation"), ("66aa", "orientation"), ("CCa", "4-character"),
    ("55a00", "4-character"), ("", "4-character"), ("---", "4-character"),
])
def test_malformed_codes(code, problem):
    assert problem in code_problem(code)
    with pytest.raises(ValueError, match=problem):
        canonical_code(code)


def test_well_formed_codes_have_no_problem():
    assert code_problem("55a0") == code_problem("eeU7") == code_problem("----") == ""
    assert code_problem(55) == "the move must be a string, got the number 55"


def test_canonical_code_refuses_a_piece_off_the_board():
    with pytest.raises(ValueError, match="does not lie on the board"):
        canonical_code("11j0")
