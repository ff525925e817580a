"""Built-in Blokus Duo players for the demo: they see only the public API state.

A bot rebuilds the position from the match's resolved turns (the moves the API lists,
played by the rules) and answers with one legal move. `random_bot` picks any legal
placement; `greedy_bot` places its biggest piece where it opens the most new corners
for its next ones (and takes the fewest from the other player on a tie).
"""

from __future__ import annotations

import random
from typing import Any

from matches.rules.blokus_duo_board import (
    PIECE_SIZES,
    BlokusDuoState,
    legal_moves,
    new_state,
    placement,
    play,
)

GAME = "blokus-duo"


def position(public: dict[str, Any]) -> BlokusDuoState:
    """The position after the match's resolved turns, from its public state."""
    from matches.rules import rules_for

    rules, state = rules_for(GAME), new_state()
    for turn in public["actions"]:
        moves = [[{"move": outcome["move"]} for outcome in side] for side in turn["outcomes"]]
        state, _ = rules.resolve_turn(state, moves)
    return state


def random_bot(public: dict[str, Any], team: int, rng: random.Random) -> list[dict]:
    state = position(public)
    return [{"move": rng.choice(legal_moves(state, team))}]


def greedy_bot(public: dict[str, Any], team: int, rng: random.Random) -> list[dict]:
    state = position(public)
    best, best_score = None, None
    for code in legal_moves(state, team):
        where = placement(code)
        after = play(state, team, where)
        score = (PIECE_SIZES[where.piece], bin(after.corners[team]).count("1"),
                 -bin(after.corners[1 - team]).count("1"), rng.random())
        if best_score is None or score > best_score:
            best, best_score = code, score
    return [{"move": best}]


BOTS = {"random": random_bot, "greedy": greedy_bot}
