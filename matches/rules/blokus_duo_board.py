"""Blokus Duo's board, pieces and moves (docs/rules/blokus-duo.md): the move codes, the
state after each move, and which moves are legal. The rules object that plays them is
in blokus_duo.py.

Bitboards. The 14 x 14 board is held in Python ints with a two-cell frame on every
side: cell (x, y) is bit `(y + 2) * 18 + x + 2`. Per team the state keeps its own
squares, a *forbidden* mask (every placed square, the team's own edge-neighbours,
and the frame) and a *corner* mask (free cells diagonal to an own square, or the
start point before the first piece). A piece is legal exactly when it covers a
corner cell and no forbidden cell, so the legal reference cells of an oriented
shape are computed for the whole board at once, with one shift of each mask per
cell offset (the offsets are within ±2 of the reference cell, hence the frame).

As the conformance vectors' README has it: a pass (`----`, or `0000`) is legal only
when the mover has no legal move.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from matches.rules.base import TEAM_LETTERS
from matches.rules.checks import kind, quoted
from matches.rules.reasons import Reason
from matches.rules.words import gettext_noop

SIZE = 14
MARGIN = 2
STRIDE = SIZE + 2 * MARGIN  # bits per padded row
POSITIONS = "123456789ABCDE"
PIECE_LETTERS = "abcdefghijklmnopqrstu"
PASS = "----"
PASSES = ("----", "0000")
TOTAL_SQUARES = 89
START = ((4, 4), (9, 9))  # 55 and AA, 0-based (x, y)
START_NAMES = ("55", "AA")
ACTION_KEYS = ("move",)

# Orientation 0 of every piece: (dx, dy) from the reference cell, y pointing down.
BASE_SHAPES: dict[str, tuple[tuple[int, int], ...]] = {
    "a": ((0, 0),),
    "b": ((0, 0), (0, 1)),
    "c": ((0, 0), (0, 1), (0, -1)),
    "d": ((0, 0), (1, 0), (0, -1)),
    "e": ((0, 0), (0, 1), (0, 2), (0, -1)),
    "f": ((0, 0), (0, -1), (0, 1), (-1, 1)),
    "g": ((0, 0), (1, 0), (0, 1), (0, -1)),
    "h": ((0, 0), (1, 0), (0, 1), (1, 1)),
    "i": ((-1, 0), (0, 0), (0, 1), (1, 1)),
    "j": ((0, 0), (0, 1), (0, 2), (0, -1), (0, -2)),
    "k": ((0, 0), (0, 1), (0, -2), (0, -1), (-1, 1)),
    "l": ((0, -2), (0, -1), (0, 0), (-1, 0), (-1, 1)),
    "m": ((0, -1), (-1, 0), (0, 0), (-1, 1), (0, 1)),
    "n": ((0, 0), (0, 1), (-1, 1), (0, -1), (-1, -1)),
    "o": ((0, -1), (0, 0), (1, 0), (0, 1), (0, 2)),
    "p": ((0, 0), (0, -1), (0, 1), (-1, 1), (1, 1)),
    "q": ((0, 0), (1, 0), (2, 0), (0, -1), (0, -2)),
    "r": ((0, 0), (1, 0), (1, 1), (0, -1), (-1, -1)),
    "s": ((0, 0), (1, 0), (1, 1), (-1, 0), (-1, -1)),
    "t": ((-1, -1), (-1, 0), (0, 0), (1, 0), (0, 1)),
    "u": ((0, 0), (1, 0), (0, 1), (-1, 0), (0, -1)),
}
PIECE_SIZES = tuple(len(BASE_SHAPES[letter]) for letter in PIECE_LETTERS)
ALL_PIECES = (1 << len(PIECE_LETTERS)) - 1


def _bit(x: int, y: int) -> int:
    return (y + MARGIN) * STRIDE + x + MARGIN


ORIGIN = _bit(0, 0)  # where shape masks hold their reference cell
BOARD = sum(1 << _bit(x, y) for y in range(SIZE) for x in range(SIZE))
FRAME = ((1 << (STRIDE * STRIDE)) - 1) & ~BOARD


def orient(cells: Sequence[tuple[int, int]], orientation: int) -> tuple[tuple[int, int], ...]:
    """Orientation o = 2r + m: r quarter turns clockwise ((dx, dy) -> (-dy, dx)), then
    a mirror (dx -> -dx) if m = 1."""
    turned = list(cells)
    for _ in range(orientation // 2):
        turned = [(-dy, dx) for dx, dy in turned]
    if orientation % 2:
        turned = [(-dx, dy) for dx, dy in turned]
    return tuple(turned)


@dataclass(frozen=True, slots=True)
class Shape:
    """One distinct oriented shape: a piece in its smallest orientation number."""

    piece: int  # 0..20 (a..u)
    orientation: int  # the smallest orientation number giving these cells
    cells: tuple[tuple[int, int], ...]  # (dx, dy) from the reference cell
    offsets: tuple[int, ...]  # the same, as bit offsets
    mask: int  # the cells with the reference cell at ORIGIN
    span: tuple[int, int, int, int]  # min dx, max dx, min dy, max dy
    suffix: str  # "p3": the code's piece and orientation


def _build_table() -> tuple[list[Shape], list[list[tuple[int, int, int]]]]:
    """Every distinct oriented shape, and for each (piece, orientation) the shape it
    names with the move from its reference cell to the shape's reference cell."""
    shapes: list[Shape] = []
    naming: list[list[tuple[int, int, int]]] = []
    for piece, letter in enumerate(PIECE_LETTERS):
        seen: dict[frozenset, tuple[int, int, int]] = {}  # normal form -> shape, min dx, dy
        per_orientation = []
        for orientation in range(8):
            cells = orient(BASE_SHAPES[letter], orientation)
            low_x, low_y = min(dx for dx, _ in cells), min(dy for _, dy in cells)
            normal = frozenset((dx - low_x, dy - low_y) for dx, dy in cells)
            if normal not in seen:
                seen[normal] = (len(shapes), low_x, low_y)
                xs, ys = [dx for dx, _ in cells], [dy for _, dy in cells]
                offsets = tuple(dy * STRIDE + dx for dx, dy in cells)
                shapes.append(Shape(
                    piece, orientation, cells, offsets,
                    sum(1 << (ORIGIN + offset) for offset in offsets),
                    (min(xs), max(xs), min(ys), max(ys)), f"{letter}{orientation}",
                ))
            index, shape_x, shape_y = seen[normal]
            per_orientation.append((index, low_x - shape_x, low_y - shape_y))
        naming.append(per_orientation)
    return shapes, naming


