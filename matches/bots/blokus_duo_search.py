"""Blokus Duo: a position's value and a search over the moves, for the built-in levels.

The value of a position, for one team, in squares:

- the squares the team has placed more than the other (what the result counts);
- the *territory*: the free cells the team could reach with its next pieces before the
  other could. Both teams grow at once, a ring at a time, from the cells where their
  next piece could go (their corner cells) through the cells they may still cover (free
  and not beside one of their own squares), a ring being every cell next to the last
  one, sideways or diagonally. A cell reached by one team a ring earlier than by the
  other is that team's; one reached by both in the same ring is no one's. Cells a team
  may reach where the other never can are where its pieces will go later, when the
  board is full; the race for the middle cells is what decides a game;
- a little for each corner cell the team keeps open.

A won or lost end (neither team can move) is worth the margin, times a thousand.

Level 3 (`choose`) looks two moves ahead: alpha-beta (each team picks the move best for
it, and lines that cannot change the choice are cut off). Every legal move is first
valued as it stands; the best few are searched, the other team answering with its
`width` most promising moves by a quick measure (the piece's squares first, big pieces
placed early being worth most, then the corner cells the move opens for the team and
closes for the other). Given a deadline instead, it deepens round after round
(iterative deepening) until the time is up.

Level 4 (`mcts`) is a Monte Carlo tree search. It plays the game out to the end
thousands of times from the position, each time a little differently, and moves where
it won most often. Each run goes down a tree of the positions seen so far, choosing at
every step the move whose results are best so far plus a bonus for moves tried less
often (UCB), tries one new move at the bottom, then plays out the rest of the game
quickly (a *playout*) and counts the result (won, drawn or lost, nudged by the margin)
for every move on its way. The moves considered: at the top, the TOP best by their
worth as they stand (the value above); below, the WIDTH best by the quick measure. In a
playout each team places one of its biggest pieces that still fit, where it fits, at
random, but most of the time (BLOCK) where it takes a corner cell the other team could
have used. Playouts are fast (a bit scan over the biggest pieces only, in a shuffled
order, stopping at the first that fits; a team that could not move is not looked at
again) so that a second gives a few thousand of them. Without a deadline it makes a
fixed number of runs (the same moves for the same seed); with one, as many as fit. A
team that cannot move passes.
"""

from __future__ import annotations

import heapq
import math
import random

from matches.bots import clock
from matches.rules.blokus_duo_board import (
    _CODES,
    _OFFSETS,
    _SCAN_ORDER,
    BOARD,
    ORIGIN,
    PIECE_SIZES,
    SHAPES,
    STRIDE,
    BlokusDuoState,
    Placement,
    _legal,
    cover,
    placed,
    play,
)

TERRITORY = 0.5  # a cell of territory, in squares placed
CORNER = 0.3  # an open corner cell, in squares placed
BLOCK = 0.6  # how often a playout's move takes a corner cell of the other team if it can
WON = 1000  # a square of margin at the end of the game


class OutOfTime(Exception):
    """The time given to the search is up."""


def _grow(cells: int) -> int:
    """The cells next to `cells`, sideways or diagonally (and `cells`)."""
    return (cells | cells << 1 | cells >> 1 | cells << STRIDE | cells >> STRIDE
            | cells << (STRIDE + 1) | cells >> (STRIDE + 1)
            | cells << (STRIDE - 1) | cells >> (STRIDE - 1))


def territory(state: BlokusDuoState) -> tuple[int, int]:
    """Per team, the free cells it reaches a ring before the other (see the docstring)."""
    room = (BOARD & ~state.forbidden[0], BOARD & ~state.forbidden[1])
    reached = [state.corners[0] & room[0], state.corners[1] & room[1]]
    ours = [reached[0] & ~reached[1], reached[1] & ~reached[0]]
    front = list(reached)
    while front[0] or front[1]:
        new = [_grow(front[0]) & room[0] & ~reached[0], _grow(front[1]) & room[1] & ~reached[1]]
        ours[0] |= new[0] & ~reached[1] & ~new[1]
        ours[1] |= new[1] & ~reached[0] & ~new[0]
        reached[0] |= new[0]
        reached[1] |= new[1]
        front = new
    return ours[0].bit_count(), ours[1].bit_count()


