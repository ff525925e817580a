"""Procon 2020's random fields: within the official limits, fair to both teams (every
cell, obstacle, treasure and start cell mirrored), and a field the rules accept."""

import pytest

from matches.rules import rules_for
from matches.rules.procon2020 import random_field
from matches.rules.records import parse_record


@pytest.mark.parametrize("seed", range(40))
def test_a_random_field_is_official_symmetric_and_accepted(seed):
    board, hints = random_field(seed)
    width, height = board["width"], board["height"]
    assert 10 <= width <= 20 and 10 <= height <= 20 and 2 <= hints["agents"] <= 8
    points = board["points"]
    assert all(-16 <= v <= 16 for row in points for v in row) and sum(map(sum, points)) > 0
    left_right = all(points[y][x] == points[y][width - 1 - x]
                     for y in range(height) for x in range(width))
    turned = all(points[y][x] == points[height - 1 - y][width - 1 - x]
                 for y in range(height) for x in range(width))
    assert left_right or turned

    def partner(cell):
        x, y = cell
        return [width - 1 - x, y] if left_right else [width - 1 - x, height - 1 - y]

    assert sorted(map(partner, board["obstacles"])) == sorted(board["obstacles"])
    treasures = {(t["x"], t["y"]): t["point"] for t in board["treasures"]}
    assert all(8 <= v <= 16 and treasures[tuple(partner(c))] == v for c, v in treasures.items())
    assert [partner(c) for c in board["start"][0]] == board["start"][1]
    assert len(board["start"][0]) == hints["agents"]
    record = parse_record({"format": "match-record/1", "game": "procon2020", "board": board,
                           "agents": hints["agents"], "turns": hints["turns"],
                           "teams": [{"name": "A"}, {"name": "B"}], "actions": []})
    state = rules_for("procon2020").initial_state(record)
    view = rules_for("procon2020").view(state)
    assert view["scores"][0]["tile"] == view["scores"][1]["tile"]  # the same start


def test_the_same_seed_gives_the_same_field_and_another_another():
    assert random_field(7) == random_field(7) and random_field(7) != random_field(8)