SHAPES, _NAMING = _build_table()
_OFFSETS = sorted({offset for shape in SHAPES for offset in shape.offsets})
# Per piece, its shapes as (shape, five indices into _OFFSETS): shapes of fewer than
# five squares repeat the reference cell, so that the scan can be unrolled.
_SCAN_ORDER = tuple(
    tuple(
        (s, tuple(_OFFSETS.index(o) for o in (shape.offsets + (0,) * 4)[:5]))
        for s, shape in enumerate(SHAPES) if shape.piece == piece
    )
    for piece in range(len(PIECE_LETTERS))
)


def _code_table(suffix: str) -> tuple[str, ...]:
    """A shape's canonical code at every padded bit ("" off the board)."""
    codes = [""] * (STRIDE * STRIDE)
    for y in range(SIZE):
        for x in range(SIZE):
            codes[_bit(x, y)] = POSITIONS[x] + POSITIONS[y] + suffix
    return tuple(codes)


_CODES = tuple(_code_table(shape.suffix) for shape in SHAPES)


# --- move codes ------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Placement:
    """What a well-formed code names: a shape with its reference cell at (x, y)."""

    shape: int
    x: int
    y: int

    @property
    def piece(self) -> int:
        return SHAPES[self.shape].piece

    def on_board(self) -> bool:
        low_x, high_x, low_y, high_y = SHAPES[self.shape].span
        return (0 <= self.x + low_x <= self.x + high_x < SIZE
                and 0 <= self.y + low_y <= self.y + high_y < SIZE)

    def cells(self) -> list[tuple[int, int]]:
        """The board cells (x, y) it covers (some may lie off the board)."""
        return [(self.x + dx, self.y + dy) for dx, dy in SHAPES[self.shape].cells]

    def mask(self) -> int:
        """Its cells as a bitboard (only for an on-board placement)."""
        return SHAPES[self.shape].mask << (_bit(self.x, self.y) - ORIGIN)

    def code(self) -> str:
        """The canonical code (only for an on-board placement)."""
        return POSITIONS[self.x] + POSITIONS[self.y] + SHAPES[self.shape].suffix


