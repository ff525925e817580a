"""Each game's rules read and write the board files its contest made (docs/formats.md,
"The games' own files"): Kakomimasu the public boards' file, Procon 2020 the field
JSON, CHaser the map file; the boards' readers ask every game's rules and name none."""

import json

import pytest

from matches.boards.specs import BoardError, board_spec_data
from matches.rules import rules_for
from matches.rules.checks import RecordError
from matches.rules.files import board_file

FIELD = {"width": 2, "height": 2, "points": [[1, 2], [2, 1]],
         "start": [[[0, 0]], [[1, 1]]], "obstacles": [], "treasures": []}


def test_kakomimasu_reads_a_public_board_with_flat_points_and_its_settings():
    board, hints = rules_for("kakomimasu").board_read(
        {"width": 3, "height": 2, "points": [1, 2, 3, 4, 5, 6], "nAgent": 2,
         "totalTurn": 30, "operationSec": 5})
    assert board == {"width": 3, "height": 2, "points": [[1, 2, 3], [4, 5, 6]]}
    assert hints == {"agents": 2, "turns": 30, "strategy_seconds": 5}
    assert rules_for("kakomimasu").board_read(FIELD) is None  # rows: not its format
    with pytest.raises(RecordError, match="points: 5 values, expected 3×2"):
        rules_for("kakomimasu").board_read({"width": 3, "height": 2, "points": [1] * 5})


def test_procon2020_reads_a_field_and_counts_its_start_cells_as_agents():
    board, hints = rules_for("procon2020").board_read(FIELD | {"totalTurn": 20})
    assert board == {key: FIELD[key] for key in
                     ("width", "height", "points", "start", "obstacles", "treasures")}
    assert hints == {"agents": 1, "turns": 20}
    assert rules_for("procon2020").board_read({"width": 2, "height": 1,
                                               "points": [1, 2]}) is None


@pytest.mark.parametrize("game", ["chaser", "blokus-duo"])
def test_games_without_a_json_board_file_read_none(game):
    assert rules_for(game).board_read(FIELD) is None


def test_each_game_writes_its_own_format_and_reads_it_back():
    square = {"width": 2, "height": 2, "points": [[1, 2], [3, 4]]}
    name, content = board_file("kakomimasu", square, {"agents": 2, "turns": 30}, "sq")
    assert name == "sq.json"
    assert json.loads(content) == {"sq": {"name": "sq", "width": 2, "height": 2,
                                          "points": [1, 2, 3, 4], "nAgent": 2,
                                          "totalTurn": 30}}
    assert board_spec_data("kakomimasu", json.loads(content), name) == (
        square, {"agents": 2, "turns": 30})

    field, _ = rules_for("procon2020").random_board(seed=1)
    field = rules_for("procon2020").parse_board(field)
    name, content = board_file("procon2020", field, {"turns": 20}, "f")
    assert name == "f.json" and json.loads(content)["points"] == field["points"]
    assert board_spec_data("procon2020", json.loads(content), name) == (
        field, {"agents": len(field["start"][0]), "turns": 20})

    chaser, _ = rules_for("chaser").random_board(seed=1)
    name, content = board_file("chaser", chaser, {"turns": 50}, "m")
    assert name == "m.map" and content.decode().startswith("N:m")

    assert board_file("blokus-duo", dict(rules_for("blokus-duo").fixed_board), {}, "b") is None


def test_a_board_in_another_games_format_is_read_too():
    # a Kakomimasu board in a Procon field (points in rows), as creatematch takes it
    rows = {"width": 2, "height": 2, "points": [[1, 2], [2, 1]], "nAgent": 1}
    assert board_spec_data("kakomimasu", rows, "x") == (
        {"width": 2, "height": 2, "points": [[1, 2], [2, 1]]}, {"agents": 1})
    with pytest.raises(BoardError, match="not a match record, a board or a Procon field"):
        board_spec_data("kakomimasu", {"width": 2}, "x")
