"""Recompute a match from its record: the one place every game's turns are replayed."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from matches.rules import rules_for
from matches.rules.records import TIMELINE_FORMAT, MatchRecord


def states(record: MatchRecord) -> Iterator[tuple[Any, dict[str, Any]]]:
    """Yield (state, timeline state) for turn 0 and after every recorded turn.

    Every recorded turn is replayed, even after a decision: what a late action means
    (CHaser: invalid, the game is decided; Blokus Duo: the final passes) is the rules'.
    """
    rules = rules_for(record.game)
    state = rules.initial_state(record)
    yield state, rules.view(state)
    for actions in record.actions:
        state, outcomes = rules.resolve_turn(state, actions)
        view = rules.view(state)
        view["outcomes"] = outcomes
        yield state, view


def compute_timeline(record: MatchRecord) -> dict[str, Any]:
    """The timeline/1 of a record; `result` only once the match is over."""
    rules = rules_for(record.game)
    replayed = list(states(record))
    views = [_ordered(view) for _, view in replayed]
    timeline: dict[str, Any] = {"format": TIMELINE_FORMAT, "game": record.game, "states": views}
    final = replayed[-1][0]
    if rules.is_over(final, record.turns):
        timeline["result"] = rules.result(final)
    return timeline


def _ordered(view: dict[str, Any]) -> dict[str, Any]:
    keys = ("turn", "cells", "agents", "outcomes", "scores")
    return {key: view[key] for key in keys if key in view} | view