def on_board_placements() -> list[Placement]:
    """Every distinct placement of every piece on the empty board (13,729)."""
    return [
        where
        for s in range(len(SHAPES))
        for y in range(SIZE)
        for x in range(SIZE)
        if (where := Placement(s, x, y)).on_board()
    ]


# Why a move is malformed or illegal (matches/rules/reasons.py).
NOT_TEXT = Reason(gettext_noop("the move must be a string, got {kind}"))
NOT_CODE = Reason(gettext_noop("{code} is not a 4-character move code"))
BAD_POSITION = Reason(gettext_noop("{code}: position must be two of 1-9, A-E"))
BAD_PIECE = Reason(gettext_noop("{code}: piece must be a letter a-u"))
BAD_ORIENTATION = Reason(gettext_noop("{code}: orientation must be a digit 0-7"))
PLACED = Reason(gettext_noop("piece {piece} was already placed"))
OFF_BOARD = Reason(gettext_noop("the piece does not lie entirely on the board"))
OVERLAPS = Reason(gettext_noop("the piece overlaps a placed square"))
FIRST_PIECE = Reason(gettext_noop("the first piece must cover {start}"))
SHARES_EDGE = Reason(gettext_noop("the piece shares an edge with an own square"))
NO_CORNER = Reason(gettext_noop("the piece touches no own square at a corner"))
PASS_WHILE_LEGAL = Reason(gettext_noop("pass while a legal move exists (e.g. {code})"))


def code_problem(code: Any) -> str:
    """Why `code` is not a well-formed move code ("" when it is one or a pass)."""
    if not isinstance(code, str):
        return NOT_TEXT(kind=kind(code))
    if len(code) != 4 or not code.isascii():
        return NOT_CODE(code=quoted(code))
    if code in PASSES:
        return ""
    upper = code.upper()
    if upper[0] not in POSITIONS or upper[1] not in POSITIONS:
        return BAD_POSITION(code=repr(code))
    if code[2].lower() not in PIECE_LETTERS:
        return BAD_PIECE(code=repr(code))
    if code[3] not in "01234567":
        return BAD_ORIENTATION(code=repr(code))
    return ""


def placement(code: str) -> Placement | None:
    """The placement a code names (None for a pass); ValueError if it is malformed."""
    problem = code_problem(code)
    if problem:
        raise ValueError(problem)
    if code in PASSES:
        return None
    upper = code.upper()
    shape, dx, dy = _NAMING[PIECE_LETTERS.index(code[2].lower())][int(code[3])]
    return Placement(shape, POSITIONS.index(upper[0]) + dx, POSITIONS.index(upper[1]) + dy)


def canonical_code(code: str) -> str:
    """The code written for a move: the smallest orientation number giving the same
    cells (its position is then fixed), upper-case position, lower-case piece;
    `----` for a pass. ValueError if the code is malformed or leaves the board."""
    where = placement(code)
    if where is None:
        return PASS
    if not where.on_board():
        raise ValueError(f"{code!r}: the piece does not lie on the board")
    return where.code()


