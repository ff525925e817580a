"""Built-in Procon 2020 players for the demo: they see only the public API state.

Every agent acts each turn with a direction (dx, dy). `random_bot` steps at random
(taking an opponent tile off where it steps on one); `greedy_bot` sends each agent to
the neighbour worth most: a treasure still lying there, then the points of a cell not
yet its team's (more where it joins the team's tiles, which builds areas), or an
opponent tile worth taking off; two agents of a team never aim at one cell.
`tactical_bot` (level 3) improves that plan where a turn and the next gain more;
`searching_bot` (level 4) searches with the time it is given (matches/bots/search.py
`anytime`), its playouts played by a quick policy read off the rules' state, against
the other team's turn as level 3 would play it.
"""

from __future__ import annotations

import random
from typing import Any

from matches.bots import clock, search
from matches.rules.procon2020 import Procon2020Rules, Procon2020State

GAME = "procon2020"
RULES = Procon2020Rules()
DIRECTIONS = [(dx, dy) for dy in (-1, 0, 1) for dx in (-1, 0, 1) if (dx, dy) != (0, 0)]


class View:
    """The parts of a public match state a bot reasons about."""

    def __init__(self, public: dict[str, Any], team: int) -> None:
        board = public["board"]
        self.width, self.height = board["width"], board["height"]
        self.points = board["points"]
        self.treasures = {(t["x"], t["y"]): t["point"] for t in board.get("treasures", [])}
        self.cells = public["state"]["cells"]
        self.agents = public["state"]["agents"][team]
        self.own, self.theirs = "AB"[team], "AB"[1 - team]

    def cell(self, x: int, y: int) -> str | None:
        """The cell's character, None off the field."""
        if 0 <= x < self.width and 0 <= y < self.height:
            return self.cells[y][x]
        return None

    def action(self, agent: int, dx: int, dy: int) -> dict[str, Any]:
        x, y = self.agents[agent]
        kind = "remove" if self.cell(x + dx, y + dy) == self.theirs else "move"
        return {"agent": agent, "type": kind, "dx": dx, "dy": dy}


def random_bot(public: dict[str, Any], team: int, rng: random.Random,
               budget: float | None = None) -> list[dict]:
    view = View(public, team)
    actions = []
    for agent, at in enumerate(view.agents):
        if at is None:
            continue
        open_ = [(dx, dy) for dx, dy in DIRECTIONS
                 if view.cell(at[0] + dx, at[1] + dy) not in (None, "#")]
        if open_:
            actions.append(view.action(agent, *rng.choice(open_)))
    return actions


def greedy_bot(public: dict[str, Any], team: int, rng: random.Random,
               budget: float | None = None) -> list[dict]:
    view = View(public, team)
    aimed: set[tuple[int, int]] = set()
    actions = []
    for agent, at in enumerate(view.agents):
        if at is None:
            continue
        best, best_value = None, None
        for dx, dy in DIRECTIONS:
            x, y = at[0] + dx, at[1] + dy
            if (x, y) in aimed:
                continue
            value = _worth(view, x, y)
            if value is not None and (best_value is None or value > best_value):
                best, best_value = (dx, dy), value + rng.random() * 0.01
        if best is not None:
            aimed.add((at[0] + best[0], at[1] + best[1]))
            actions.append(view.action(agent, *best))
    return actions


def _worth(view: View, x: int, y: int) -> float | None:
    """What stepping to (or taking the tile off) the cell gains; None if it cannot."""
    here = view.cell(x, y)
    if here in (None, "#"):
        return None
    if here == view.theirs:
        return 0.9 * view.points[y][x]  # taking it off: their loss
    if here == view.own:
        return 0.1  # walking over own tiles, to reach new ones
    joins = sum(view.cell(x + dx, y + dy) == view.own for dx, dy in DIRECTIONS)
    return view.treasures.get((x, y), 0) * 2 + view.points[y][x] + 0.5 * joins



# --- levels 3 and 4: the rules try each candidate (matches/bots/search.py) -------------


def _candidates(public: dict[str, Any], state: Procon2020State, team: int, agent: int,
                taken: set) -> list[dict]:
    """Stay, or a move or a removal towards each open neighbour not in `taken`."""
    view = View(public, team)
    view.agents = [list(at) for at in state.agents[team]]
    x, y = view.agents[agent]
    found = [{"agent": agent, "type": "stay"}]
    for dx, dy in DIRECTIONS:
        if (x + dx, y + dy) not in taken and view.cell(x + dx, y + dy) not in (None, "#"):
            found.append(view.action(agent, dx, dy))
    return found


