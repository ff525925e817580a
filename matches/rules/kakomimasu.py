"""Kakomimasu (Procon 31), exactly as in docs/rules/kakomimasu.md.

The board is held padded by a one-cell neutral frame, so the territory flood can
start from the frame without copying the board every turn.
"""

from __future__ import annotations

import functools
import json
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from matches.rules import words
from matches.rules.base import (
    Outcomes,
    Presentation,
    Ranking,
    TurnActions,
    callout,
    collisions,
)
from matches.rules.checks import RecordError, board_size, points_grid, whole
from matches.rules.orders import (
    NO_AGENT,
    REPEATED,
    AgentKey,
    Cell,
    Order,
    action_fields,
    action_problem,
    agent_name,
    echo,
    fail,
    fail_same_targets,
    repeated_agents,
)
from matches.rules.reasons import Reason
from matches.rules.symmetry import mirrors_of, symmetry_said
from matches.rules.words import gettext_noop

NEUTRAL, WALL_A, WALL_B, TERRITORY_A, TERRITORY_B = 0, 1, 2, 3, 4
WALL = (WALL_A, WALL_B)
TERRITORY = (TERRITORY_A, TERRITORY_B)
CELL_CHARS = bytes.maketrans(bytes(range(5)), b".ABab")
_ROW_END = 5  # not a cell: ends each row of the view, so one split makes the rows
_VIEW_CHARS = bytes.maketrans(bytes(range(6)), b".ABab\n")
ACTION_KEYS = ("agent", "type", "x", "y")
# Procon 31 official limits, for generated boards.
RANDOM_SIDES, RANDOM_AGENTS = (12, 24), (6, 14)
_ACTION_KEY_SET = frozenset(ACTION_KEYS)
TARGETED = ("put", "move", "remove")
_STEPS = frozenset((dx, dy) for dx in (-1, 0, 1) for dy in (-1, 0, 1) if dx or dy)
_CODE_PLANES = np.arange(WALL_A, TERRITORY_B + 1, dtype=np.int8).reshape(4, 1, 1)

Agents = tuple[tuple[Cell | None, ...], tuple[Cell | None, ...]]

# Why an action is invalid or fails (matches/rules/reasons.py); orders.py has the shared.
UNKNOWN_TYPE = Reason(gettext_noop(
    "unknown action type {type} (expected put, move, remove or stay)"))
NOT_WHOLE = Reason(gettext_noop("a {kind} needs whole-number x and y"))
ALREADY_ON = Reason(gettext_noop("the agent is already on the board"))
NOT_ON = Reason(gettext_noop("the agent is not on the board"))
OFF_BOARD = Reason(gettext_noop("target is off the board"))
NOT_NEXT = Reason(gettext_noop("target is not next to the agent at ({x}, {y})"))
NOT_WALL = Reason(gettext_noop("target is not a wall"))
OPPONENT_WALL = Reason(gettext_noop("target is an opponent wall"))
HOLDER_STAYS = Reason(gettext_noop("the agent at the target stays ({agent})"))


@dataclass(frozen=True, slots=True)
class Board:
    width: int
    height: int
    points: np.ndarray  # (height + 2, width + 2) int64, zero frame
    magnitude: np.ndarray  # |points|, flat, for bincount
    sign_offset: np.ndarray  # 5 where the point value is negative, else 0, flat
    row_ends: np.ndarray  # (height, 1) of _ROW_END: the view's rows as one text


@dataclass(frozen=True, slots=True)
class KakomimasuState:
    turn: int
    board: Board
    cells: np.ndarray  # (height + 2, width + 2) int8 cell codes, neutral frame
    agents: Agents
    # Where the agents stand: {cell: (team, agent)}, kept so a turn need not rebuild it.
    standing: Mapping[Cell, AgentKey] | None = field(default=None, compare=False, repr=False)


