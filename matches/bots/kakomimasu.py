"""Built-in Kakomimasu players for the demo: they see only the public API state.

`random_bot` wanders; `greedy_bot` walls small rings around valuable cells to
take territory; `tactical_bot` (level 3) improves the greedy plan agent by agent where
the rules say a turn gains; `searching_bot` (level 4) searches with the time it is given
(matches/bots/search.py `anytime`), its playouts played by a quick cell-taking policy.
All are pure: a public state and a team index in, actions out.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np

from matches.bots import search
from matches.rules.kakomimasu import KakomimasuRules, KakomimasuState, make_board, scores

GAME = "kakomimasu"
RULES = KakomimasuRules()
NEIGHBOURS = [(dx, dy) for dy in (-1, 0, 1) for dx in (-1, 0, 1) if (dx, dy) != (0, 0)]
# The eight cells of the 3x3 ring around a centre, in walking order.
RING = [(-1, -1), (0, -1), (1, -1), (1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0)]


class View:
    """The parts of a public match state a bot reasons about."""

    def __init__(self, public: dict[str, Any], team: int) -> None:
        self.team = team
        self.width, self.height = public["board"]["width"], public["board"]["height"]
        self.points = public["board"]["points"]
        self.cells = public["state"]["cells"]
        self.agents = public["state"]["agents"][team]
        self.own, self.theirs = "AB"[team], "AB"[1 - team]
        self.occupied = {tuple(c) for side in public["state"]["agents"] for c in side if c}

    def inside(self, x: int, y: int) -> bool:
        return 0 <= x < self.width and 0 <= y < self.height

    def cell(self, x: int, y: int) -> str:
        return self.cells[y][x]

    def neighbours(self, x: int, y: int):
        return [(x + dx, y + dy) for dx, dy in NEIGHBOURS if self.inside(x + dx, y + dy)]


def random_bot(public: dict[str, Any], team: int, rng: random.Random,
               budget: float | None = None) -> list[dict]:
    view = View(public, team)
    actions = []
    for agent, position in enumerate(view.agents):
        if position is None:
            free = [(x, y) for y in range(view.height) for x in range(view.width)
                    if view.cell(x, y) != view.theirs and (x, y) not in view.occupied]
            x, y = rng.choice(free)
            actions.append({"agent": agent, "type": "put", "x": x, "y": y})
            continue
        options = view.neighbours(*position)
        x, y = rng.choice(options)
        kind = "remove" if view.cell(x, y) == view.theirs else "move"
        actions.append({"agent": agent, "type": kind, "x": x, "y": y})
    return actions


def greedy_bot(public: dict[str, Any], team: int, rng: random.Random,
               budget: float | None = None) -> list[dict]:
    """Each agent walks the ring around the most valuable centre near it. An agent whose
    action lost a conflict last turn (the other team wanted the same cell: two such bots
    on a symmetric board want the same cells every turn, and played a whole match of
    nothing) tries elsewhere this turn, half the time: the two teams' own dice part them
    within a few turns."""
    view = View(public, team)
    centres = _centres(view)
    claimed: set[tuple[int, int]] = set()
    lost = _lost_conflicts(public, team)
    actions = []
    for agent, position in enumerate(view.agents):
        elsewhere = agent in lost and rng.random() < 0.5
        centre = _best_centre(centres, position, claimed | (lost[agent] if elsewhere
                                                            else set()), rng)
        if centre is None:
            continue
        claimed.update((centre[0] + dx, centre[1] + dy) for dx, dy in RING + [(0, 0)])
        action = _step_towards_ring(view, agent, position, centre,
                                    lost.get(agent, set()) if elsewhere else set())
        if action:
            actions.append(action)
    return actions


def _lost_conflicts(public: dict[str, Any], team: int) -> dict[int, set[tuple[int, int]]]:
    """The cells each of the team's agents aimed at last turn and lost in a conflict,
    with the centres of the rings they were for (the cells around them)."""
    if not public.get("actions"):
        return {}
    outcomes = public["actions"][-1]["outcomes"]
    lost: dict[int, set[tuple[int, int]]] = {}
    for outcome in outcomes[team] if team < len(outcomes) else ():
        if outcome.get("result") == "conflict" and "x" in outcome:
            x, y = outcome["x"], outcome["y"]
            lost[outcome["agent"]] = {(x + dx, y + dy) for dx, dy in RING + [(0, 0)]}
    return lost


def _centre_value(view: View, x: int, y: int) -> float | None:
    """What enclosing (x, y) with a 3x3 ring would gain; None if it cannot be done."""
    if not (1 <= x < view.width - 1 and 1 <= y < view.height - 1):
        return None
    if view.cell(x, y) in (view.own.lower(), view.own):
        return None
    ring = [(x + dx, y + dy) for dx, dy in RING]
    built = sum(view.cell(rx, ry) == view.own for rx, ry in ring)
    new_walls = sum(view.points[ry][rx] for rx, ry in ring if view.cell(rx, ry) != view.own)
    return 3 * abs(view.points[y][x]) + 4 * built + 0.3 * new_walls


def _centres(view: View) -> list[tuple[int, int, float]]:
    """Every centre a ring could enclose, with its value, in the board's reading order:
    worked out once a turn, for all the team's agents."""
    centres = []
    for y in range(1, view.height - 1):
        for x in range(1, view.width - 1):
            value = _centre_value(view, x, y)
            if value is not None:
                centres.append((x, y, value))
    return centres


