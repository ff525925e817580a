"""Procon 2020 (Vietnam), exactly as in docs/rules/procon2020.md.

Where the rules document is silent this follows the conformance vectors
(tests/conformance/procon2020/README.md):
- an obstacle's entry in `points` is ignored: it is never tiled and scores 0 when
  enclosed; a treasure cell keeps its point value, the treasure is a bonus on top;
- all the actions of an agent that has several in one list are invalid, and so are an
  unknown agent number, an unknown type, and a move or remove without whole-number
  `dx` and `dy`; a stay is always ok and its `dx`, `dy` are not read;
- outcomes repeat `agent`, `type`, `dx` and `dy` where the action had them;
- `result` is that of this one game: the higher total, then the higher tile points,
  else a draw (the two-game match sum is not part of a record).

The board is held padded by a one-cell empty frame, so the area flood starts from the
frame. Tile and area points are recomputed only in turns where a tile changed.
"""

from __future__ import annotations

import json
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

import numpy as np

from matches.rules import words
from matches.rules.base import Outcomes, Presentation, TurnActions, callout, collisions
from matches.rules.checks import (
    RecordError,
    as_list,
    as_object,
    board_size,
    cell,
    distinct,
    points_grid,
    require,
    whole,
)
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
    is_ok,
    repeated_agents,
)
from matches.rules.reasons import Reason
from matches.rules.symmetry import mirrors_of, starts_at, symmetry_said
from matches.rules.words import gettext_noop

EMPTY, TILE_A, TILE_B, OBSTACLE = 0, 1, 2, 3
TILE = (TILE_A, TILE_B)
CELL_CHARS = bytes.maketrans(bytes(range(4)), b".AB#")
ACTION_KEYS = ("agent", "type", "dx", "dy")

# Why an action is invalid or fails (matches/rules/reasons.py); orders.py has the shared.
UNKNOWN_TYPE = Reason(gettext_noop("unknown action type {type} (expected move, remove or stay)"))
NOT_WHOLE = Reason(gettext_noop("a {kind} needs whole-number dx and dy"))
OUT_OF_RANGE = Reason(gettext_noop("direction ({dx}, {dy}) is out of range"))
NO_DIRECTION = Reason(gettext_noop("direction (0, 0) does not point to a neighbour"))
OFF_FIELD = Reason(gettext_noop("target ({x}, {y}) is off the field"))
ON_OBSTACLE = Reason(gettext_noop("target is an obstacle"))
OPPONENT_TILE = Reason(gettext_noop("target is an opponent tile"))
OWN_TILE = Reason(gettext_noop("target is the team's own tile"))
NOT_OPPONENT_TILE = Reason(gettext_noop("target is not an opponent tile"))
STAYS_ON = Reason(gettext_noop("{agent} stays on the target"))
CYCLE = Reason(gettext_noop("a swap or cycle of moves ({agents})"))
DOES_NOT_MOVE = Reason(gettext_noop("{agent} on the target does not move away"))
ENDS_ON = Reason(gettext_noop("{agent} ends the turn on the target"))
_ACTION_KEY_SET = frozenset(ACTION_KEYS)
MIN_SIDE, MAX_SIDE = 10, 20
MIN_AGENTS, MAX_AGENTS = 2, 8
MIN_TREASURE, MAX_TREASURE = 8, 16
_FOUR_WAY = np.array([[0, 1, 0], [1, 1, 1], [0, 1, 0]], dtype=bool)  # 4-connected
_TEAM_CODES = np.array(TILE, dtype=np.int8).reshape(2, 1, 1)

Agents = tuple[tuple[Cell, ...], tuple[Cell, ...]]
Score = tuple[int, int, int]  # (tile, area, treasure)


@dataclass(frozen=True, slots=True)
class Board:
    """What never changes in a game, shared by all its states."""

    width: int
    height: int
    points: np.ndarray  # flat padded float64 point values, 0 on the frame and obstacles
    magnitude: np.ndarray  # flat padded int64 |points|, 0 on the frame and obstacles
    treasures: Mapping[Cell, int]  # treasure cell -> value
    start: Agents


