"""Kakomimasu (Procon 31), exactly as in docs/rules/kakomimasu.md.

The board is held padded by a one-cell neutral frame, so the territory flood can
start from the frame without copying the board every turn.
"""

from __future__ import annotations

import json
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import ndimage

from matches.rules.base import Outcomes, Presentation, TurnActions
from matches.rules.checks import board_size, points_grid, whole
from matches.rules.orders import (
    AgentKey,
    Cell,
    Order,
    action_fields,
    action_problem,
    agent_name,
    echo,
    fail,
    fail_same_targets,
    is_ok,
    repeated_agents,
)

NEUTRAL, WALL_A, WALL_B, TERRITORY_A, TERRITORY_B = 0, 1, 2, 3, 4
WALL = (WALL_A, WALL_B)
TERRITORY = (TERRITORY_A, TERRITORY_B)
CELL_CHARS = bytes.maketrans(bytes(range(5)), b".ABab")
ACTION_KEYS = ("agent", "type", "x", "y")
# Procon 31 official limits, for generated boards.
RANDOM_SIDES, RANDOM_AGENTS = (12, 24), (6, 14)
_ACTION_KEY_SET = frozenset(ACTION_KEYS)
TARGETED = ("put", "move", "remove")
_EIGHT_WAY = np.ones((3, 3), dtype=bool)

Agents = tuple[tuple[Cell | None, ...], tuple[Cell | None, ...]]


@dataclass(frozen=True, slots=True)
class Board:
    width: int
    height: int
    points: np.ndarray  # (height + 2, width + 2) int64, zero frame
    magnitude: np.ndarray  # |points|, flat, for bincount
    sign_offset: np.ndarray  # 5 where the point value is negative, else 0, flat


@dataclass(frozen=True, slots=True)
class KakomimasuState:
    turn: int
    board: Board
    cells: np.ndarray  # (height + 2, width + 2) int8 cell codes, neutral frame
    agents: Agents


def make_board(points: Sequence[Sequence[int]]) -> Board:
    padded = np.pad(np.asarray(points, dtype=np.int64), 1)
    magnitude = np.abs(padded).ravel().astype(np.float64)
    sign_offset = np.where(padded.ravel() < 0, 5, 0).astype(np.int8)
    for array in (padded, magnitude, sign_offset):
        array.setflags(write=False)
    return Board(len(points[0]), len(points), padded, magnitude, sign_offset)