def _best_centre(centres, position, claimed, rng):
    best, best_score = None, None
    for x, y, value in centres:
        if (x, y) in claimed:
            continue
        distance = 0 if position is None else max(abs(x - position[0]), abs(y - position[1]))
        score = value - 4 * max(distance - 1, 0) + rng.random() * 0.01
        if best_score is None or score > best_score:
            best, best_score = (x, y), score
    return best


def _distance(a, b) -> int:
    return max(abs(a[0] - b[0]), abs(a[1] - b[1]))


def _step_towards_ring(view: View, agent: int, position, centre,
                       avoid: set = frozenset()) -> dict | None:
    ring = [(centre[0] + dx, centre[1] + dy) for dx, dy in RING]
    missing = [cell for cell in ring if view.cell(*cell) != view.own]
    if position is None:
        spot = next((c for c in missing if view.cell(*c) != view.theirs
                     and c not in view.occupied and c not in avoid), None)
        return spot and {"agent": agent, "type": "put", "x": spot[0], "y": spot[1]}
    if not missing:
        return {"agent": agent, "type": "stay"}
    goal = min(missing, key=lambda c: (_distance(c, position), ring.index(c)))
    # never through the centre itself (walling it would spoil the enclosure)
    steps = [c for c in view.neighbours(*position) if c != centre and c not in avoid] or \
        [c for c in view.neighbours(*position) if c != centre]
    step = min(steps, key=lambda c: (_distance(c, goal), c not in ring))
    if view.cell(*step) == view.theirs:
        return {"agent": agent, "type": "remove", "x": step[0], "y": step[1]}
    if step in view.occupied:
        return {"agent": agent, "type": "stay"}
    return {"agent": agent, "type": "move", "x": step[0], "y": step[1]}



# --- levels 3 and 4: the rules try each candidate (matches/bots/search.py) -------------


def position(public: dict[str, Any]) -> KakomimasuState:
    """The rules' position from a public state (the board and the latest view)."""
    board = make_board(public["board"]["points"])
    rows = [row.encode().translate(_CODES) for row in public["state"]["cells"]]
    cells = np.zeros(board.points.shape, dtype=np.int8)
    cells[1:-1, 1:-1] = np.frombuffer(b"".join(rows), dtype=np.int8).reshape(
        board.height, board.width)
    agents = tuple(tuple(tuple(cell) if cell else None for cell in side)
                   for side in public["state"]["agents"])
    return KakomimasuState(public["state"]["turn"], board, cells, agents)


_CODES = bytes.maketrans(b".ABab", bytes(range(5)))


