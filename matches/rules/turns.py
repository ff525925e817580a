"""How a game's turns are taken: the two kinds of turn (docs/api.md, "Two kinds of turn").

- Simultaneous, timed (the default): both teams send their actions during a strategy
  step of fixed length; the clock resolves the turn at its deadline.
- Alternating: one team moves a turn; the turn is resolved the moment a legal move of
  the team to move arrives. Each team has a thinking-time budget for the whole game (a
  chess clock): the time from the previous turn's resolution to its own move is
  charged to the mover, and a team whose time runs out loses (`decided_by: "time"`).
  An illegal move is refused at once and not played; when the team to move has no
  legal move the server plays its pass itself.

- Played by its protocol server: a game with a protocol of its own (CHaser over TCP,
  docs/chaser-server.md) is driven step by step by that server, which stores each line
  and each turn as it happens; no deadline and no chess clock: the server bounds each
  reply itself. The clock and the answer API leave such a match alone.

A game's rules class declares its kind with `turn_kind`; an alternating game inherits
`Alternating` and says what is legal.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

SIMULTANEOUS = "simultaneous"
ALTERNATING = "alternating"
PROTOCOL = "protocol"  # played by the game's own protocol server


class Alternating:
    """What an alternating game's rules add to the common interface."""

    turn_kind = ALTERNATING
    default_clock_seconds: int  # each team's thinking time for a game, unless set
    max_turns: int  # enough turns for the longest game, passes included

    def mover(self, turn: int) -> int:
        """The team that moves in `turn` (1-based): team 0 in odd turns."""
        return (turn - 1) % 2

    def move_refusal(self, state: Any, team: int, actions: Sequence[dict[str, Any]]) -> str:
        """Why the mover's actions for the next turn are not a legal move ("" if they
        are): the sentence names the field and the rule it breaks."""
        raise NotImplementedError

    def move_as_stored(self, actions: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
        """A legal move as the record keeps it (a canonical spelling, say)."""
        return list(actions)

    def must_pass(self, state: Any) -> bool:
        """Whether the team to move after `state` has no legal move, so that the server
        plays its pass."""
        raise NotImplementedError

    def pass_move(self) -> list[dict[str, Any]]:
        """The actions of a pass, as the record keeps them."""
        raise NotImplementedError


def turn_kind(rules: Any) -> str:
    """The kind of a game's turns (simultaneous unless its rules say otherwise)."""
    return rules.turn_kind


def is_alternating(rules: Any) -> bool:
    return turn_kind(rules) == ALTERNATING


def is_protocol_played(rules: Any) -> bool:
    return turn_kind(rules) == PROTOCOL