def _target(state: Procon2020State, team: int, action: dict) -> tuple[int, int] | None:
    if action.get("type") not in ("move", "remove"):
        return None
    x, y = state.agents[team][action["agent"]]
    return x + action["dx"], y + action["dy"]


GRID = search.Grid(
    rules=RULES, position=search.replayed, candidates=_candidates, target=_target,
    totals=lambda state: [sum(score) for score in state.scores],
    agents=lambda state, team: len(state.agents[team]))


def tactical_bot(public: dict[str, Any], team: int, rng: random.Random,
               budget: float | None = None) -> list[dict]:
    """Level 3: the greedy plan, each agent's action changed where the resolved turn gains
    clearly more (an area closed or broken, a collision avoided), expecting the other
    team to play greedy."""
    expected = greedy_bot(public, 1 - team, random.Random(rng.random()))
    return search.improve(GRID, public, team, rng, greedy_bot(public, team, rng), expected,
                          keep_bonus=0, rollout=(1, greedy_bot))


# --- level 4: the anytime search (search.anytime) and its quick policy ----------------
#
# The quick policy reads the rules' state directly, since the search plays it for both
# teams many times a turn: each agent steps to the neighbour worth most (a treasure
# still lying there, then a cell not yet its team's by its points and JOINS more for
# each of its team's tiles around it, since tiles together enclose areas, or the other
# team's tile taken off when it is worth it); when nothing next to it is worth anything it
# walks towards the best cell within four. Two agents of a team never aim at one cell,
# nor at a cell where an agent of the other team stands. Areas are left to the search:
# the rules count them in every playout.

JOINS = 0.5  # points a neighbouring own tile adds to a cell's worth
_BOARDS: dict[int, tuple[Any, list[list[int]]]] = {}


def _points(board) -> list[list[int]]:
    """The padded point values as rows of ints (0 on obstacles and the frame)."""
    found = _BOARDS.get(id(board))
    if found is None or found[0] is not board:
        rows = board.points.reshape(board.height + 2, board.width + 2).astype(int).tolist()
        if len(_BOARDS) > 32:
            _BOARDS.clear()
        found = _BOARDS[id(board)] = (board, rows)
    return found[1]


def _quick(state: Procon2020State, team: int, rng: random.Random) -> list[dict]:
    """The quick policy (see above)."""
    board = state.board
    points = _points(board)
    cells = state.cells.tolist()
    width, height = board.width, board.height
    own, theirs = 1 + team, 2 - team
    treasures = {cell: board.treasures[cell] for cell in state.treasures}
    others = set(state.agents[1 - team])
    aimed: set = set()
    actions = []
    for agent, (ax, ay) in enumerate(state.agents[team]):
        best, best_value = None, 0.0
        for dx, dy in DIRECTIONS:
            x, y = ax + dx, ay + dy
            if (x, y) in aimed or (x, y) in others:
                continue
            code = cells[y + 1][x + 1]
            if code == 0:
                if x < 0 or y < 0 or x >= width or y >= height:
                    continue
                value, kind = points[y + 1][x + 1] + 2 * treasures.get((x, y), 0), "move"
                if JOINS:  # next to the team's tiles: towards areas
                    value += JOINS * sum(cells[y + 1 + ey][x + 1 + ex] == own
                                         for ex, ey in DIRECTIONS)
            elif code == theirs:
                value, kind = 0.9 * points[y + 1][x + 1], "remove"
            else:
                continue
            value += rng.random()
            if value > best_value:
                best, best_value = (kind, dx, dy), value
        if best is None:
            best = _towards(cells, points, treasures, width, height, (ax, ay), aimed, others,
                            own)
        if best is None:
            continue
        kind, dx, dy = best
        aimed.add((ax + dx, ay + dy))
        actions.append({"agent": agent, "type": kind, "dx": dx, "dy": dy})
    return actions


