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

from matches.bots import blokus_duo_search as search
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
    """Level 3, two moves deep: alpha-beta over its 12 best moves by their worth as they
    stand (blokus_duo_search.value: squares placed, territory, open corners) and the
    other team's 10 best replies to each by the quick measure. Its effort is fixed
    (tens of milliseconds), whatever the budget."""
    started = time.monotonic()
    state = position(public)
    if TACTICAL_RUNS:
        return [{"move": search.mcts(state, team, rng, started + SEARCH_SECONDS,
                                     most=TACTICAL_RUNS)}]
    return [{"move": search.choose(state, team, rng, depth=2, top=12, width=10)}]


def searching_bot(public: dict[str, Any], team: int, rng: random.Random,
                  budget: float | None = None) -> list[dict]:
    """Level 4, Monte Carlo tree search (blokus_duo_search.mcts). Without a budget,
    RUNS games played out (the same moves for the same seed); with one, as many as fit
    in 85 % of it (a margin for the last playout and the answer); never past
    SEARCH_SECONDS either."""
    started = time.monotonic()
    state = position(public)
    if budget is None:
        deadline = started + SEARCH_SECONDS
        return [{"move": search.mcts(state, team, rng, deadline, most=RUNS)}]
    deadline = started + min(budget * 0.85, SEARCH_SECONDS)
    return [{"move": search.mcts(state, team, rng, deadline)}]


# Level 4's games played out a move without a budget, and its thinking time at most.
RUNS = 400
TACTICAL_RUNS = 0
SEARCH_SECONDS = 60.0


BOTS = {"random": random_bot, "greedy": greedy_bot, "tactical": tactical_bot,
        "searching": searching_bot}
LEVELS = ("random", "greedy", "tactical", "searching")  # levels 1 to 4, weakest first