def value(state: BlokusDuoState, team: int) -> float:
    """The position's worth to `team`, in squares (see the module's docstring)."""
    other = 1 - team
    placed = state.remaining[other] - state.remaining[team]
    if not state.corners[0] and not state.corners[1]:
        return placed * WON
    land = territory(state)
    open_corners = ((state.corners[team] & ~state.forbidden[team]).bit_count()
                    - (state.corners[other] & ~state.forbidden[other]).bit_count())
    return placed + TERRITORY * (land[team] - land[other]) + CORNER * open_corners


def _masks(mask: int) -> tuple[int, int]:
    """A piece's edge neighbours and diagonal neighbours (outside it), as in play()."""
    edges = (mask << 1 | mask >> 1 | mask << STRIDE | mask >> STRIDE) & ~mask
    diagonals = (mask << (STRIDE + 1) | mask << (STRIDE - 1)
                 | mask >> (STRIDE - 1) | mask >> (STRIDE + 1)) & ~mask & ~edges
    return edges, diagonals


# per shape: its cells, edge and diagonal neighbours with the reference cell at ORIGIN,
# and the piece's squares
_SHAPE_MASKS = tuple((shape.mask, *_masks(shape.mask), PIECE_SIZES[shape.piece])
                     for shape in SHAPES)


def code(move: tuple[int, int]) -> str:
    """A move (shape, reference bit) as its canonical code."""
    return _CODES[move[0]][move[1]]