# --- state -----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class BlokusDuoState:
    turn: int
    cells: bytes  # 196 bytes, row by row: "." empty, "A"/"B" a square of team 0/1
    squares: tuple[int, int]  # per team, its squares (bitboard)
    forbidden: tuple[int, int]  # per team, occupied | own edge-neighbours | frame
    corners: tuple[int, int]  # per team, the cells its next piece may cover to connect
    unused: tuple[int, int]  # per team, a bit per unplaced piece (bit 0 = a)
    remaining: tuple[int, int]  # per team, the squares of its unplaced pieces
    # Per team, the legal reference cells of each shape: {shape: bitboard}.
    legal: dict = field(default_factory=dict, compare=False, repr=False)

    @property
    def mover(self) -> int:
        """The team that moves next (team 0 on odd turns)."""
        return self.turn % 2


def new_state() -> BlokusDuoState:
    return BlokusDuoState(
        turn=0,
        cells=b"." * (SIZE * SIZE),
        squares=(0, 0),
        forbidden=(FRAME, FRAME),
        corners=(1 << _bit(*START[0]), 1 << _bit(*START[1])),
        unused=(ALL_PIECES, ALL_PIECES),
        remaining=(TOTAL_SQUARES, TOTAL_SQUARES),
    )


def _shifted(mask: int) -> list[int]:
    """`mask` moved by every cell offset: bit r of result[i] is bit r + _OFFSETS[i] of mask."""
    return [mask >> o if o >= 0 else mask << -o for o in _OFFSETS]


def _scan(state: BlokusDuoState, team: int, first_only: bool) -> dict[int, int]:
    """{shape: legal reference cells} for the team's unused pieces (non-empty only);
    with `first_only`, stop at the first shape that has one.

    A reference cell r is legal when some cell r + o of the shape is a corner cell and
    none is forbidden: OR the shifted corner masks, then clear the shifted forbidden.
    """
    found: dict[int, int] = {}
    if not state.corners[team]:
        return found
    t, f = _shifted(state.corners[team]), _shifted(state.forbidden[team])
    unused = state.unused[team]
    for piece, shapes in enumerate(_SCAN_ORDER):
        if not unused >> piece & 1:
            continue
        for s, (a, b, c, d, e) in shapes:
            refs = t[a] | t[b] | t[c] | t[d] | t[e]
            if refs:
                refs &= ~(f[a] | f[b] | f[c] | f[d] | f[e])
                if refs:
                    found[s] = refs
                    if first_only:
                        return found
    return found


def _legal(state: BlokusDuoState, team: int) -> dict[int, int]:
    legal = state.legal.get(team)
    if legal is None:
        legal = state.legal[team] = _scan(state, team, False)
    return legal


def mobility(state: BlokusDuoState, team: int) -> int:
    """How many placements `team` has: every shape of every unused piece at every legal
    reference cell (Pentobi's analysis plots the like)."""
    return sum(bin(refs).count("1") for refs in _legal(state, team).values())


def has_legal_move(state: BlokusDuoState, team: int) -> bool:
    """Whether `team` could place a piece in this position."""
    legal = state.legal.get(team)
    if legal is None:
        legal = _scan(state, team, True)
        if not legal:  # a complete answer: no move at all
            state.legal[team] = legal
    return bool(legal)


def legal_moves(state: BlokusDuoState, team: int | None = None) -> list[str]:
    """Every legal placement of `team` (default: the mover) as its canonical code, by
    piece, then orientation, then position row by row. No pass."""
    moves: list[str] = []
    for s, refs in _legal(state, state.mover if team is None else team).items():
        codes, found = _CODES[s], []
        while refs:  # highest bit first: fewer big-int operations than the lowest
            i = refs.bit_length() - 1
            found.append(codes[i])
            refs ^= 1 << i
        found.reverse()
        moves += found
    return moves


