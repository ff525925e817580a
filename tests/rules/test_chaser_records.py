"""CHaser in match records and timelines: the board, the turn's outcomes, the view, agreement."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from matches.rules import chaser
from matches.rules.checks import RecordError
from matches.rules.records import first_difference, parse_record, parse_timeline
from matches.rules.timeline import compute_timeline
from tests.rules.test_chaser_helpers import RULES, record

VECTORS = Path(__file__).resolve().parent.parent / "conformance" / "chaser"
BOARD = {"width": 4, "height": 2, "cells": ["*..#", "...."], "start": [[0, 1], [3, 1]]}


def parsed(**changes) -> dict:
    return RULES.parse_board(BOARD | changes)


def timeline(rows: list[str], actions: list, turns: int = 10) -> dict:
    return compute_timeline(parse_record(record(rows, actions, turns)))


# --- the board --------------------------------------------------------------------------


def test_parse_board_returns_the_canonical_board():
    assert parsed() == BOARD
    assert parsed(extra=1) == BOARD  # unknown keys are dropped
    assert parsed(start=[[0, 0], [3, 1]])["start"] == [[0, 0], [3, 1]]  # a start on an item


@pytest.mark.parametrize(("changes", "message"), [
    ({"width": 65}, "board.width: 65 is outside 1..64"),
    ({"height": 0}, "board.height: 0 is outside 1..64"),
    ({"cells": None}, "board.cells: expected a list, got null"),
    ({"cells": ["*..#"]}, "board.cells: 1 rows, expected 2 (board.height)"),
    ({"cells": ["*..#", "..."]}, "board.cells[1]: 3 cells, expected 4 (board.width)"),
    ({"cells": ["*..#", 4]}, "board.cells[1]: expected a string, got the number 4"),
    ({"cells": ["*..#", "..H."]}, "board.cells[1][2]: 'H' is not a cell (expected . # or *)"),
    ({"start": [[0, 1]]}, "board.start: expected 2 cells (Cool, Hot), got 1"),
    ({"start": [[0, 1], [4, 1]]}, "board.start[1][0]: 4 is outside 0..3"),
    ({"start": [[0, 1], [0, 1]]}, "board.start[1]: [0, 1] is also board.start[0]"),
    ({"start": [[3, 0], [0, 1]]}, "board.start[0]: [3, 0] is a block"),
])
def test_parse_board_refuses_a_bad_board(changes, message):
    with pytest.raises(RecordError) as caught:
        parsed(**changes)
    assert str(caught.value) == message


def test_parse_board_names_a_missing_key():
    for key in ("width", "height", "cells", "start"):
        with pytest.raises(RecordError, match=f"^board.{key}: missing$"):
            RULES.parse_board({k: v for k, v in BOARD.items() if k != key})


def test_each_team_has_exactly_one_agent():
    assert RULES.check_agents(1, BOARD) == 1
    for agents in (0, 2, "1", True):
        with pytest.raises(RecordError, match="^agents: "):
            RULES.check_agents(agents, BOARD)



# --- the turn's outcomes ------------------------------------------------------------------


def test_a_turn_echoes_each_command_with_its_digits():
    states = timeline(["C.*.", "...H"], [(["wr"], ["su"])])["states"]
    assert states[1]["outcomes"] == [
        [{"command": "wr", "result": "ok", "ready": "1222200200", "reply": "1222003000"}],
        [{"command": "su", "result": "ok", "ready": "1302002222", "reply": "1022222222"}],
    ]


def test_a_command_after_the_decision_is_invalid_and_changes_nothing():
    states = timeline([".CH..", "....."], [(["pr"], ["wl"]), (["wl"], ["wl"])])["states"]
    assert states[1]["outcomes"][1] == [
        {"command": "wl", "result": "invalid", "reason": "the game is already decided"}]
    assert [o[0]["result"] for o in states[2]["outcomes"]] == ["invalid", "invalid"]
    assert states[2]["agents"] == states[1]["agents"] == [[[1, 0]], [[2, 0]]]
    assert states[2]["cells"] == states[1]["cells"] == ["..#..", "....."]
    assert [state["turn"] for state in states] == [0, 1, 2]


def test_a_second_command_in_a_turn_is_invalid_and_changes_nothing():
    states = timeline(["C....", "....H"], [(["wr", "wr"], ["sl"])])["states"]
    cool = states[1]["outcomes"][0]
    assert [o["result"] for o in cool] == ["ok", "invalid"]
    assert cool[1]["reason"] == "only one command per turn"
    assert states[1]["agents"] == [[[1, 0]], [[4, 1]]]


def test_an_empty_list_is_no_step():
    states = timeline(["C....", "....H"], [([], ["wl"]), (["wr"], [])])["states"]
    assert states[1]["outcomes"][0] == []
    assert states[1]["agents"] == [[[0, 0]], [[3, 1]]]
    assert states[2]["agents"] == [[[1, 0]], [[3, 1]]]


def test_a_missing_or_odd_command_is_a_fault():
    data = record(["C....", "....H"], [([], [])])
    data["actions"][0][0] = [{}]
    result = compute_timeline(parse_record(data))
    assert result["states"][1]["outcomes"][0] == [{"result": "invalid", "reason": "no command"}]
    assert result["result"] == {"winner": 1, "decided_by": "fault"}
    data["actions"][0][0] = [{"command": ["wr"]}]
    outcome = compute_timeline(parse_record(data))["states"][1]["outcomes"][0][0]
    assert outcome["result"] == "invalid" and outcome["command"] == ["wr"]


def test_the_result_appears_once_decided_even_in_a_short_record():
    assert "result" not in timeline(["C....", "....H"], [(["wr"], ["wl"])])
    assert timeline(["C#...", "....H"], [(["wr"], [])])["result"] == {
        "winner": 1, "decided_by": "buried"}


# --- the view -----------------------------------------------------------------------------


def test_the_view_shows_cells_agents_and_items():
    states = timeline(["C*..", "...H"], [(["wr"], ["wr"])])["states"]
    assert states[0] | {"outcomes": None} == {
        "turn": 0, "cells": [".*..", "...."], "agents": [[[0, 0]], [[3, 1]]],
        "scores": [{"items": 0}, {"items": 0}], "outcomes": None}
    assert states[1]["cells"] == ["#...", "...."]
    assert states[1]["agents"] == [[[1, 0]], [None]]  # Hot walked off the map
    assert states[1]["scores"] == [{"items": 1}, {"items": 0}]


# --- answer API -----------------------------------------------------------------------------


@pytest.mark.parametrize(("action", "problem"), [
    ({"command": "wu"}, ""),
    ({"command": "pr", "extra": 1}, ""),
    (["wu"], ": expected an object"),
    ({}, ".command: missing"),
    ({"command": 1}, ".command: expected a string"),
    ({"command": "xx"}, ".command: expected one of " + " ".join(chaser.COMMANDS)),
])
def test_action_problem(action, problem):
    assert RULES.action_problem(action) == problem


def test_action_fields_keep_the_command():
    assert RULES.action_fields({"command": "sd", "extra": 1}) == {"command": "sd"}


# --- agreement ------------------------------------------------------------------------------


def test_the_outcome_keys_are_the_results_and_the_digits():
    assert RULES.outcome_keys == ("result", "ready", "reply")


@pytest.mark.parametrize(("key", "value"), [("ready", "1000000000"), ("reply", "0000000000")])
def test_other_digits_disagree(key, value):
    name = "capture_by_put"
    data = parse_record((VECTORS / f"{name}.record.json").read_bytes())
    stored = parse_timeline((VECTORS / f"{name}.timeline.json").read_bytes())
    changed = copy.deepcopy(stored)
    changed["states"][3]["outcomes"][1][0][key] = value
    assert first_difference(stored, compute_timeline(data)) is None
    assert key in first_difference(changed, compute_timeline(data))


def test_the_vectors_round_trip_through_the_record_writer():
    for path in sorted(VECTORS.glob("*.record.json")):
        data = json.loads(path.read_bytes())
        assert parse_record(data).to_json()["board"] == data["board"], path.name