def _placement(move: tuple[int, int]) -> Placement:
    s, bit = move
    return Placement(s, bit % STRIDE - 2, bit // STRIDE - 2)


def quick(state: BlokusDuoState, team: int, limit: int | None = None,
          rng: random.Random | None = None) -> list[tuple[float, tuple[int, int]]]:
    """The team's legal moves (shape, reference bit), best first by the quick measure
    (`limit` of them at most): eight times the piece's squares, plus the corner cells the
    team has open after it, less the other team's."""
    other = 1 - team
    forbidden, corners = state.forbidden[team], state.corners[team]
    their = state.corners[other] & ~state.forbidden[other]
    found = []
    for s, refs in _legal(state, team).items():
        mask, edges, diagonals, size = _SHAPE_MASKS[s]
        while refs:
            low = refs & -refs
            bit = low.bit_length() - 1
            refs ^= low
            shift = bit - ORIGIN
            covered = forbidden | (mask | edges) << shift
            score = (8 * size + ((corners | diagonals << shift) & ~covered).bit_count()
                     - (their & ~(mask << shift)).bit_count())
            if rng is not None:
                score += rng.random() * 0.01
            found.append((score, (s, bit)))
    if limit is None:
        found.sort(key=lambda item: item[0], reverse=True)
        return found
    return heapq.nlargest(limit, found, key=lambda item: item[0])


class Search:
    """One move's search: a team, its deadline (None: no limit) and the width below the
    top."""

    def __init__(self, team: int, deadline: float | None, width: int):
        self.team, self.deadline, self.width = team, deadline, width
        self.nodes = 0

    def _tick(self) -> None:
        self.nodes += 1
        if self.deadline is not None and clock.now() > self.deadline:
            raise OutOfTime

    def negamax(self, state: BlokusDuoState, side: int, depth: int,
                alpha: float, beta: float) -> float:
        """The position's worth to `side`, who moves, `depth` moves deep."""
        self._tick()
        if depth <= 0:
            return value(state, side)
        children = quick(state, side, self.width)
        if not children:  # the side passes; the game is over if the other cannot move
            if not _legal(state, 1 - side):
                return value(state, side)
            return -self.negamax(state, 1 - side, depth - 1, -beta, -alpha)
        best = -float("inf")
        for _, move in children:
            after = play(state, side, _placement(move))
            found = -self.negamax(after, 1 - side, depth - 1, -beta, -alpha)
            if found > best:
                best = found
                if found > alpha:
                    alpha = found
                    if alpha >= beta:
                        break
        return best


def choose(state: BlokusDuoState, team: int, rng: random.Random, *,
           deadline: float | None = None, depth: int = 2, width: int = 10,
           top: int = 12) -> str:
    """The team's move (it has one): every legal move valued one move deep, then the
    `top` best searched `depth` moves deep (`width` moves a level below); with a
    `deadline` (clock.now()), deeper and deeper until it is reached, all moves
    at the top."""
    search = Search(team, deadline, width)
    root = []
    for _, move in quick(state, team, rng=rng):
        after = play(state, team, _placement(move))
        root.append((value(after, team) + rng.random() * 0.001, move, after))
        if deadline is not None and len(root) > 1 and clock.now() > deadline:
            break
    root.sort(key=lambda item: item[0], reverse=True)
    best = root[0][1]
    LAST.update(depth=1, nodes=len(root))
    if len(root) == 1:
        return code(best)
    depths = range(2, depth + 1) if deadline is None else range(2, 64)
    order = root if deadline is not None else root[:top]
    for deep in depths:
        scored = []
        alpha = -float("inf")
        try:
            for _, move, after in order:
                found = -search.negamax(after, 1 - team, deep - 1, -float("inf"), -alpha)
                scored.append((found, move, after))
                alpha = max(alpha, found)
        except OutOfTime:
            pass
        if not scored:
            break
        # the moves searched in this round first, best first (a move cut off by alpha
        # is no better than the best), then the rest in their old order
        searched = {id(item[2]) for item in scored}
        scored.sort(key=lambda item: item[0], reverse=True)
        best = scored[0][1]
        order = [*scored, *(item for item in order if id(item[2]) not in searched)]
        LAST.update(depth=deep if len(scored) == len(order) else deep - 1, nodes=search.nodes)
        if deadline is not None and clock.now() > deadline:
            break
    return code(best)


# How the last search went: for `choose`, the depth of its last whole round and the
# positions seen; for `mcts`, depth 0 and its runs (games played out).
LAST: dict[str, int] = {"depth": 1, "nodes": 0}


# --- playouts ---------------------------------------------------------------------


def _light_play(state: BlokusDuoState, team: int, s: int, bit: int) -> BlokusDuoState:
    """The rules' `placed` without the cells (a playout never shows the board), from the
    shape's masks kept shifted to the board's origin."""
    mask, edges, diagonals, _ = _SHAPE_MASKS[s]
    shift = bit - ORIGIN
    return placed(state, team, (mask << shift, edges << shift, diagonals << shift),
                  SHAPES[s].piece, state.cells)


# per size of piece, biggest first: the shapes of its pieces as (piece, shape, the five
# indices into the shifted masks that blokus_duo_board._scan uses)
_BY_SIZE = tuple(
    tuple((piece, shape, where) for piece in range(len(PIECE_SIZES))
          if PIECE_SIZES[piece] == size for shape, where in _SCAN_ORDER[piece])
    for size in sorted(set(PIECE_SIZES), reverse=True))
# the same in ORDERS shuffled orders: the first shape that fits, in one of them drawn at
# random, is close to a shape drawn at random among those that fit
ORDERS = 64
_ORDERS = tuple(tuple(tuple(random.Random(n).sample(shapes, len(shapes)))
                      for n in range(ORDERS)) for shapes in _BY_SIZE)


def playout(state: BlokusDuoState, side: int, rng: random.Random) -> int:
    """Play the game out from `state`, `side` to move, each team placing one of its
    biggest pieces that fit anywhere (the first shape that fits, over the shapes of the
    biggest size in one of ORDERS shuffled orders, by blokus_duo_board._scan's bit scan)
    where it fits, at random, but most of the time (BLOCK) where it takes a corner cell
    of the other team's if it can; the margin for team 0 (the other's squares left less
    its own). A team that cannot move now never can again (its corner cells grow only
    with its own pieces): it is not looked at again.

    The position is kept in plain numbers here, not in states (the rules' `cover`, as
    `placed` uses it, without the board's letters): a playout makes thousands of moves a
    second, and making a state for each was a fifth of its time."""
    forbidden, corners = list(state.forbidden), list(state.corners)
    unused, remaining = list(state.unused), list(state.remaining)
    stuck = [False, False]
    draw = rng.random
    while not (stuck[0] and stuck[1]):
        if stuck[side]:
            side = 1 - side
            continue
        found = None
        mine = corners[side]
        if mine:
            barred = forbidden[side]
            t = [mine >> o if o >= 0 else mine << -o for o in _OFFSETS]
            f = [barred >> o if o >= 0 else barred << -o for o in _OFFSETS]
            left = unused[side]
            for orders in _ORDERS:
                for piece, s, (a, b, c, d, e) in orders[int(draw() * ORDERS)]:
                    if left >> piece & 1:
                        refs = t[a] | t[b] | t[c] | t[d] | t[e]
                        if refs:
                            refs &= ~(f[a] | f[b] | f[c] | f[d] | f[e])
                            if refs:
                                found = piece, s, refs
                                break
                if found is not None:
                    break
        if found is None:
            stuck[side] = True
            side = 1 - side
            continue
        piece, s, refs = found
        other = 1 - side
        if BLOCK and draw() < BLOCK:  # where it takes a cell the other could use
            theirs = corners[other] & ~forbidden[other]
            near = 0
            for offset in SHAPES[s].offsets:
                near |= theirs >> offset if offset >= 0 else theirs << -offset
            if refs & near:
                refs &= near
        pick = int(draw() * refs.bit_count())
        while pick:
            refs &= refs - 1
            pick -= 1
        shift = (refs & -refs).bit_length() - 1 - ORIGIN  # (no board cell is below ORIGIN)
        mask, edges, diagonals, size = _SHAPE_MASKS[s]
        cover(forbidden, corners, side, mask << shift, edges << shift, diagonals << shift)
        unused[side] &= ~(1 << piece)
        remaining[side] -= size
        side = other
    return remaining[1] - remaining[0]


TOP, WIDTH, EXPLORE = 40, 12, 0.5


class Node:
    """A position in the Monte Carlo tree: who moves, the moves worth trying (best first
    by the quick measure), the children made so far, visits and wins (for the team that
    moved into it)."""

    __slots__ = ("state", "side", "moves", "children", "visits", "wins")

    def __init__(self, state: BlokusDuoState, side: int, moves: list):
        self.state, self.side, self.moves = state, side, moves
        self.children: list[Node] = []
        self.visits, self.wins = 0, 0.0


def _outcome(margin: int, team: int) -> float:
    """A played-out margin (for team 0) as `team`'s result: 1 won, 0.5 drawn, 0 lost,
    nudged by the margin (a bigger win is a little better)."""
    mine = margin if team == 0 else -margin
    return (mine > 0) + 0.5 * (mine == 0) + 0.002 * max(-50, min(50, mine))


def _moves_at(state: BlokusDuoState, side: int, width: int) -> list:
    """The moves a node tries: the side's `width` best by the quick measure; [None] (a
    pass) if it has none and the other team has one; [] at the end of the game."""
    found = [move for _, move in quick(state, side, width)]
    if found:
        return found
    return [None] if _legal(state, 1 - side) else []


def mcts(state: BlokusDuoState, team: int, rng: random.Random, deadline: float, *,
         top: int | None = None, width: int | None = None, explore: float | None = None,
         most: int | None = None) -> str:
    """The team's move (it has one) by Monte Carlo tree search (the module's docstring):
    runs until `deadline` (clock.now()) or `most` runs, whichever comes first; the
    move tried most often at the top."""
    top = TOP if top is None else top
    width = WIDTH if width is None else width
    explore = EXPLORE if explore is None else explore
    root_moves = []
    for _, move in quick(state, team, rng=rng):
        after = play(state, team, _placement(move))
        root_moves.append((value(after, team) + rng.random() * 0.001, move))
        if len(root_moves) > top and clock.now() > deadline:
            break
    root_moves.sort(key=lambda item: item[0], reverse=True)
    if len(root_moves) == 1:
        return code(root_moves[0][1])
    root = Node(state, team, [move for _, move in root_moves[:top]])
    runs = 0
    while (most is None or runs < most) and clock.now() < deadline:
        runs += 1
        node, path = root, [root]
        # down the tree: a child not made yet (the next best move), else the best by UCB;
        # a node's moves are listed when it is first passed through
        while True:
            if node.moves is None:
                node.moves = _moves_at(node.state, node.side, width)
            if len(node.children) < len(node.moves):
                move = node.moves[len(node.children)]
                side = node.side
                if move is None:
                    after = play(node.state, side, None)
                else:
                    after = _light_play(node.state, side, *move)
                child = Node(after, 1 - side, None)
                node.children.append(child)
                path.append(child)
                node = child
                break
            if not node.children:  # the game is over here
                break
            log = math.log(node.visits)
            node = max(node.children, key=lambda c: c.wins / c.visits
                       + explore * math.sqrt(log / c.visits))
            path.append(node)
        margin = (node.state.remaining[1] - node.state.remaining[0] if node.moves == []
                  else playout(node.state, node.side, rng))
        for visited in path:
            visited.visits += 1
            visited.wins += _outcome(margin, 1 - visited.side)
    LAST.update(depth=0, nodes=runs)
    best = max(range(len(root.children)), key=lambda i: root.children[i].visits)
    return code(root.moves[best])