def _first_legal_move(state: BlokusDuoState, team: int) -> str:
    s, refs = next(iter(_scan(state, team, True).items()))
    return _CODES[s][(refs & -refs).bit_length() - 1]


def illegal_reason(state: BlokusDuoState, team: int, where: Placement) -> str:
    """Why `team` may not make this placement now ("" if it may)."""
    if not state.unused[team] >> where.piece & 1:
        return PLACED(piece=PIECE_LETTERS[where.piece])
    if not where.on_board():
        return OFF_BOARD()
    mask = where.mask()
    if mask & (state.squares[0] | state.squares[1]):
        return OVERLAPS()
    if not state.squares[team]:
        if not mask & state.corners[team]:
            return FIRST_PIECE(start=START_NAMES[team])
        return ""
    if mask & state.forbidden[team]:
        return SHARES_EDGE()
    if not mask & state.corners[team]:
        return NO_CORNER()
    return ""


def play(state: BlokusDuoState, team: int, where: Placement | None) -> BlokusDuoState:
    """The next state after `team` places `where` (None: the turn passes); unchecked."""
    if where is None:  # the same position: the same legal moves
        return BlokusDuoState(state.turn + 1, state.cells, state.squares, state.forbidden,
                              state.corners, state.unused, state.remaining, state.legal)
    mask = where.mask()
    edges = (mask << 1 | mask >> 1 | mask << STRIDE | mask >> STRIDE) & ~mask
    diagonals = (mask << (STRIDE + 1) | mask << (STRIDE - 1)
                 | mask >> (STRIDE - 1) | mask >> (STRIDE + 1))
    cells = bytearray(state.cells)
    letter = ord(TEAM_LETTERS[team])
    for x, y in where.cells():
        cells[y * SIZE + x] = letter
    return placed(state, team, (mask, edges, diagonals), where.piece, bytes(cells))


def cover(forbidden: list[int], corners: list[int], team: int, mask: int, edges: int,
          diagonals: int) -> None:
    """What `team`'s piece on the squares `mask` (the cells beside it `edges`, at its
    corners `diagonals`) changes, per team, in the lists given: the cells each may no
    longer cover, and those where each may still start a piece."""
    barred = forbidden[team] | mask | edges
    forbidden[team] = barred
    corners[team] = (corners[team] | diagonals) & ~barred
    forbidden[1 - team] |= mask
    corners[1 - team] &= ~mask


def placed(state: BlokusDuoState, team: int, bits: tuple[int, int, int], piece: int,
           cells: bytes) -> BlokusDuoState:
    """The next state after `team` places `piece` on the squares `bits` gives (its mask,
    the cells beside it, the cells at its corners), the board's letters being `cells`
    (a search's playout, which never shows the board, passes the old ones): what each
    team may no longer cover and where each may still start a piece."""
    mask, edges, diagonals = bits
    forbidden, corners = list(state.forbidden), list(state.corners)
    cover(forbidden, corners, team, mask, edges, diagonals)
    squares, unused, remaining = list(state.squares), list(state.unused), list(state.remaining)
    squares[team] |= mask
    unused[team] &= ~(1 << piece)
    remaining[team] -= PIECE_SIZES[piece]
    return BlokusDuoState(state.turn + 1, cells, (squares[0], squares[1]),
                          (forbidden[0], forbidden[1]), (corners[0], corners[1]),
                          (unused[0], unused[1]), (remaining[0], remaining[1]))


def judge(state: BlokusDuoState, code: Any) -> tuple[Placement | None, str]:
    """The mover's code judged: (what it places or None for a pass, "") when it is
    legal, else (None, why it is not)."""
    problem = code_problem(code)
    if problem:
        return None, problem
    team = state.mover
    where = placement(code)
    if where is None:
        if has_legal_move(state, team):
            return None, PASS_WHILE_LEGAL(code=_first_legal_move(state, team))
        return None, ""
    reason = illegal_reason(state, team, where)
    return (None, reason) if reason else (where, "")

