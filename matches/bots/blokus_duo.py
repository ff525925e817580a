"""Built-in Blokus Duo players for the demo: they see only the public API state.

A bot rebuilds the position from the match's resolved turns (the moves the API lists,
played by the rules) and answers with one legal move. `random_bot` picks any legal
placement; `greedy_bot` places its biggest piece where it opens the most new corners
for its next ones (and takes the fewest from the other player on a tie).
"""

from __future__ import annotations

import random
import time
from typing import Any

from matches.rules.blokus_duo_board import (
    PIECE_SIZES,
    BlokusDuoState,
    _legal,
    has_legal_move,
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


def random_bot(public: dict[str, Any], team: int, rng: random.Random,
               budget: float | None = None) -> list[dict]:
    state = position(public)
    return [{"move": rng.choice(legal_moves(state, team))}]


def greedy_bot(public: dict[str, Any], team: int, rng: random.Random,
               budget: float | None = None) -> list[dict]:
    return [{"move": _greedy(position(public), team, rng)[0]}]


def _greedy(state: BlokusDuoState, team: int, rng: random.Random) -> tuple[str, BlokusDuoState]:
    """The greedy move and the position after it: the biggest piece, where it opens the
    most corners for the team's next ones (and leaves the other team the fewest)."""
    best, best_score = None, None
    for code in legal_moves(state, team):
        where = placement(code)
        after = play(state, team, where)
        score = (PIECE_SIZES[where.piece], bin(after.corners[team]).count("1"),
                 -bin(after.corners[1 - team]).count("1"), rng.random())
        if best_score is None or score > best_score:
            best, best_score = (code, after), score
    return best


# --- levels 3 and 4 -------------------------------------------------------------------


def _corners(state: BlokusDuoState, team: int) -> int:
    """The cells where the team's next piece could touch its own at a corner."""
    return bin(state.corners[team] & ~state.forbidden[team]).count("1")


def _mobility(state: BlokusDuoState, team: int) -> int:
    """How many placements the team has (every shape at every legal reference cell)."""
    return sum(bin(refs).count("1") for refs in _legal(state, team).values())


def _by_corners(state: BlokusDuoState, team: int,
                rng: random.Random) -> list[tuple[float, str, BlokusDuoState]]:
    """Every legal move with the position after it, best first by a quick measure: the
    piece's squares (big pieces fit only early), then open corners, the team's own
    against the other's."""
    found = []
    for code in legal_moves(state, team):
        where = placement(code)
        after = play(state, team, where)
        value = (8 * PIECE_SIZES[where.piece] + _corners(after, team)
                 - _corners(after, 1 - team) + rng.random() * 0.01)
        found.append((value, code, after))
    found.sort(key=lambda item: item[0], reverse=True)
    return found


def _balance(state: BlokusDuoState, team: int) -> int:
    """The team's placements against the other team's: the room each has left."""
    return _mobility(state, team) - _mobility(state, 1 - team)


def _by_room(state: BlokusDuoState, team: int, rng: random.Random,
             widest: int | None = None) -> list[tuple[float, str, BlokusDuoState]]:
    """Every legal move (or the `widest` best by the quick measure), best first by the
    piece's squares and the room it leaves."""
    found = [(100 * PIECE_SIZES[placement(code).piece] + _balance(after, team)
              + rng.random() * 0.01, code, after)
             for _, code, after in _by_corners(state, team, rng)[:widest]]
    found.sort(key=lambda item: item[0], reverse=True)
    return found


def tactical_bot(public: dict[str, Any], team: int, rng: random.Random,
                 budget: float | None = None) -> list[dict]:
    """Level 3: the move that leaves the team the most placements against the other
    team's, big pieces first."""
    return [{"move": _by_room(position(public), team, rng)[0][1]}]


def searching_bot(public: dict[str, Any], team: int, rng: random.Random,
                  budget: float | None = None) -> list[dict]:
    """Level 4, three moves deep: level 3's ten best moves; for each, the other team's best
    reply and then the team's best answer to it, both by level 3's measure (of the 60
    best by the quick one); the move after which the team has the most room and the
    fewest squares left against the other's. Past SEARCH_SECONDS it looks at no more
    of them (the first is level 3's own choice)."""
    state = position(public)
    started = time.monotonic()
    best, best_value = None, None
    for _, code, after in _by_room(state, team, rng)[:10]:
        if best is not None and time.monotonic() - started > SEARCH_SECONDS:
            break
        end = after
        for side in (1 - team, team):
            if has_legal_move(end, side):
                end = _by_room(end, side, rng, 60)[0][2]
        value = (100 * (end.remaining[1 - team] - end.remaining[team])
                 + _balance(end, team))
        if best_value is None or value > best_value:
            best, best_value = code, value
    return [{"move": best}]


# Level 4's thinking time at most, well within a second a move.
SEARCH_SECONDS = 0.6


BOTS = {"random": random_bot, "greedy": greedy_bot, "tactical": tactical_bot,
        "searching": searching_bot}
LEVELS = ("random", "greedy", "tactical", "searching")  # levels 1 to 4, weakest first