def _candidates(public: dict[str, Any], state: KakomimasuState, team: int, agent: int,
                taken: set) -> list[dict]:
    """On the board: stay, or a move or a removal next to the agent; off it, a put on
    one of the six most valuable free cells. None aims at a cell in `taken`."""
    view = View(public, team)
    at = view.agents[agent]
    if at is None:
        free = [(view.points[y][x], x, y) for y in range(view.height) for x in range(view.width)
                if view.cell(x, y) == "." and (x, y) not in view.occupied
                and (x, y) not in taken]
        free.sort(reverse=True)
        return [{"agent": agent, "type": "put", "x": x, "y": y} for _, x, y in free[:6]]
    found = [{"agent": agent, "type": "stay"}]
    for x, y in view.neighbours(*at):
        if (x, y) in taken:
            continue
        here = view.cell(x, y)
        if here in "AB":
            found.append({"agent": agent, "type": "remove", "x": x, "y": y})
        if here != view.theirs:
            found.append({"agent": agent, "type": "move", "x": x, "y": y})
    return found


GRID = search.Grid(
    rules=RULES, position=position, candidates=_candidates,
    target=lambda state, team, action: (action["x"], action["y"]) if "x" in action else None,
    totals=lambda state: [score["total"] for score in scores(state)],
    agents=lambda state, team: len(state.agents[team]))


def tactical_bot(public: dict[str, Any], team: int, rng: random.Random,
               budget: float | None = None) -> list[dict]:
    """Level 3: the greedy plan, each agent's action changed where the resolved turn gains
    clearly more (a wall of theirs taken off that opens their land, a collision avoided,
    a put where theirs would not collide), expecting the other team to play greedy."""
    expected = greedy_bot(public, 1 - team, random.Random(rng.random()))
    return search.improve(GRID, public, team, rng, greedy_bot(public, team, rng), expected,
                          keep_bonus=search.mean_point(public))


# --- level 4: the anytime search (search.anytime) and its quick policy ----------------
#
# The quick policy ("taker") reads the rules' state directly, since the search plays it
# for both teams many times a turn: each agent takes the free cell next to it worth
# most (a neutral cell for its points; the other team's territory for its points and
# what they lose), or takes the other team's valuable wall off, and when nothing next
# to it is worth anything, walks over its own cells towards the best free cell near
# it; an agent off the board is put on the best free cell. Two agents of a team never
# aim at one cell. Territory is left to the search: the rules count it in every
# playout, so a move that closes a ring is found worth its cells.

_BOARDS: dict[int, tuple[Any, list[list[int]], list[tuple[int, int, int]]]] = {}


def _board_data(board) -> tuple[list[list[int]], list[tuple[int, int, int]]]:
    """The padded points as lists, and the cells (value, x, y) best first."""
    found = _BOARDS.get(id(board))
    if found is None or found[0] is not board:
        points = board.points.tolist()
        order = sorted(((points[y + 1][x + 1], x, y) for y in range(board.height)
                        for x in range(board.width)), reverse=True)
        if len(_BOARDS) > 32:
            _BOARDS.clear()
        found = _BOARDS[id(board)] = (board, points, order)
    return found[1], found[2]