@dataclass(frozen=True, slots=True)
class Procon2020State:
    turn: int
    board: Board
    cells: np.ndarray  # (height + 2, width + 2) int8 cell codes, empty frame
    agents: Agents
    treasures: frozenset[Cell]  # treasures not collected yet
    scores: tuple[Score, Score]


def _decided(totals: Sequence[int], tiles: Sequence[int]) -> dict[str, Any]:
    """The higher total wins, then the higher tile points, else a draw."""
    for key, (a, b) in (("total", totals), ("tile", tiles)):
        if a != b:
            return {"winner": 0 if a > b else 1, "decided_by": key}
    return {"winner": None, "decided_by": "draw"}


# --- the board ----------------------------------------------------------------------


def random_field(seed: int | None = None) -> tuple[dict[str, Any], dict[str, Any]]:
    """A field within the official limits, fair to both teams: 10-20 cells a side,
    point values -16..16 (mostly positive, the sum positive), mirrored left to right or
    turned half round the centre; obstacles, treasures (8-16) and 2-8 start cells a team
    placed in mirrored pairs, team 1's the mirror of team 0's."""
    rng = random.Random(seed)
    width, height = rng.randint(MIN_SIDE, MAX_SIDE), rng.randint(MIN_SIDE, MAX_SIDE)
    turned = rng.random() < 0.5

    def partner(x: int, y: int) -> tuple[int, int]:
        return (width - 1 - x, height - 1 - y) if turned else (width - 1 - x, y)

    points: list[list[int | None]] = [[None] * width for _ in range(height)]
    for y in range(height):
        for x in range(width):
            if points[y][x] is None:
                value = rng.randint(-16, -1) if rng.random() < 0.15 else rng.randint(0, 16)
                px, py = partner(x, y)
                points[y][x] = points[py][px] = value
    if sum(map(sum, points)) <= 0:  # the rules want a positive sum: lift the lowest
        for row in points:
            for x, value in enumerate(row):
                row[x] = abs(value)
    # Cells of team 0's half that have a different partner, in a random order.
    half = [(x, y) for y in range(height) for x in range(width)
            if (y, x) < partner(x, y)[::-1]]
    rng.shuffle(half)
    agents = rng.randint(MIN_AGENTS, MAX_AGENTS)
    n_obstacles = rng.randint(1, max(1, width * height // 40))
    n_treasures = rng.randint(1, 3)
    start, obstacles, treasures = half[:agents], [], []
    for x, y in half[agents:agents + n_obstacles]:
        obstacles += [[x, y], list(partner(x, y))]
    for x, y in half[agents + n_obstacles:agents + n_obstacles + n_treasures]:
        value = rng.randint(MIN_TREASURE, MAX_TREASURE)
        (px, py) = partner(x, y)
        treasures += [{"x": x, "y": y, "point": value}, {"x": px, "y": py, "point": value}]
    board = {
        "width": width, "height": height, "points": points, "obstacles": obstacles,
        "treasures": treasures,
        "start": [[[x, y] for x, y in start], [list(partner(x, y)) for x, y in start]],
    }
    return board, {"agents": agents, "turns": rng.choice((30, 40, 50, 60))}


def parse_board(board: Mapping[str, Any]) -> dict[str, Any]:
    """The canonical board: size, points, obstacles, treasures and start cells, checked."""
    width, height = board_size(board, MIN_SIDE, MAX_SIDE)
    points = points_grid(board, width, height)
    obstacle_list = as_list(board.get("obstacles", []), "board.obstacles")
    obstacles = [cell(v, f"board.obstacles[{i}]", width, height)
                 for i, v in enumerate(obstacle_list)]
    obstacle_names = [f"board.obstacles[{i}]" for i in range(len(obstacles))]
    distinct(obstacles, obstacle_names)
    treasures = [_treasure(t, f"board.treasures[{i}]", width, height) for i, t in
                 enumerate(as_list(board.get("treasures", []), "board.treasures"))]
    distinct(obstacles + [(t["x"], t["y"]) for t in treasures],
             obstacle_names + [f"board.treasures[{i}]" for i in range(len(treasures))])
    teams = as_list(require(board, "start", "board."), "board.start")
    if len(teams) != 2:
        raise RecordError(f"board.start: expected 2 teams, got {len(teams)}")
    start, start_names = [], []
    for team, cells in enumerate(teams):
        name = f"board.start[{team}]"
        start.append([cell(v, f"{name}[{i}]", width, height)
                      for i, v in enumerate(as_list(cells, name))])
        start_names += [f"{name}[{i}]" for i in range(len(start[-1]))]
    distinct(obstacles + start[0] + start[1], obstacle_names + start_names)
    return {
        "width": width,
        "height": height,
        "points": points,
        "obstacles": [list(c) for c in obstacles],
        "treasures": treasures,
        "start": [[list(c) for c in team] for team in start],
    }


def _treasure(value: Any, name: str, width: int, height: int) -> dict[str, int]:
    treasure = as_object(value, name)
    return {
        "x": whole(require(treasure, "x", f"{name}."), f"{name}.x", 0, width - 1),
        "y": whole(require(treasure, "y", f"{name}."), f"{name}.y", 0, height - 1),
        "point": whole(require(treasure, "point", f"{name}."), f"{name}.point",
                       MIN_TREASURE, MAX_TREASURE),
    }


def make_board(board: Mapping[str, Any]) -> tuple[Board, np.ndarray]:
    """The immutable board of a parsed board dict, and the padded cells at turn 0."""
    cells = np.zeros((board["height"] + 2, board["width"] + 2), dtype=np.int8)
    for x, y in board["obstacles"]:
        cells[y + 1, x + 1] = OBSTACLE
    points = np.pad(np.asarray(board["points"], dtype=np.int64), 1)
    points[cells == OBSTACLE] = 0
    flat_points = points.ravel().astype(np.float64)
    magnitude = np.abs(points).ravel()
    for array in (flat_points, magnitude):
        array.setflags(write=False)
    start = [tuple((x, y) for x, y in team) for team in board["start"]]
    for team, team_start in enumerate(start):
        for x, y in team_start:
            cells[y + 1, x + 1] = TILE[team]
    treasures = MappingProxyType({(t["x"], t["y"]): t["point"] for t in board["treasures"]})
    made = Board(board["width"], board["height"], flat_points, magnitude, treasures,
                 (start[0], start[1]))
    return made, cells


def tile_and_area(board: Board, cells: np.ndarray) -> tuple[tuple[int, int], tuple[int, int]]:
    """Per team, (tile points, area points) of padded cells.

    Area: both teams are labelled in one call. Each team's passable cells (all but
    its own tiles) are stacked, and their frames join into one outside, which changes
    nothing for either team. The frame's corner is passable, so the outside is
    label 1; own tiles are label 0, so every label above 1 is enclosed.
    """
    from scipy import ndimage  # here: a process that never scores a field starts faster

    labels, _ = ndimage.label((cells != _TEAM_CODES).reshape(-1, cells.shape[1]), _FOUR_WAY)
    area = ((labels > 1).reshape(2, -1) @ board.magnitude).tolist()
    tile = np.bincount(cells.ravel(), weights=board.points, minlength=4).tolist()
    return (int(tile[TILE_A]), area[0]), (int(tile[TILE_B]), area[1])


def areas_shown(cells: Sequence[str]) -> list[list[list[int]]]:
    """Each team's area as the screens shade it: the neutral cells ("." in a timeline
    state's rows) its tiles enclose, [x, y] each, in the same flood as the points
    (`tile_and_area`: from the frame, four ways, through anything but its own tiles)."""
    from scipy import ndimage

    if not cells or not cells[0]:  # (a secret board's state before its start: no cells)
        return [[], []]
    grid = np.pad(np.array([list(row) for row in cells], dtype="<U1").reshape(
        len(cells), -1), 1, constant_values=".")
    shown = []
    for own in ("A", "B"):
        labels, _ = ndimage.label(grid != own, _FOUR_WAY)
        ys, xs = np.nonzero((labels > 1) & (grid == "."))
        shown.append([[int(x) - 1, int(y) - 1] for y, x in zip(ys, xs, strict=True)])
    return shown


# --- the rules ----------------------------------------------------------------------


FIELD_EXTRAS = ("obstacles", "treasures", "start")  # a field's keys besides its points


def _start_agents(data: Mapping[str, Any]) -> int | None:
    """A field that gives each team's start cells has that many agents a team."""
    start = data.get("start")
    if isinstance(start, list) and start and isinstance(start[0], list) and start[0] \
            and isinstance(start[0][0], list):  # cells a team, not one player's cell
        return len(start[0])
    return None


class Procon2020Rules(Presentation):
    """`allow_remove_own`: the match option that lets `remove` take off any tile."""

    game = "procon2020"
    drawing_history = True  # the treasures taken so far
    title = words.gettext_noop("Procon 2020 (Vietnam)")  # said in the page's language where shown
    # Translators: the game in one line, for a newcomer watching the TV
    rule_line = words.gettext_noop(
        "Agents take tiles; "
        "tiles and the areas they enclose score points; the higher total wins")
    outcome_keys = ()
    action_keys = ACTION_KEYS
    replay_marks = True
    # One action as the answer API documents it (JSON Schema, for the OpenAPI document).
    action_schema = {"title": "Procon 2020 action", "type": "object",
                     "required": ["agent", "type", "dx", "dy"],
                     "properties": {"agent": {"type": "integer"},
                                    "type": {"type": "string",
                                             "enum": ["move", "remove", "stay"]},
                                    "dx": {"type": "integer", "minimum": -1, "maximum": 1},
                                    "dy": {"type": "integer", "minimum": -1, "maximum": 1}}}

    live = True

    def __init__(self, allow_remove_own: bool = False) -> None:
        self.allow_remove_own = allow_remove_own

    def random_board(self, seed: int | None = None) -> tuple[dict[str, Any], dict[str, Any]]:
        """A symmetric field within the official limits (random_field), and its agents
        and a suggested number of turns."""
        return random_field(seed)

    def parse_board(self, board: Mapping[str, Any]) -> dict[str, Any]:
        return parse_board(board)

    def board_read(self, data: Mapping[str, Any]
                   ) -> tuple[dict[str, Any], dict[str, Any]] | None:
        """A Procon field JSON: `width`, `height`, `points` in rows, and where the field
        has them its `obstacles`, `treasures` and each team's `start` cells (that many
        agents a team), `nAgent` and `totalTurn` otherwise."""
        points = data.get("points")
        if not isinstance(points, list) or (points and not isinstance(points[0], list)):
            return None
        board = {"width": data.get("width"), "height": data.get("height"), "points": points}
        board |= {key: data[key] for key in FIELD_EXTRAS if key in data}
        return board, {"agents": data.get("nAgent") or _start_agents(data),
                       "turns": data.get("totalTurn")}

    def board_file(self, board: Mapping[str, Any], hints: Mapping[str, Any],
                   name: str) -> tuple[str, bytes]:
        """The Procon field JSON of a field (points in rows, its start cells,
        obstacles and treasures)."""
        data = {"name": name, "width": board["width"], "height": board["height"],
                "points": board["points"]}
        data |= {key: board[key] for key in FIELD_EXTRAS if key in board}
        data |= {"totalTurn": hints["turns"]} if hints.get("turns") else {}
        return f"{name}.json", (json.dumps(data, ensure_ascii=False) + "\n").encode()

    def board_notes(self, board: Mapping[str, Any]) -> list[str]:
        """Its symmetry (points, obstacles, treasures and each team's start cells the
        mirror of the other's) and what each team starts with, for the field editor."""
        starts = starts_at(board)
        obstacles = {tuple(cell) for cell in board["obstacles"]}
        treasures = {(t["x"], t["y"]): t["point"] for t in board["treasures"]}

        def signature(b: Mapping[str, Any], x: int, y: int, swap: bool) -> Any:
            team = starts.get((x, y))
            return (board["points"][y][x], (x, y) in obstacles, treasures.get((x, y)),
                    1 - team if swap and team is not None else team)

        return [symmetry_said(mirrors_of(board, signature)),
                words.gettext("%(agents)s agents a team, %(obstacles)s obstacles, "
                              "%(treasures)s treasures.")
                % {"agents": len(board["start"][0]), "obstacles": len(obstacles),
                   "treasures": len(treasures)}]

    def drawing_extras(self, board: Mapping[str, Any],
                       states: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
        """The treasures taken so far, as [x, y] cells: a late screen must not draw them."""
        return {"treasures_taken": sorted(treasures_taken(board, states))}

    def drawing_news(self, board: Mapping[str, Any], state: Mapping[str, Any]) -> dict[str, Any]:
        """The treasures the state's turn took, as [x, y] cells (none: nothing)."""
        taken = sorted(treasures_taken(board, [state]))
        return {"treasures_taken": [list(cell) for cell in taken]} if taken else {}

    def picture_style(self) -> dict[str, Any]:
        """Tiles as walls, obstacles crossed stones; no territory (areas are counted,
        not marked on the board)."""
        return {"walls": ("A", "B"), "blocks": "#", "crossed": True, "values": True}

    def last_turn(self, state: Mapping[str, Any],
                  previous: Mapping[str, Any] | None = None) -> dict[str, list[Any]]:
        """A move that succeeded moved its agent by dx, dy (its start needs no earlier
        state); a tile removed is "acted" on, next to the agent that stayed. And the
        board's `areas` in that state (`areas_shown`): the screens shade them as given."""
        marks: list[Any] = []
        moves: list[Any] = []
        for team, outcomes in enumerate(state.get("outcomes") or ()):
            for outcome in outcomes:
                if outcome.get("result") != "ok" or outcome.get("type") not in ("move", "remove"):
                    continue
                x, y = state["agents"][team][outcome["agent"]]
                dx, dy = outcome["dx"], outcome["dy"]
                if outcome["type"] == "move":
                    moves.append([[x - dx, y - dy], [x, y], team])
                else:
                    marks.append([x + dx, y + dy, "acted", team])
        return {"marks": marks, "moves": moves, "areas": areas_shown(state["cells"])}

    def action_target(self, outcome: Mapping[str, Any],
                      agents: Sequence[Any]) -> tuple[int, int] | None:
        """A move or a remove aims dx, dy from where its agent stood."""
        agent, dx, dy = outcome.get("agent"), outcome.get("dx"), outcome.get("dy")
        if type(agent) is not int or not 0 <= agent < len(agents) or not agents[agent] \
                or type(dx) is not int or type(dy) is not int:
            return None
        return agents[agent][0] + dx, agents[agent][1] + dy

    def notable(self, previous: Mapping[str, Any], state: Mapping[str, Any],
                names: Sequence[str]) -> list[tuple[float, dict[str, Any]]]:
        """An area a team enclosed (its gain) and agents that collided."""
        found = collisions(state, lambda team, outcome: self.action_target(
            outcome, previous["agents"][team]))
        for team in (0, 1):
            gained = state["scores"][team]["area"] - previous["scores"][team]["area"]
            if gained > 0:
                # Translators: a turn's callout, e.g. "Hanoi +24: an area enclosed"
                text = words.gettext("%(name)s +%(points)s: an area enclosed")
                found.append((float(gained), callout(
                    text % {"name": names[team], "points": gained}, team)))
        return found

    def check_agents(self, agents: Any, board: dict[str, Any]) -> int:
        """2..8 agents, as many as each team has start cells."""
        agents = whole(agents, "agents", MIN_AGENTS, MAX_AGENTS)
        for team, cells in enumerate(board["start"]):
            if len(cells) != agents:
                raise RecordError(
                    f"board.start[{team}]: {len(cells)} start cells, expected {agents} (agents)"
                )
        return agents

    def initial_state(self, record: Any) -> Procon2020State:
        board, cells = make_board(record.board)
        (tile_a, area_a), (tile_b, area_b) = tile_and_area(board, cells)
        scores = ((tile_a, area_a, 0), (tile_b, area_b, 0))
        return Procon2020State(0, board, cells, board.start, frozenset(board.treasures), scores)

    def resolve_turn(
        self, state: Procon2020State, actions: TurnActions
    ) -> tuple[Procon2020State, Outcomes]:
        outcomes: Outcomes = [[], []]
        orders = self._validate(state, 0, actions[0], outcomes[0])
        orders += self._validate(state, 1, actions[1], outcomes[1])
        if not orders:
            return _next(state, state.cells, state.agents, state.treasures, state.scores), outcomes
        fail_same_targets(orders)
        standing = {where: (team, agent) for team, team_agents in enumerate(state.agents)
                    for agent, where in enumerate(team_agents)}
        moves = _settle_moves(standing, [o for o in orders if o.kind == "move" and is_ok(o)])
        removes = _settle_removes(standing, moves, [o for o in orders if o.kind == "remove"])
        return _apply(state, moves, removes), outcomes

    def view(self, state: Procon2020State) -> dict[str, Any]:
        width = state.board.width
        text = state.cells[1:-1, 1:-1].tobytes().translate(CELL_CHARS).decode()
        return {
            "turn": state.turn,
            "cells": [text[i : i + width] for i in range(0, len(text), width)],
            "agents": [[[x, y] for x, y in team] for team in state.agents],
            "scores": [{"tile": tile, "area": area, "treasure": treasure,
                        "total": tile + area + treasure} for tile, area, treasure in state.scores],
        }

    def action_problem(self, action: Any) -> str:
        """Why an action sent to the answer API is not well formed ("" when it is).

        Only the shape is checked here; what the action means on the board (an agent
        number out of range, a direction out of range) is judged at the transition.
        """
        return action_problem(action, ("move", "remove", "stay"), ("dx", "dy"))

    def action_fields(self, action: dict[str, Any]) -> dict[str, Any]:
        """The fields of a well-formed action that the record keeps."""
        return action_fields(action, ACTION_KEYS)

    def is_over(self, state: Procon2020State, turns: int) -> bool:
        return state.turn >= turns

    def result(self, state: Procon2020State) -> dict[str, Any]:
        (tile_a, area_a, treasure_a), (tile_b, area_b, treasure_b) = state.scores
        return _decided([tile_a + area_a + treasure_a, tile_b + area_b + treasure_b],
                        [tile_a, tile_b])

    # An official match is two games, the second on a field kept secret until it starts
    # (docs/rules/procon2020.md, "The match and the winner").
    games_per_match = 2
    match_by = "totals"

    def match_result(self, finals: Sequence[tuple[Sequence[Mapping[str, int]],
                                                  Mapping[str, Any]]],
                     games: int) -> dict[str, Any]:
        """The match's result, once its last game ends, from each game's final timeline
        scores: the higher total summed over the games, then the higher tile points
        summed, else a draw (a lot, if the organisers draw one, is their note). It is
        the last game's result (`winner`, `decided_by`) in place of the game's own, with
        the sums it was decided by (`match`: docs/formats.md), which its words quote."""
        if len(finals) < games:
            return {}
        totals, tiles = [0, 0], [0, 0]
        for scores, _ in finals:
            for team in (0, 1):
                totals[team] += scores[team]["total"]
                tiles[team] += scores[team]["tile"]
        decided = _decided(totals, tiles)
        return {**decided, "match": {"winner": decided["winner"], "totals": totals,
                                     "tiles": tiles, "games": len(finals)}}

    def verdict(self, result: Mapping[str, Any], scores: Sequence[Mapping[str, int]],
                names: Sequence[str]) -> str:
        """The last game of a match says the match's result, which it carries, in the
        match's sums (its own scores are another game's: "Alpha wins by 149 points"
        beside a game Alpha lost 51 to 200 said the opposite of what happened)."""
        match = result.get("match")
        if not match or "totals" not in match or result.get("decided_by") == "void":
            return super().verdict(result, scores, names)
        totals, winner = match["totals"], match["winner"]
        summed = {"a": words.number(totals[0]), "b": words.number(totals[1]),
                  "games": match.get("games", 2)}
        if winner is None:
            return words.gettext("The match is drawn: %(a)s – %(b)s over its %(games)s "
                                 "games") % summed
        if totals[0] == totals[1]:  # the tile points summed decided it
            return words.gettext("%(name)s wins the match on tile points: %(a)s – %(b)s "
                                 "over its %(games)s games") % {
                **summed, "name": names[winner], "a": words.number(match["tiles"][0]),
                "b": words.number(match["tiles"][1])}
        return words.gettext("%(name)s wins the match by %(amount)s: %(a)s – %(b)s over "
                             "its %(games)s games") % {
            **summed, "name": names[winner], "amount": self.amount(abs(totals[0] - totals[1]))}

    # --- step 1: invalid actions ------------------------------------------------------

    def _validate(
        self, state: Procon2020State, team: int, actions: Sequence[Mapping[str, Any]], out: list
    ) -> list[Order]:
        """Judge each action of one team against the start-of-turn board."""
        repeated = repeated_agents(actions)
        positions = state.agents[team]
        width, height = state.board.width, state.board.height
        cell_at = state.cells.item
        own, opponent = TILE[team], TILE[1 - team]
        removable = (TILE_A, TILE_B) if self.allow_remove_own else (opponent,)
        orders = []
        for action in actions:
            echoed = echo(action, ACTION_KEYS, _ACTION_KEY_SET)
            out.append(echoed)
            agent, kind = action.get("agent"), action.get("type")
            dx, dy = action.get("dx"), action.get("dy")
            if type(agent) is not int or not 0 <= agent < len(positions):
                reason = NO_AGENT(agent=json.dumps(agent))
            elif agent in repeated:
                reason = REPEATED(agent=agent, count=repeated[agent])
            elif kind == "stay":
                reason = ""
            elif kind != "move" and kind != "remove":
                reason = UNKNOWN_TYPE(type=json.dumps(kind))
            elif type(dx) is not int or type(dy) is not int:
                reason = NOT_WHOLE(kind=kind)
            elif not (-1 <= dx <= 1 and -1 <= dy <= 1):
                reason = OUT_OF_RANGE(dx=dx, dy=dy)
            elif dx == 0 and dy == 0:
                reason = NO_DIRECTION()
            else:
                x, y = positions[agent]
                x, y = x + dx, y + dy
                target = cell_at(y + 1, x + 1)
                if not (0 <= x < width and 0 <= y < height):
                    reason = OFF_FIELD(x=x, y=y)
                elif target == OBSTACLE:
                    reason = ON_OBSTACLE()
                elif kind == "move":
                    reason = OPPONENT_TILE() if target == opponent else ""
                elif target in removable:
                    reason = ""
                elif target == own:
                    reason = OWN_TILE()
                else:
                    reason = NOT_OPPONENT_TILE()
                if not reason:
                    orders.append(Order(team, agent, kind, (x, y), echoed))
            if reason:
                echoed["result"], echoed["reason"] = "invalid", reason
            else:
                echoed["result"] = "ok"
        return orders


# --- steps 2 and 3: conflicts -------------------------------------------------------


def _settle_moves(standing: dict[Cell, AgentKey], movers: list[Order]) -> list[Order]:
    """Step 3 for moves: the moves that succeed; the others are failed with a reason.

    After step 2 no two moves share a target, so each move waits on at most one other:
    the move of the agent standing on its target. Following that chain ends at an
    empty cell (all of the chain succeed), at an agent that stays (all fail), or
    runs into itself: a swap or cycle, which fails.
    """
    moving = {(o.team, o.agent): o for o in movers}
    succeeds: dict[AgentKey, bool] = {}
    for key, order in moving.items():  # most targets are empty
        if order.target not in standing:
            succeeds[key] = True
    for key in moving:
        chain: list[AgentKey] = []
        at = key
        while at not in succeeds and at not in chain:
            chain.append(at)
            holder = standing.get(moving[at].target)
            if holder is None:
                succeeds[at] = True
            elif holder not in moving:
                fail(moving[at], STAYS_ON(agent=agent_name(holder)))
                succeeds[at] = False
            else:
                at = holder
        if at not in succeeds:  # the chain ran into itself
            cycle = chain[chain.index(at):]
            names = ", ".join(agent_name(k) for k in cycle)
            for k in cycle:
                fail(moving[k], CYCLE(agents=names))
                succeeds[k] = False
        ahead = at
        for behind in reversed(chain):
            if behind not in succeeds:
                succeeds[behind] = succeeds[ahead]
                if not succeeds[ahead]:
                    fail(moving[behind], DOES_NOT_MOVE(agent=agent_name(ahead)))
            ahead = behind
    return [order for key, order in moving.items() if succeeds[key]]


def _settle_removes(
    standing: dict[Cell, AgentKey], moves: list[Order], removes: list[Order]
) -> list[Order]:
    """Step 3 for removes: a remove fails if an agent ends the turn on its target.

    No successful move targets a remove's target (step 2), so that agent is one
    standing there now that does not move away.
    """
    moved = {(o.team, o.agent) for o in moves}
    done = []
    for order in removes:
        if is_ok(order):
            holder = standing.get(order.target)
            if holder is None or holder in moved:
                done.append(order)
            else:
                fail(order, ENDS_ON(agent=agent_name(holder)))
    return done


# --- steps 4 and 5: apply -------------------------------------------------------------


def _apply(state: Procon2020State, moves: list[Order], removes: list[Order]
           ) -> Procon2020State:
    """Move and tile, remove, collect treasures; rescore if a tile changed."""
    cells = state.cells.copy()
    changed = bool(removes) or any(
        cells.item(o.target[1] + 1, o.target[0] + 1) != TILE[o.team] for o in moves
    )
    agents = [list(state.agents[0]), list(state.agents[1])]
    treasures, found = state.treasures, [0, 0]
    for order in moves:
        x, y = order.target
        cells[y + 1, x + 1] = TILE[order.team]
        agents[order.team][order.agent] = order.target
        if order.target in treasures:
            found[order.team] += state.board.treasures[order.target]
            treasures = treasures - {order.target}
    for order in removes:
        x, y = order.target
        cells[y + 1, x + 1] = EMPTY
    if changed:
        tile_area = tile_and_area(state.board, cells)
    else:
        tile_area = ((state.scores[0][0], state.scores[0][1]),
                     (state.scores[1][0], state.scores[1][1]))
    scores = tuple((tile, area, old[2] + gain) for (tile, area), old, gain
                   in zip(tile_area, state.scores, found, strict=True))
    return _next(state, cells, (tuple(agents[0]), tuple(agents[1])), treasures, scores)


def _next(state: Procon2020State, cells: np.ndarray, agents: Agents,
          treasures: frozenset[Cell], scores: Any) -> Procon2020State:
    return Procon2020State(state.turn + 1, state.board, cells, agents, treasures, scores)


def treasures_taken(board: Mapping[str, Any], states: Sequence[Mapping[str, Any]]) -> set[Cell]:
    """The treasures collected in these timeline/1 states, for whoever draws a timeline,
    which does not list them: a treasure is taken by a move that succeeds onto it (as
    `_apply` takes it), the only way onto a cell (an agent starting on one has not taken
    it; one stepping on as another steps off has)."""
    spots = {(treasure["x"], treasure["y"]) for treasure in board.get("treasures", [])}
    return {cell for state in states for cell in _moved_onto(state) if cell in spots}


def _moved_onto(state: Mapping[str, Any]) -> list[Cell]:
    """The cells a state's turn's successful moves ended on."""
    return [tuple(state["agents"][team][outcome["agent"]])
            for team, outcomes in enumerate(state.get("outcomes") or ())
            for outcome in outcomes
            if outcome.get("result") == "ok" and outcome.get("type") == "move"]
