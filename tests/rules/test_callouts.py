"""Each turn explained: what the game's rules find notable in a turn (at most two
callouts, the most telling first), in the language of the moment."""

from pathlib import Path

import pytest
from django.utils import translation

from matches.rules import rules_for
from matches.rules.records import parse_record
from matches.rules.timeline import compute_timeline

VECTORS = Path(__file__).resolve().parent.parent / "conformance"
NAMES = ["Alpha", "Beta"]


def states_of(vector: str) -> list[dict]:
    return compute_timeline(parse_record((VECTORS / f"{vector}.record.json").read_bytes()))[
        "states"]


def last_turn(vector: str):
    states = states_of(vector)
    return rules_for(vector.split("/")[0]), states[-2], states[-1]


def test_territory_closed_is_told_with_its_gain_at_a_cell_of_it():
    rules, before, after = last_turn("kakomimasu/enclosure_ring")
    [said] = rules.callouts(before, after, NAMES)
    assert said["text"] == "Alpha +7: territory closed at (2, 2)" and said["team"] == 0
    x, y = said["at"]
    assert after["cells"][y][x] == "a" and before["cells"][y][x] != "a"  # newly closed


def test_agents_colliding_at_one_cell_are_counted_there_and_the_biggest_news_comes_first():
    rules, before, after = last_turn("kakomimasu/random_s7_19")
    said = rules.callouts(before, after, NAMES)
    assert [s["text"] for s in said] == ["⚡ 3 agents collided at (4, 8)",
                                          "Alpha +17: territory closed at (11, 5)"]
    assert said[0]["at"] == [4, 8] and said[0]["team"] is None


def test_a_quiet_turn_says_nothing_and_never_more_than_two():
    rules, before, after = last_turn("kakomimasu/conflict_same_target")
    assert rules.callouts(before, after, NAMES) == []  # two invalid actions: no news
    states = states_of("kakomimasu/random_s7_00")
    counts = [len(rules.callouts(a, b, NAMES)) for a, b in zip(states, states[1:], strict=False)]
    assert max(counts) <= 2 and 0 < sum(map(bool, counts)) < len(counts) / 2


@pytest.mark.parametrize(("vector", "expected"), [
    ("procon2020/area_four_neighbour_fill", "Beta +9: an area enclosed"),
    ("chaser/item_block_traps_self", "Alpha (Cool) takes an item"),
    ("blokus-duo/random_s7_08", "Alpha cannot place a piece and passes"),
])
def test_each_game_says_its_own_news(vector, expected):
    rules, before, after = last_turn(vector)
    assert [s["text"] for s in rules.callouts(before, after, NAMES)] == [expected]


def test_a_piece_in_a_corner_of_the_board_is_news():
    states = states_of("blokus-duo/random_s7_00")
    rules = rules_for("blokus-duo")
    said = [c for a, b in zip(states, states[1:], strict=False)
            for c in rules.callouts(a, b, NAMES)]
    corners = [c for c in said if "takes the corner" in c["text"]]
    assert corners and all(c["at"][0] in (0, 13) and c["at"][1] in (0, 13) for c in corners)


def test_callouts_are_worded_in_the_language_of_the_moment():
    rules, before, after = last_turn("kakomimasu/random_s7_19")
    with translation.override("ja"):
        ja = [s["text"] for s in rules.callouts(before, after, NAMES)]
    with translation.override("vi"):
        vi = [s["text"] for s in rules.callouts(before, after, NAMES)]
    assert "collided" not in ja[0] and "(4, 8)" in ja[0] and "Alpha" in ja[1]
    assert "territory" not in vi[1] and "+17" in vi[1]


def test_the_end_marks_the_cells_that_decided_it():
    rules, _, after = last_turn("chaser/item_block_traps_self")
    result = {"winner": 1, "decided_by": "trapped"}
    cool = after["agents"][0][0]
    around = rules.decisive(after, result)
    assert len(around) == 4 and all(after["cells"][y][x] == "#" for x, y in around)
    assert all(abs(x - cool[0]) + abs(y - cool[1]) == 1 for x, y in around)
    assert rules.decisive(after, {"winner": 0, "decided_by": "items"}) == []
    rules, _, after = last_turn("kakomimasu/enclosure_ring")
    assert rules.decisive(after, {"winner": 0, "decided_by": "total"}) == []  # the board does


def test_a_turn_its_rules_cannot_read_says_nothing_and_holds_nothing_up(caplog):
    from matches import selectors

    broken = {"turn": 1, "cells": ["ab"], "agents": [[], []], "outcomes": [[], []],
              "scores": [{}, {}]}  # no score parts: the rules' reading fails
    assert selectors.callouts_every_language("kakomimasu", {"turn": 0}, broken, NAMES) is None
    assert "callouts of a kakomimasu turn 1" in caplog.text
    rules, before, after = last_turn("kakomimasu/enclosure_ring")
    said = selectors.callouts_every_language("kakomimasu", before, after, NAMES)
    assert set(said) == {"ja", "vi", "en"} and said["en"][0]["team"] == 0