def _taker(state: KakomimasuState, team: int, rng: random.Random) -> list[dict]:
    """The quick policy (see above)."""
    board = state.board
    points, order = _board_data(board)
    cells = state.cells.tolist()
    width, height = board.width, board.height
    own_wall, their_wall, their_land = 1 + team, 2 - team, 4 - team
    occupied = {cell for side in state.agents for cell in side if cell}
    aimed: set = set()
    actions = []
    for agent, at in enumerate(state.agents[team]):
        if at is None:  # one of the best free cells (by chance: the other team's
            # policy wants them too, and two puts on one cell both fail)
            spots = []
            for _, x, y in order:
                if (x, y) not in aimed and (x, y) not in occupied \
                        and cells[y + 1][x + 1] != their_wall and cells[y + 1][x + 1] != own_wall:
                    spots.append((x, y))
                    if len(spots) == 3:
                        break
            if spots:
                x, y = rng.choice(spots)
                aimed.add((x, y))
                actions.append({"agent": agent, "type": "put", "x": x, "y": y})
            continue
        ax, ay = at
        best, best_value = None, 0.0
        for dx, dy in NEIGHBOURS:
            x, y = ax + dx, ay + dy
            if not (0 <= x < width and 0 <= y < height) or (x, y) in aimed \
                    or (x, y) in occupied:
                continue
            code, p = cells[y + 1][x + 1], points[y + 1][x + 1]
            if code == 0:
                value, kind = p, "move"
            elif code == their_land:
                value, kind = p + abs(p), "move"
            elif code == their_wall:
                value, kind = 0.9 * p, "remove"
            else:
                continue
            value += rng.random()
            if value > best_value:
                best, best_value = (kind, x, y), value
        if best is None:
            best = _towards_free(cells, points, width, height, at, aimed, occupied,
                                 own_wall, their_wall)
        if best is None:
            continue
        kind, x, y = best
        aimed.add((x, y))
        actions.append({"agent": agent, "type": kind, "x": x, "y": y})
    return actions


def _towards_free(cells, points, width, height, at, aimed, occupied, own_wall, their_wall):
    """A step over the team's own cells towards the best free cell within three."""
    ax, ay = at
    goal, goal_value = None, 0.0
    for y in range(max(0, ay - 3), min(height, ay + 4)):
        for x in range(max(0, ax - 3), min(width, ax + 4)):
            code = cells[y + 1][x + 1]
            if code in (own_wall, their_wall, own_wall + 2) or (x, y) in occupied:
                continue
            value = points[y + 1][x + 1] - 2 * max(abs(x - ax), abs(y - ay))
            if value > goal_value:
                goal, goal_value = (x, y), value
    if goal is None:
        return None
    steps = [(ax + dx, ay + dy) for dx, dy in NEIGHBOURS
             if 0 <= ax + dx < width and 0 <= ay + dy < height
             and (ax + dx, ay + dy) not in aimed and (ax + dx, ay + dy) not in occupied
             and cells[ay + dy + 1][ax + dx + 1] != their_wall]
    if not steps:
        return None
    x, y = min(steps, key=lambda c: (max(abs(c[0] - goal[0]), abs(c[1] - goal[1])),
                                     -points[c[1] + 1][c[0] + 1]))
    return "move", x, y


def _options(state: KakomimasuState, team: int, agent: int) -> list[dict]:
    """Every action worth trying: on the board, stay, each move (not onto the other
    team's wall) and each removal of their wall; off it, a put on one of the ten best
    free cells."""
    board = state.board
    points, order = _board_data(board)
    cells = state.cells
    at = state.agents[team][agent]
    their_wall = 2 - team
    if at is None:
        occupied = {cell for side in state.agents for cell in side if cell}
        found = []
        for _, x, y in order:
            if cells[y + 1, x + 1] in (0, 3, 4) and (x, y) not in occupied:
                found.append({"agent": agent, "type": "put", "x": x, "y": y})
                if len(found) == 10:
                    break
        return found
    found = [{"agent": agent, "type": "stay"}]
    ax, ay = at
    for dx, dy in NEIGHBOURS:
        x, y = ax + dx, ay + dy
        if 0 <= x < board.width and 0 <= y < board.height:
            kind = "remove" if cells[y + 1, x + 1] == their_wall else "move"
            found.append({"agent": agent, "type": kind, "x": x, "y": y})
    return found


PLAYOUT = search.Playout(policy=_taker, options=_options)


def searching_bot(public: dict[str, Any], team: int, rng: random.Random,
                  budget: float | None = None) -> list[dict]:
    """Level 4: the anytime search (matches/bots/search.py) over the quick policy, with
    `budget` seconds (a fixed quick amount of work without one)."""
    state = position(public)
    return search.anytime(GRID, PLAYOUT, state, team, rng, public["turns"] - state.turn,
                          budget)


BOTS = {"random": random_bot, "greedy": greedy_bot, "tactical": tactical_bot,
        "searching": searching_bot}
LEVELS = ("random", "greedy", "tactical", "searching")  # levels 1 to 4, weakest first
