"""The interface every game's rules implement, and the values they exchange.

A game's rules are a stateless object. The state is a plain immutable value, so a
turn can be resolved (and a whole match recomputed) without a database.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

TEAM_LETTERS = ("A", "B")

# One turn's actions: one list per team, each a list of action objects as sent.
TurnActions = Sequence[Sequence[Mapping[str, Any]]]
# One turn's outcomes: per team, each action echoed with "result" (and "reason").
Outcomes = list[list[dict[str, Any]]]


class GameRules(Protocol):
    """What the registry hands out for a game id."""

    game: str
    # Outcome keys that must be equal (where both sides give them) for two timelines
    # to agree, beyond whether each action is "ok" (docs/formats.md).
    outcome_keys: tuple[str, ...]

    def parse_board(self, board: Mapping[str, Any]) -> dict[str, Any]:
        """The record's `board`, checked; raise `checks.RecordError` naming the field."""

    def check_agents(self, agents: Any, board: dict[str, Any]) -> int:
        """The record's `agents`, checked against the parsed board (`RecordError`)."""

    def initial_state(self, record: Any) -> Any:
        """The position before turn 1, from a parsed match record's board."""

    def resolve_turn(self, state: Any, actions: TurnActions) -> tuple[Any, Outcomes]:
        """Apply one turn's actions; return the next state and every action's outcome."""

    def view(self, state: Any) -> dict[str, Any]:
        """The timeline/1 fields of a state: turn, cells, agents, scores."""

    def action_problem(self, action: Any) -> str:
        """Why an action sent to the answer API is malformed for this game ("" if it is not)."""

    def action_fields(self, action: dict[str, Any]) -> dict[str, Any]:
        """The fields of a well-formed action that the match record keeps."""

    def is_over(self, state: Any, turns: int) -> bool:
        """Whether the match has ended after this state (turn limit or a decision)."""

    def result(self, state: Any) -> dict[str, Any]:
        """The final result of an ended match: {"winner": 0 | 1 | None, "decided_by"}."""

