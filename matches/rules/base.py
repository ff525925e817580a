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



class Presentation:
    """What the screens, pictures and lists need to know of a game beyond its rules,
    with the defaults most games share. Each game's rules class inherits it and
    overrides what differs, so that no code outside `matches/rules/` names a game."""

    title: str  # the game's name as people know it, for lists and forms
    public_boards: str | None = None  # a file of named public boards in matches/boards/
    live = False  # matches of it can be created and played live (bots, API, screens)

    def random_board(self, seed: int | None = None) -> tuple[dict[str, Any], dict[str, Any]]:
        """A generated match-record/1 board and suggested settings (`agents`, ...)."""
        raise ValueError(f"{self.title}: no random boards")

    def drawing_extras(self, board: Mapping[str, Any],
                       states: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
        """What a screen joining late cannot tell from the latest state alone, from the
        board and the timeline/1 states so far (none by default)."""
        return {}
