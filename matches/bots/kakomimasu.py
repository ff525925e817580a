"""Built-in Kakomimasu players for the demo: they see only the public API state.

`random_bot` wanders; `greedy_bot` walls small rings around valuable cells to
take territory. Both are pure: a public state and a team index in, actions out.
"""

from __future__ import annotations

import random
from typing import Any

GAME = "kakomimasu"
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


def random_bot(public: dict[str, Any], team: int, rng: random.Random) -> list[dict]:
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


def greedy_bot(public: dict[str, Any], team: int, rng: random.Random) -> list[dict]:
    """Each agent walks the ring around the most valuable centre near it."""
    view = View(public, team)
    centres = _centres(view)
    claimed: set[tuple[int, int]] = set()
    actions = []
    for agent, position in enumerate(view.agents):
        centre = _best_centre(centres, position, claimed, rng)
        if centre is None:
            continue
        claimed.update((centre[0] + dx, centre[1] + dy) for dx, dy in RING + [(0, 0)])
        action = _step_towards_ring(view, agent, position, centre)
        if action:
            actions.append(action)
    return actions


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


def _step_towards_ring(view: View, agent: int, position, centre) -> dict | None:
    ring = [(centre[0] + dx, centre[1] + dy) for dx, dy in RING]
    missing = [cell for cell in ring if view.cell(*cell) != view.own]
    if position is None:
        spot = next((c for c in missing if view.cell(*c) != view.theirs
                     and c not in view.occupied), None)
        return spot and {"agent": agent, "type": "put", "x": spot[0], "y": spot[1]}
    if not missing:
        return {"agent": agent, "type": "stay"}
    goal = min(missing, key=lambda c: (_distance(c, position), ring.index(c)))
    # never through the centre itself (walling it would spoil the enclosure)
    steps = [c for c in view.neighbours(*position) if c != centre]
    step = min(steps, key=lambda c: (_distance(c, goal), c not in ring))
    if view.cell(*step) == view.theirs:
        return {"agent": agent, "type": "remove", "x": step[0], "y": step[1]}
    if step in view.occupied:
        return {"agent": agent, "type": "stay"}
    return {"agent": agent, "type": "move", "x": step[0], "y": step[1]}


BOTS = {"random": random_bot, "greedy": greedy_bot}