def make_board(points: Sequence[Sequence[int]]) -> Board:
    padded = np.pad(np.asarray(points, dtype=np.int64), 1)
    magnitude = np.abs(padded).ravel().astype(np.float64)
    sign_offset = np.where(padded.ravel() < 0, 5, 0).astype(np.int8)
    row_ends = np.full((len(points), 1), _ROW_END, dtype=np.int8)
    for array in (padded, magnitude, sign_offset, row_ends):
        array.setflags(write=False)
    return Board(len(points[0]), len(points), padded, magnitude, sign_offset, row_ends)


class KakomimasuRules(Presentation):
    game = "kakomimasu"
    title = words.gettext_noop("Kakomimasu (Procon 31)")  # said in the page's language where shown
    # Translators: the game in one line, for a newcomer watching the TV
    rule_line = words.gettext_noop(
        "Agents build walls; "
        "walls and the land they enclose score points; the higher total wins")
    public_boards = "kakomimasu-boards.json"  # in matches/boards/
    live = True
    demo_boards = ("A-1", "Kakom-1", "island-1", "F-1", "island-3")
    demo_tournament = True
    # a tournament's table, as the community ranks it: wins, draws, fewer losses, then
    # points, wall points and territory points over all fixtures
    ranking = Ranking(order=("wins", "draws", "fewer losses", "points", "wall", "territory"),
                      tiebreaks=(("points", "total"), ("wall", "wall"),
                                 ("territory", "territory")))
    action_keys = ACTION_KEYS
    # One action as the answer API documents it (JSON Schema, for the OpenAPI document).
    action_schema = {"title": "Kakomimasu action", "oneOf": [
        {"type": "object", "required": ["agent", "type", "x", "y"],
         "properties": {"agent": {"type": "integer"},
                        "type": {"type": "string", "enum": ["put", "move", "remove"]},
                        "x": {"type": "integer"}, "y": {"type": "integer"}}},
        {"type": "object", "required": ["agent", "type"],
         "properties": {"agent": {"type": "integer"}, "type": {"const": "stay"}}},
    ]}
    replay_marks = True

    def last_turn(self, state: Mapping[str, Any],
                  previous: Mapping[str, Any] | None = None) -> dict[str, list[Any]]:
        """Walls put and removed are "acted" on; a move goes from where its agent stood."""
        marks: list[Any] = []
        moves: list[Any] = []
        for team, outcomes in enumerate(state.get("outcomes") or ()):
            for outcome in outcomes:
                kind, agent = outcome.get("type"), outcome.get("agent")
                if outcome.get("result") != "ok":
                    continue
                if kind in ("put", "remove"):
                    marks.append([outcome["x"], outcome["y"], "acted", team])
                before = previous["agents"][team][agent] if previous else None
                after = state["agents"][team][agent]
                if kind == "move" and before and after:
                    moves.append([before, after, team])
        return {"marks": marks, "moves": moves}

    def action_target(self, outcome: Mapping[str, Any],
                      agents: Sequence[Any]) -> tuple[int, int] | None:
        """Every action names its cell: its x and y."""
        x, y = outcome.get("x"), outcome.get("y")
        return (x, y) if type(x) is int and type(y) is int else None

    def notable(self, previous: Mapping[str, Any], state: Mapping[str, Any],
                names: Sequence[str]) -> list[tuple[float, dict[str, Any]]]:
        """Territory a team closed (its gain, at a cell of it) and agents that collided."""
        found = collisions(state, lambda team, outcome: self.action_target(outcome, ()))
        for team, letter in enumerate("ab"):
            gained = state["scores"][team]["territory"] - previous["scores"][team]["territory"]
            if gained <= 0:
                continue
            closed = [(x, y) for y, row in enumerate(state["cells"]) for x, char in enumerate(row)
                      if char == letter and previous["cells"][y][x] != letter]
            if closed:
                x, y = closed[len(closed) // 2]
                # Translators: a turn's callout, e.g. "Greedy +29: territory closed at (4, 4)"
                text = words.gettext("%(name)s +%(points)s: territory closed at (%(x)s, %(y)s)")
                found.append((float(gained), callout(text % {
                    "name": names[team], "points": gained, "x": x, "y": y}, team, (x, y))))
        return found

    def board_notes(self, board: Mapping[str, Any]) -> list[str]:
        """Its symmetry and the sum of its points, for the board editor."""
        points = board["points"]
        total = sum(map(sum, points))
        return [symmetry_said(mirrors_of(board, lambda b, x, y, swap: points[y][x])),
                words.gettext("%(cells)s cells, their points adding up to %(total)s.")
                % {"cells": board["width"] * board["height"], "total": total}]

    def random_board(self, seed: int | None = None) -> tuple[dict[str, Any], dict[str, int]]:
        """A symmetric board within the Procon 31 limits, mostly positive with a few
        negative cells, and a suggested number of agents."""
        rng = random.Random(seed)
        width, height = rng.randint(*RANDOM_SIDES), rng.randint(*RANDOM_SIDES)
        half = [[_random_point(rng) for _ in range(width)] for _ in range((height + 1) // 2)]
        mirror = rng.choice(["vertical", "point"])
        rows = half + [list(row) if mirror == "vertical" else row[::-1]
                       for row in reversed(half[: height // 2])]
        return {"width": width, "height": height, "points": rows}, {
            "agents": rng.randint(*RANDOM_AGENTS)}
    outcome_keys = ()

    def parse_board(self, board: Mapping[str, Any]) -> dict[str, Any]:
        width, height = board_size(board)
        return {"width": width, "height": height, "points": points_grid(board, width, height)}

    def board_read(self, data: Mapping[str, Any]
                   ) -> tuple[dict[str, Any], dict[str, Any]] | None:
        """A board of the public boards' file (matches/boards/kakomimasu-boards.json:
        `{name: {name, width, height, points, nAgent?, totalTurn?, operationSec?}}`, one
        board of it here): `points` one flat list, index x + y * width."""
        points = data.get("points")
        if not isinstance(points, list) or not points or isinstance(points[0], list):
            return None
        width, height = board_size(data)
        if len(points) != width * height:
            raise RecordError(f"points: {len(points)} values, expected {width}×{height}")
        board = {"width": width, "height": height,
                 "points": [points[y * width:(y + 1) * width] for y in range(height)]}
        return board, {"agents": data.get("nAgent"), "turns": data.get("totalTurn"),
                       "strategy_seconds": data.get("operationSec")}

    def board_file(self, board: Mapping[str, Any], hints: Mapping[str, Any],
                   name: str) -> tuple[str, bytes]:
        """The public boards' file of one board (`{name: {...}}`, points flat)."""
        turns, agents = hints.get("turns"), hints.get("agents")
        data = {"name": name, "width": board["width"], "height": board["height"],
                "points": [value for row in board["points"] for value in row]}
        data |= {"nAgent": agents} if agents else {}
        data |= {"totalTurn": turns} if turns else {}
        return f"{name}.json", (json.dumps({name: data}, ensure_ascii=False) + "\n").encode()

    def check_agents(self, agents: Any, board: dict[str, Any]) -> int:
        return whole(agents, "agents", 1, board["width"] * board["height"])

    def initial_state(self, record: Any) -> KakomimasuState:
        board = make_board(record.board["points"])
        cells = np.zeros(board.points.shape, dtype=np.int8)
        empty = (None,) * record.agents
        return KakomimasuState(0, board, cells, (empty, empty), {})

    def resolve_turn(
        self, state: KakomimasuState, actions: TurnActions
    ) -> tuple[KakomimasuState, Outcomes]:
        outcomes: Outcomes = [[], []]
        orders = _validate(state, 0, actions[0], outcomes[0])
        orders += _validate(state, 1, actions[1], outcomes[1])
        if not orders:
            return replace(state, turn=state.turn + 1), outcomes
        orders = fail_same_targets(orders)
        standing = _standing(state)
        moves = _settle_claims(standing, [o for o in orders if o.kind != "remove"])
        cells = state.cells.copy()
        _apply_moves(moves, state.agents, cells, standing)
        for order in orders:
            if order.kind == "remove":
                _apply_remove(order, cells, standing)
        if cells.tobytes() != state.cells.tobytes():  # a wall was built or removed
            _recompute_territory(cells)
        agents = [list(team_agents) for team_agents in state.agents]
        for order in moves:
            agents[order.team][order.agent] = order.target
        frozen: Agents = (tuple(agents[0]), tuple(agents[1]))
        return KakomimasuState(state.turn + 1, state.board, cells, frozen, standing), outcomes

    def view(self, state: KakomimasuState) -> dict[str, Any]:
        rows = np.concatenate((state.cells[1:-1, 1:-1], state.board.row_ends), axis=1)
        return {
            "turn": state.turn,
            "cells": rows.tobytes().translate(_VIEW_CHARS).decode().splitlines(),
            "agents": [[[*cell] if cell else None for cell in team] for team in state.agents],
            "scores": scores(state),
        }

    def action_problem(self, action: Any) -> str:
        """Why an action sent to the answer API is not well formed ("" when it is).

        Only the shape is checked here; what the action means on the board (an agent
        number out of range, a target off the board) is judged at the transition.
        """
        return action_problem(action, ("put", "move", "remove", "stay"), ("x", "y"))

    def action_fields(self, action: dict[str, Any]) -> dict[str, Any]:
        """The fields of a well-formed action that the record keeps."""
        return action_fields(action, ACTION_KEYS)

    def is_over(self, state: KakomimasuState, turns: int) -> bool:
        return state.turn >= turns

    def result(self, state: KakomimasuState) -> dict[str, Any]:
        a, b = scores(state)
        for key in ("total", "wall"):
            if a[key] != b[key]:
                return {"winner": 0 if a[key] > b[key] else 1, "decided_by": key}
        return {"winner": None, "decided_by": "draw"}


def _random_point(rng: random.Random) -> int:
    return rng.randint(-16, -1) if rng.random() < 0.12 else rng.randint(0, 16)


def scores(state: KakomimasuState) -> list[dict[str, int]]:
    """Wall points are signed, territory points absolute (one bincount for both)."""
    board = state.board
    index = state.cells.ravel() + board.sign_offset  # codes 0-4, or 5-9 on negative cells
    sums = np.bincount(index, weights=board.magnitude, minlength=10).astype(np.int64).tolist()
    result = []
    for team in (0, 1):
        wall = sums[WALL[team]] - sums[WALL[team] + 5]
        territory = sums[TERRITORY[team]] + sums[TERRITORY[team] + 5]
        result.append({"wall": wall, "territory": territory, "total": wall + territory})
    return result


# --- step 1: invalid actions -------------------------------------------------


def _validate(
    state: KakomimasuState, team: int, actions: Sequence[Mapping[str, Any]], out: list
) -> list[Order]:
    """Judge each action of one team against the start-of-turn board."""
    judge = _Judge(state, team, repeated_agents(actions))
    orders = []
    for action in actions:
        reason = judge.reason(action)
        kind = action.get("type")
        # A legal put, move or remove has all four keys, so with four it has no other
        # and its copy is its echo (checking the keys would cost more than the copy).
        if reason or kind == "stay" or len(action) != len(ACTION_KEYS):
            echoed = echo(action, ACTION_KEYS, _ACTION_KEY_SET)
        else:
            echoed = action.copy()
        out.append(echoed)
        if reason:
            echoed["result"], echoed["reason"] = "invalid", reason
            continue
        echoed["result"] = "ok"
        if kind != "stay":
            orders.append(Order(team, action["agent"], kind, (action["x"], action["y"]), echoed))
    return orders


class _Judge:
    """Step 1 for one team: why an action is invalid, or "" when it is not."""

    __slots__ = ("positions", "count", "repeated", "width", "height", "cells", "opponent_wall")

    def __init__(self, state: KakomimasuState, team: int, repeated: dict[int, int]) -> None:
        self.positions = state.agents[team]
        self.count = len(self.positions)
        self.repeated = repeated
        self.width, self.height = state.board.width, state.board.height
        self.cells = memoryview(state.cells)  # a cell read costs half of ndarray.item's
        self.opponent_wall = WALL[1 - team]

    def reason(self, action: Mapping[str, Any]) -> str:
        agent, kind = action.get("agent"), action.get("type")
        if type(agent) is not int or not 0 <= agent < self.count:
            return NO_AGENT(agent=json.dumps(agent))
        if agent in self.repeated:
            return REPEATED(agent=agent, count=self.repeated[agent])
        if kind == "stay":
            return ""
        if kind not in TARGETED:
            return UNKNOWN_TYPE(type=json.dumps(kind))
        x, y = action.get("x"), action.get("y")
        if type(x) is not int or type(y) is not int:
            return NOT_WHOLE(kind=kind)
        position = self.positions[agent]
        if kind == "put":
            if position is not None:
                return ALREADY_ON()
        elif position is None:
            return NOT_ON()
        if not (0 <= x < self.width and 0 <= y < self.height):
            return OFF_BOARD()
        if kind != "put" and (x - position[0], y - position[1]) not in _STEPS:
            return NOT_NEXT(x=position[0], y=position[1])
        cell = self.cells[y + 1, x + 1]
        if kind == "remove":
            return "" if cell in WALL else NOT_WALL()
        return OPPONENT_WALL() if cell == self.opponent_wall else ""


# --- steps 2 and 3: conflicts -------------------------------------------------


def _settle_claims(standing: dict[Cell, AgentKey], movers: list[Order]) -> list[Order]:
    """Step 3: fail every put or move into a cell whose agent ends the turn there.

    After step 2 no two movers share a target, so a cell is claimed twice exactly
    when a mover targets the cell of an agent that is not moving (any more).
    """
    claims = [order for order in movers if order.target in standing]
    if not claims:  # the usual turn: no mover heads for an agent's cell
        return movers
    moving = {(order.team, order.agent) for order in movers}
    while True:  # a failed move may leave the next agent of a chain stuck in turn
        stuck = [order for order in claims if standing[order.target] not in moving]
        if not stuck:
            return [order for order in movers if (order.team, order.agent) in moving]
        for order in stuck:
            fail(order, HOLDER_STAYS(agent=agent_name(standing[order.target])))
            moving.discard((order.team, order.agent))
            claims.remove(order)


# --- steps 4 and 5: apply ---------------------------------------------------------


def _standing(state: KakomimasuState) -> dict[Cell, AgentKey]:
    """A fresh copy of where the agents stand, for this turn to change."""
    if state.standing is not None:
        return dict(state.standing)
    return {cell: (team, agent) for team, team_agents in enumerate(state.agents)
            for agent, cell in enumerate(team_agents) if cell}


def _apply_moves(moves: list[Order], agents: Agents, cells: np.ndarray, standing: dict) -> None:
    """Wall each target and move the agent there; `standing` follows."""
    for order in moves:  # leave every old cell first: team-mates may swap
        old = agents[order.team][order.agent]
        if old is not None:
            del standing[old]
    grid = memoryview(cells)  # a cell write costs half of numpy's
    for order in moves:
        x, y = order.target
        grid[y + 1, x + 1] = WALL[order.team]
        standing[order.target] = (order.team, order.agent)


def _apply_remove(order: Order, cells: np.ndarray, standing: dict) -> None:
    """Clear the wall unless an agent now stands on it."""
    holder = standing.get(order.target)
    if holder is not None:
        fail(order, HOLDER_STAYS(agent=agent_name(holder)))
        return
    x, y = order.target
    cells[y + 1, x + 1] = NEUTRAL


# --- territory ---------------------------------------------------------------
#
# Territory is computed on bits: a boolean board is one Python integer, bit i for
# the padded board's cell i in row-major order. A whole-board step is then a few
# integer operations, far cheaper on boards this small than numpy calls or
# scipy's labelling, whose fixed cost alone exceeds a typical flood.


def _bits(mask: np.ndarray) -> int:
    """A boolean array as one integer, element i (in C order) as bit i."""
    return int.from_bytes(np.packbits(mask, axis=None, bitorder="little").tobytes(), "little")


@functools.cache
def _frame(height: int, width: int) -> int:
    """The frame cells of two padded height x width boards, one above the other."""
    inside = np.zeros((2, height, width), dtype=bool)
    inside[:, 1:-1, 1:-1] = True
    return _bits(~inside)


def _outside(free: int, frame: int, width: int) -> int:
    """The cells an 8-way flood from the frame reaches across `free` cells.

    One step a round for every cell at once: the neighbours of bit i are i ± 1 and
    i ± width, ± 1. A step off either end of a row lands on a frame cell, which the
    flood holds from the start, so the wrap changes nothing. Both teams' boards are
    flooded together: stacked, their frames touch, which changes nothing either.
    Real boards take 10 to 20 rounds; a maze takes one per cell of its longest
    path (about 250 on a 24 x 24 spiral, still under 0.1 ms).
    """
    reached = frame
    while True:
        grown = reached | reached << 1 | reached >> 1
        grown = (grown | grown << width | grown >> width) & free
        if grown == reached:
            return reached
        reached = grown


def _recompute_territory(cells: np.ndarray) -> None:
    """Resolve territory ring by ring, the innermost ring deciding (in place).

    Round by round, a cell enclosed by one team only is resolved to it, a cell
    enclosed by neither is resolved and keeps its state, and the rest (enclosed
    by both) wait for the next round, in which only unresolved walls block.
    Every round resolves at least the outermost unresolved wall, so it ends.
    For the flood, team A's board is bits 0 to size - 1 and team B's the next size.
    """
    size = cells.size
    board, boards = (1 << size) - 1, (1 << 2 * size) - 1
    codes = _bits(cells == _CODE_PLANES)  # walls A, walls B, territory A, territory B
    wall_a, wall_b, was_a, was_b = ((codes >> plane * size) & board for plane in range(4))
    free = boards & ~(wall_a | (wall_b << size))  # per team, the cells its flood crosses
    open_cells = board & ~(wall_a | wall_b)  # no wall: the cells territory may take
    frame = _frame(*cells.shape)
    own_a, own_b = was_a, was_b
    while True:
        enclosed = boards & ~_outside(free, frame, cells.shape[1])  # own walls included
        by_a, by_b = enclosed & board, enclosed >> size
        one_team = (by_a ^ by_b) & open_cells
        own_a = (own_a & ~one_team) | (by_a & one_team)
        own_b = (own_b & ~one_team) | (by_b & one_team)
        both = by_a & by_b
        if not both:
            break
        free |= boards & ~(both | (both << size))  # a wall enclosed by both still blocks
    _paint(cells, own_a & ~was_a, TERRITORY_A)
    _paint(cells, own_b & ~was_b, TERRITORY_B)


def _paint(cells: np.ndarray, bits: int, code: int) -> None:
    """Set the cells of `bits` to `code` (nothing to do in most turns)."""
    if bits:
        packed = np.frombuffer(bits.to_bytes((cells.size + 7) // 8, "little"), dtype=np.uint8)
        mask = np.unpackbits(packed, count=cells.size, bitorder="little").view(bool)
        np.copyto(cells, code, where=mask.reshape(cells.shape))