def _towards(cells, points, treasures, width, height, at, aimed, others, own):
    """A step towards the best cell not yet the team's within four."""
    ax, ay = at
    goal, goal_value = None, 0.0
    for y in range(max(0, ay - 4), min(height, ay + 5)):
        for x in range(max(0, ax - 4), min(width, ax + 5)):
            code = cells[y + 1][x + 1]
            if code == own or code == 3:
                continue
            value = points[y + 1][x + 1] + 2 * treasures.get((x, y), 0) \
                - 2 * max(abs(x - ax), abs(y - ay))
            if value > goal_value:
                goal, goal_value = (x, y), value
    if goal is None:
        return None
    steps = [(dx, dy) for dx, dy in DIRECTIONS
             if 0 <= ax + dx < width and 0 <= ay + dy < height
             and cells[ay + dy + 1][ax + dx + 1] in (0, own)
             and (ax + dx, ay + dy) not in aimed and (ax + dx, ay + dy) not in others]
    if not steps:
        return None
    dx, dy = min(steps, key=lambda d: max(abs(ax + d[0] - goal[0]), abs(ay + d[1] - goal[1])))
    return "move", dx, dy


def _options(state: Procon2020State, team: int, agent: int) -> list[dict]:
    """Stay, and a move or a removal towards each open neighbour."""
    cells = state.cells
    ax, ay = state.agents[team][agent]
    width, height, theirs = state.board.width, state.board.height, 2 - team
    found = [{"agent": agent, "type": "stay"}]
    for dx, dy in DIRECTIONS:
        x, y = ax + dx, ay + dy
        if 0 <= x < width and 0 <= y < height and cells[y + 1, x + 1] != 3:
            kind = "remove" if cells[y + 1, x + 1] == theirs else "move"
            found.append({"agent": agent, "type": kind, "dx": dx, "dy": dy})
    return found


PLAYOUT = search.Playout(policy=_quick, options=_options)


def searching_bot(public: dict[str, Any], team: int, rng: random.Random,
                  budget: float | None = None) -> list[dict]:
    """Level 4: the anytime search (matches/bots/search.py) over the quick policy, with
    `budget` seconds (a fixed quick amount of work without one), expecting the other
    team's next turn as `_guess` says; the playouts look further with fewer agents (3
    turns for 4 agents or more, up to 6 for 2), where a turn costs less. The guess is
    made within the budget: the search gets what is left of it."""

    started = clock.now()
    state = search.replayed(public)
    agents = len(state.agents[team])
    expected = _guess(public, team, random.Random(rng.random()))
    if budget is not None:
        budget = max(0.02, budget - (clock.now() - started))
    return search.anytime(GRID, PLAYOUT, state, team, rng, public["turns"] - state.turn,
                          budget, depth=max(3, min(6, 12 // agents)), expected=expected)


# The other team's next turn, guessed. A program that checks its turn against the
# rules (as level 3 does) is guessed best by level 3's plan, a plain greedy program by
# the greedy level's: measured against level 3 over 80 ladder matches, level 4 scored
# 78 % expecting level 3's turn and 59 % expecting the greedy one's, but expecting
# level 3's lost on a random field to a plain greedy program that it beat before. So
# each turn both are asked what the other team would have done in each of the last
# LOOK_BACK turns, and level 3 guesses the next only where it guessed more of its agents'
# actions than the greedy level (the greedy level otherwise; level 3 on the first turn,
# with nothing to compare). Measured with it: 82 % against level 3 (bench/ladder.py, 40
# matches), and against the plain greedy of bench/greedy.py 8 of 12 won, mean margins
# +166 (large fields) and +116 (small); before it 9 of 12, +168 and +128. Level 3
# on ties gave 88 % against level 3 but margins of +29 and +68 against the plain greedy.


def _guess(public: dict[str, Any], team: int, rng: random.Random) -> list[dict]:
    history = public.get("actions") or []
    hits = [0, 0]  # level 3's guesses that came true, the greedy level's
    for back in range(1, min(LOOK_BACK, len(history)) + 1):
        before = {**public, "actions": history[:-back]}
        before["state"] = RULES.view(search.replayed(before))
        done = {_said(action) for action in history[-back]["outcomes"][1 - team]}
        for index, guesser in enumerate((tactical_bot, greedy_bot)):
            said = guesser(before, 1 - team, random.Random(rng.random()))
            hits[index] += sum(_said(action) in done for action in said)
    if hits[1] > hits[0] + MARGIN:
        return greedy_bot(public, 1 - team, rng)
    return tactical_bot(public, 1 - team, rng)


LOOK_BACK = 2  # the turns whose guesses are compared
MARGIN = -1  # the greedy level is believed unless level 3 guessed more


def _said(action: dict) -> tuple:
    return action.get("agent"), action.get("type"), action.get("dx", 0), action.get("dy", 0)


BOTS = {"random": random_bot, "greedy": greedy_bot, "tactical": tactical_bot,
        "searching": searching_bot}
LEVELS = ("random", "greedy", "tactical", "searching")  # levels 1 to 4, weakest first
