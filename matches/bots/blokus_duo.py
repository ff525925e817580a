"""Built-in Blokus Duo players for the demo: they see only the public API state.

A bot rebuilds the position from the match's resolved turns (the moves the API lists,
played by the rules) and answers with one legal move. `random_bot` picks any legal
placement; `greedy_bot` places its biggest piece where it opens the most new corners
for its next ones (and takes the fewest from the other player on a tie).
`tactical_bot` (level 3) looks two moves ahead with alpha-beta on a position's worth
(squares placed, territory reached first, open corners); `searching_bot` (level 4) is
a Monte Carlo tree search that plays thousands of quick games out to the end and uses
the time it is given (`budget`, seconds a move). Both are in blokus_duo_search.py.
A team that cannot move answers a pass (`----`).
"""

from __future__ import annotations

import random
from typing import Any

from matches.bots import blokus_duo_search as search
from matches.bots import clock
from matches.rules.blokus_duo_board import (
    PASS,
    PIECE_SIZES,
    BlokusDuoState,
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
    moves = legal_moves(position(public), team)
    return [{"move": rng.choice(moves) if moves else PASS}]


def greedy_bot(public: dict[str, Any], team: int, rng: random.Random,
               budget: float | None = None) -> list[dict]:
    state = position(public)
    if not has_legal_move(state, team):
        return [{"move": PASS}]
    return [{"move": _greedy(state, team, rng)[0]}]


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


# --- levels 3 and 4 (matches/bots/blokus_duo_search.py) ------------------------------


def tactical_bot(public: dict[str, Any], team: int, rng: random.Random,
                 budget: float | None = None) -> list[dict]:
    """Level 3, two moves deep: alpha-beta over its 20 best moves by their worth as they
    stand (blokus_duo_search.value: squares placed, territory, open corners) and the
    other team's 12 best replies to each by the quick measure. Its effort is fixed
    (tens of milliseconds), whatever the budget."""
    state = position(public)
    if not has_legal_move(state, team):
        return [{"move": PASS}]
    return [{"move": search.choose(state, team, rng, depth=2, top=20, width=12)}]


def searching_bot(public: dict[str, Any], team: int, rng: random.Random,
                  budget: float | None = None) -> list[dict]:
    """Level 4, Monte Carlo tree search (blokus_duo_search.mcts). Without a budget,
    RUNS games played out (the same moves for the same seed); with one, as many as fit
    in 92 % of it (a margin for the last playout and the answer: a run takes a
    third of a millisecond at most, the answer a few); never past
    SEARCH_SECONDS either."""
    started = clock.now()
    state = position(public)
    if not has_legal_move(state, team):
        return [{"move": PASS}]
    if budget is None:
        deadline = started + SEARCH_SECONDS
        return [{"move": search.mcts(state, team, rng, deadline, most=RUNS)}]
    deadline = started + min(budget * SHARE, SEARCH_SECONDS)
    return [{"move": search.mcts(state, team, rng, deadline)}]


# Level 4's games played out a move without a budget (a few tenths of a second, the time
# 2000 took before the playouts were made faster; fewer do not beat level 3 three times
# in four), and its thinking time at most.
RUNS = 2300
SEARCH_SECONDS = 60.0
SHARE = 0.92  # of the budget, for the search


BOTS = {"random": random_bot, "greedy": greedy_bot, "tactical": tactical_bot,
        "searching": searching_bot}
LEVELS = ("random", "greedy", "tactical", "searching")  # levels 1 to 4, weakest first
