"""Procon 2020's treasures taken, as every screen draws them, are worked out once
(`treasures_taken`, from the timeline) and agree with the resolution that takes them."""

import json
from pathlib import Path

import pytest

from matches.rules import rules_for
from matches.rules.procon2020 import treasures_taken
from matches.rules.records import parse_record
from matches.rules.timeline import compute_timeline, states

PROCON = Path(__file__).resolve().parents[1] / "conformance" / "procon2020"


def stay(agent):
    return {"agent": agent, "type": "stay", "dx": 0, "dy": 0}


# A's agent 1 starts on the treasure (5, 5) and stays there; B's agent 0 steps onto the
# treasure (8, 8) as B's agent 1, who started on it, steps off.
START_CELLS = {
    "format": "match-record/1", "game": "procon2020", "title": "treasures on start cells",
    "board": {"width": 10, "height": 10, "points": [[1] * 10 for _ in range(10)],
              "obstacles": [], "treasures": [{"x": 5, "y": 5, "point": 10},
                                             {"x": 8, "y": 8, "point": 10}],
              "start": [[[2, 2], [5, 5]], [[7, 7], [8, 8]]]},
    "agents": 2, "turns": 2, "teams": [{"name": "A"}, {"name": "B"}],
    "actions": [[[stay(0), stay(1)], [{"agent": 0, "type": "move", "dx": 1, "dy": 1},
                                      {"agent": 1, "type": "move", "dx": 1, "dy": 0}]],
                [[stay(0), stay(1)], [stay(0), stay(1)]]],
}


def records():
    yield parse_record(json.dumps(START_CELLS).encode())
    for path in sorted(PROCON.glob("*.record.json")):
        yield parse_record(path.read_bytes())


@pytest.mark.parametrize("record", list(records()), ids=lambda record: record.title[:30])
def test_the_treasures_taken_are_those_the_resolution_took(record):
    spots = {(t["x"], t["y"]) for t in record.board["treasures"]}
    timeline = compute_timeline(record)["states"]
    for turn, (state, _) in enumerate(states(record)):
        assert treasures_taken(record.board, timeline[:turn + 1]) == spots - state.treasures


def test_standing_on_a_treasure_from_the_start_takes_nothing_stepping_on_as_one_leaves_does():
    record = parse_record(json.dumps(START_CELLS).encode())
    timeline = compute_timeline(record)["states"]
    assert treasures_taken(record.board, timeline) == {(8, 8)}
    rules = rules_for("procon2020")
    assert rules.drawing_extras(record.board, timeline)["treasures_taken"] == [(8, 8)]
    # what each turn adds to what the screens remember: this turn's treasures
    assert [rules.drawing_news(record.board, state) for state in timeline] == [
        {}, {"treasures_taken": [[8, 8]]}, {}]
