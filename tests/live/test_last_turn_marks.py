"""What a turn did on the board (`last`: cells acted on, read or just placed, and moves)
is worked out once, by the game's rules (`last_turn`), and sent with the snapshot, each
turn and each step, for the screens to draw as given (docs/live-protocol.md)."""

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from matches import selectors
from matches.live import messages
from matches.rules import rules_for
from matches.rules.records import parse_record
from matches.services.archive import match_import

pytestmark = pytest.mark.django_db
VECTORS = Path(__file__).resolve().parents[1] / "conformance"
NOW = datetime(2026, 11, 29, tzinfo=UTC)


def imported(vector):
    return match_import(parse_record((VECTORS / f"{vector}.record.json").read_bytes()),
                        published=True)


def timeline(vector):
    return json.loads((VECTORS / f"{vector}.timeline.json").read_text())["states"]


@pytest.mark.parametrize("vector", ["kakomimasu/random_s7_04", "blokus-duo/random_s7_00",
                                    "chaser/random_s7_00", "procon2020/random_s7_00"])
def test_each_turn_and_the_snapshot_carry_the_rules_marks_from_the_state_before(vector):
    match, states = imported(vector), timeline(vector)
    rules = rules_for(match.game)
    rows = selectors.stored_turns(match).order_by("number")
    sent = [messages.turn(match, row, NOW)["last"] for row in rows]
    assert sent == rules.last_turns(states)[1:]
    assert any(last["marks"] or last["moves"] for last in sent)
    assert messages.snapshot(match, NOW)["last"] == sent[-1]


def test_a_kakomimasu_turn_draws_its_moves_from_where_the_agents_stood():
    """The state alone cannot say where a Kakomimasu agent came from: the turn's `last`
    has the moves all the same (the play page, which reads the API, had none)."""
    vector = "kakomimasu/random_s7_04"
    match, states = imported(vector), timeline(vector)
    moved = sum(o["type"] == "move" and o["result"] == "ok" for team in states[-1]["outcomes"]
                for o in team)
    assert moved and len(messages.snapshot(match, NOW)["last"]["moves"]) == moved
    assert selectors.public_state(match, NOW)["last"] == messages.snapshot(match, NOW)["last"]


def test_after_a_blokus_duo_pass_the_piece_placed_the_turn_before_stays_marked():
    vector = "blokus-duo/random_s7_00"
    match, states = imported(vector), timeline(vector)
    passed = next(turn for turn, state in enumerate(states) if turn and all(
        o["move"] in ("----", "0000") for team in state["outcomes"] for o in team))
    row = selectors.stored_turns(match).get(number=passed)
    marks = messages.turn(match, row, NOW)["last"]["marks"]
    assert marks and marks == rules_for("blokus-duo").last_turn(states[passed - 1])["marks"]


def chaser(agents):
    return {"turn": 3, "cells": [".....", ".....", "....."], "agents": agents,
            "scores": [{"items": 0}, {"items": 0}]}


def test_a_step_carries_its_own_marks():
    rules = rules_for("chaser")
    walked = messages.step(4, 0, "wr", "ok", chaser([[[2, 1]], [[4, 2]]]), rules=rules)
    assert walked["last"] == {"marks": [], "moves": [[[1, 1], [2, 1], 0]]}
    looked = messages.step(4, 1, "lu", "ok", chaser([[[2, 1]], [[2, 2]]]), rules=rules)
    # the 3 x 3 square centred two cells up, (2, 0): its row off the map left out
    assert sorted(looked["last"]["marks"]) == [[x, y, "read", 1] for x in (1, 2, 3)
                                               for y in (0, 1)]
    put = messages.step(4, 0, "pd", "ok", chaser([[[2, 1]], [[4, 2]]]), rules=rules)
    assert put["last"] == {"marks": [[2, 2, "acted", 0]], "moves": []}
    faulted = messages.step(4, 0, "wr", "fault", chaser([[[2, 1]], [[4, 2]]]), rules=rules)
    assert faulted["last"] == {"marks": [], "moves": []}


def test_a_step_draws_its_move_from_the_position_it_was_played_on():
    """The server gives a step the position before it (as a turn's message has), so its
    move starts where the player stood, not where the state after suggests."""
    rules = rules_for("chaser")
    walked = messages.step(4, 0, "wr", "ok", chaser([[[2, 1]], [[4, 2]]]), rules=rules,
                           before=chaser([[[3, 0]], [[4, 2]]]))
    assert walked["last"]["moves"] == [[[3, 0], [2, 1], 0]]


def test_a_walk_into_the_other_player_moves_nobody_and_draws_no_move():
    """Both players walk into each other and stay: no move from behind, neither from a
    step nor from the turn (the screens had drawn a dot on each player)."""
    rules = rules_for("chaser")
    blocked = messages.step(1, 0, "wr", "ok", chaser([[[2, 2]], [[3, 2]]]), rules=rules)
    assert blocked["last"]["moves"] == []
    match = imported("chaser/walk_onto_other_stays")
    row = selectors.stored_turns(match).get(number=1)
    assert messages.turn(match, row, NOW)["last"] == {"marks": [], "moves": []}