class KakomimasuRules(Presentation):
    game = "kakomimasu"
    title = "Kakomimasu (Procon 31)"
    public_boards = "kakomimasu-boards.json"  # in matches/boards/
    live = True
    action_keys = ACTION_KEYS
    replay_marks = True

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

    def check_agents(self, agents: Any, board: dict[str, Any]) -> int:
        return whole(agents, "agents", 1, board["width"] * board["height"])

    def initial_state(self, record: Any) -> KakomimasuState:
        board = make_board(record.board["points"])
        cells = np.zeros(board.points.shape, dtype=np.int8)
        empty = (None,) * record.agents
        return KakomimasuState(0, board, cells, (empty, empty))

    def resolve_turn(
        self, state: KakomimasuState, actions: TurnActions
    ) -> tuple[KakomimasuState, Outcomes]:
        outcomes: Outcomes = [[], []]
        orders = _validate(state, 0, actions[0], outcomes[0])
        orders += _validate(state, 1, actions[1], outcomes[1])
        if not orders:
            return KakomimasuState(state.turn + 1, state.board, state.cells, state.agents), outcomes
        fail_same_targets(orders)
        standing = {cell: (team, agent) for team, team_agents in enumerate(state.agents)
                    for agent, cell in enumerate(team_agents) if cell}
        moves = _settle_claims(standing, [o for o in orders if o.kind != "remove" and is_ok(o)])
        cells = state.cells.copy()
        walls_changed = _apply_moves(moves, state.agents, cells, standing)
        for order in orders:
            if order.kind == "remove" and is_ok(order):
                walls_changed |= _apply_remove(order, cells, standing)
        if walls_changed:
            _recompute_territory(cells)
        agents = [list(team_agents) for team_agents in state.agents]
        for order in moves:
            agents[order.team][order.agent] = order.target
        frozen: Agents = (tuple(agents[0]), tuple(agents[1]))
        return KakomimasuState(state.turn + 1, state.board, cells, frozen), outcomes

    def view(self, state: KakomimasuState) -> dict[str, Any]:
        width = state.board.width
        text = state.cells[1:-1, 1:-1].tobytes().translate(CELL_CHARS).decode()
        return {
            "turn": state.turn,
            "cells": [text[i : i + width] for i in range(0, len(text), width)],
            "agents": [[list(cell) if cell else None for cell in team] for team in state.agents],
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
        echoed = echo(action, ACTION_KEYS, _ACTION_KEY_SET)
        if reason:
            echoed["result"], echoed["reason"] = "invalid", reason
        else:
            echoed["result"] = "ok"
            if action["type"] != "stay":
                target = (action["x"], action["y"])
                orders.append(Order(team, action["agent"], action["type"], target, echoed))
        out.append(echoed)
    return orders


class _Judge:
    """Step 1 for one team: why an action is invalid, or "" when it is not."""

    __slots__ = ("positions", "repeated", "width", "height", "cell_at", "opponent_wall")

    def __init__(self, state: KakomimasuState, team: int, repeated: dict[int, int]) -> None:
        self.positions = state.agents[team]
        self.repeated = repeated
        self.width, self.height = state.board.width, state.board.height
        self.cell_at = state.cells.item
        self.opponent_wall = WALL[1 - team]

    def reason(self, action: Mapping[str, Any]) -> str:
        agent, kind = action.get("agent"), action.get("type")
        if type(agent) is not int or not 0 <= agent < len(self.positions):
            return f"there is no agent {json.dumps(agent)}"
        if agent in self.repeated:
            return f"agent {agent} has {self.repeated[agent]} actions this turn"
        if kind == "stay":
            return ""
        if kind not in TARGETED:
            return f"unknown action type {json.dumps(kind)} (expected put, move, remove or stay)"
        x, y = action.get("x"), action.get("y")
        if type(x) is not int or type(y) is not int:
            return f"a {kind} needs whole-number x and y"
        position = self.positions[agent]
        if kind == "put":
            if position is not None:
                return "the agent is already on the board"
        elif position is None:
            return "the agent is not on the board"
        if not (0 <= x < self.width and 0 <= y < self.height):
            return "target is off the board"
        if kind != "put" and max(abs(x - position[0]), abs(y - position[1])) != 1:
            return f"target is not next to the agent at ({position[0]}, {position[1]})"
        cell = self.cell_at(y + 1, x + 1)
        if kind == "remove":
            return "" if cell in WALL else "target is not a wall"
        return "target is an opponent wall" if cell == self.opponent_wall else ""


# --- steps 2 and 3: conflicts -------------------------------------------------


def _settle_claims(standing: dict[Cell, AgentKey], movers: list[Order]) -> list[Order]:
    """Step 3: fail every put or move into a cell whose agent ends the turn there.

    After step 2 no two movers share a target, so a cell is claimed twice exactly
    when a mover targets the cell of an agent that is not moving (any more).
    """
    moving = {(o.team, o.agent): o for o in movers}
    failed = True
    while failed:
        failed = False
        for key, order in list(moving.items()):
            holder = standing.get(order.target)
            if holder is not None and holder not in moving:
                fail(order, f"the agent at the target stays ({agent_name(holder)})")
                del moving[key]
                failed = True
    return list(moving.values())


# --- steps 4 and 5: apply ---------------------------------------------------------


def _apply_moves(moves: list[Order], agents: Agents, cells: np.ndarray, standing: dict) -> bool:
    """Wall each target and move the agent there; `standing` follows. True if walls changed."""
    changed = False
    for order in moves:  # leave every old cell first: team-mates may swap
        old = agents[order.team][order.agent]
        if old is not None:
            del standing[old]
    for order in moves:
        x, y = order.target
        wall = WALL[order.team]
        changed |= cells.item(y + 1, x + 1) != wall
        cells[y + 1, x + 1] = wall
        standing[order.target] = (order.team, order.agent)
    return changed


def _apply_remove(order: Order, cells: np.ndarray, standing: dict) -> bool:
    """Clear the wall unless an agent now stands on it. True if the wall went."""
    holder = standing.get(order.target)
    if holder is not None:
        fail(order, f"the agent at the target stays ({agent_name(holder)})")
        return False
    x, y = order.target
    cells[y + 1, x + 1] = NEUTRAL
    return True


# --- territory ---------------------------------------------------------------


def _enclosed(block_a: np.ndarray, block_b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per team, the cells an 8-way flood from the frame cannot reach past its blocks.

    Both teams are labelled in one call: the two padded boards are stacked, and
    their frames join into one outside, which changes nothing for either team.
    The frame's corner is open, so the outside is label 1.
    """
    labels, _ = ndimage.label(~np.concatenate((block_a, block_b)), structure=_EIGHT_WAY)
    enclosed = labels != 1
    height = block_a.shape[0]
    return enclosed[:height], enclosed[height:]


def _recompute_territory(cells: np.ndarray) -> None:
    """Resolve territory ring by ring, the innermost ring deciding (in place).

    Round by round, a cell enclosed by one team only is resolved to it, a cell
    enclosed by neither is resolved and keeps its state, and the rest (enclosed
    by both) wait for the next round, in which only unresolved walls block.
    Every round resolves at least the outermost unresolved wall, so it ends.
    """
    wall_a, wall_b = cells == WALL_A, cells == WALL_B
    owner = np.zeros_like(cells)
    block_a, block_b = wall_a, wall_b
    while True:
        enclosed_a, enclosed_b = _enclosed(block_a, block_b)
        both = enclosed_a & enclosed_b
        np.copyto(owner, TERRITORY_A, where=enclosed_a > both)
        np.copyto(owner, TERRITORY_B, where=enclosed_b > both)
        if not both.any():
            break
        block_a, block_b = wall_a & both, wall_b & both
    np.copyto(cells, owner, where=(owner != 0) > (wall_a | wall_b))
