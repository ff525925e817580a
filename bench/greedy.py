"""Level 4 against plain programs of our own: python bench/greedy.py [--games 8]
[--game kakomimasu|procon2020] [--budget 1.0] [--opponent greedy|a4]

The opponents here are not the project's bots: they are the simple programs a team
would write first, to check that the strongest built-in level is worth practising
against.

- `kakomimasu_greedy`: each agent takes the best free cell next to it (a neutral
  cell or the other team's territory, by its points, more where it closes a 3x3 ring
  of the team's walls around a cell), takes the other team's best wall off when that
  is worth more, and otherwise walks over its own walls towards the best free cell
  near it; agents off the board are put on the best free cells.
- `kakomimasu_a4_like`: written from a reading of the behaviour of the community
  sample AI "a4" (kakomimasu/client-deno, client_a4.ts), in our own words and code,
  not a copy: agents are put on the highest-valued cells of the board in order (from
  a random offset into that order); a placed agent looks at its eight neighbours not
  yet aimed at by a team-mate and goes for the one with the highest point value after
  a bonus of 10 for the other team's territory and 5 for a neutral cell (the other
  team's walls count their plain value, and are removed rather than entered); it never
  steps onto its own walls or territory unless every neighbour is, then moves at
  random.
- `quick` (option): level 4 itself without a budget, its quick fixed amount of work,
  to see what the budget's time buys.
- `procon_greedy`: each agent steps to the neighbour worth most: a treasure still
  lying there first, then the points of a cell not yet its team's, an opponent tile
  worth taking off; when nothing around is worth anything it walks towards the
  nearest valuable cell.

Level 4 plays each board twice (both sides) against the opponent, with `--budget`
seconds a move. Prints per board kind: wins, draws, losses, mean margin (level 4's
total minus the opponent's), and level 4's think time a move (p50 / p99). One
process: the machine is shared.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
from functools import partial
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

NEIGHBOURS = [(dx, dy) for dy in (-1, 0, 1) for dx in (-1, 0, 1) if (dx, dy) != (0, 0)]


# --- Kakomimasu opponents -------------------------------------------------------------


def _k_setup(public: dict[str, Any], team: int):
    board = public["board"]
    width, height, points = board["width"], board["height"], board["points"]
    cells = public["state"]["cells"]
    agents = public["state"]["agents"][team]
    occupied = {tuple(c) for side in public["state"]["agents"] for c in side if c}
    return width, height, points, cells, agents, occupied


def kakomimasu_greedy(public: dict[str, Any], team: int, rng: random.Random) -> list[dict]:
    """The plain greedy program (see the module docstring)."""
    width, height, points, cells, agents, occupied = _k_setup(public, team)
    own, theirs = "AB"[team], "AB"[1 - team]

    def inside(x, y):
        return 0 <= x < width and 0 <= y < height

    def free(x, y):  # a cell an agent may wall by stepping on it
        return cells[y][x] not in (own, theirs)

    def ring_bonus(x, y):  # walling (x, y) closes a 3x3 ring around a neighbour
        bonus = 0
        for dx, dy in NEIGHBOURS:
            cx, cy = x + dx, y + dy
            if not (1 <= cx < width - 1 and 1 <= cy < height - 1):
                continue
            if cells[cy][cx] in (own, own.lower()):
                continue
            ring = [(cx + ex, cy + ey) for ex, ey in NEIGHBOURS]
            if all(cells[ry][rx] == own for rx, ry in ring if (rx, ry) != (x, y)):
                bonus += abs(points[cy][cx])
        return bonus

    aimed: set[tuple[int, int]] = set()
    actions = []
    best_free = sorted(((points[y][x], x, y) for y in range(height) for x in range(width)
                        if cells[y][x] == "." and (x, y) not in occupied), reverse=True)
    for agent, at in enumerate(agents):
        if at is None:
            for _, x, y in best_free:
                if (x, y) not in aimed:
                    aimed.add((x, y))
                    actions.append({"agent": agent, "type": "put", "x": x, "y": y})
                    break
            continue
        best, best_value = None, None
        for dx, dy in NEIGHBOURS:
            x, y = at[0] + dx, at[1] + dy
            if not inside(x, y) or (x, y) in aimed:
                continue
            if free(x, y) and (x, y) not in occupied:
                value, kind = points[y][x] + ring_bonus(x, y), "move"
            elif cells[y][x] == theirs and (x, y) not in occupied:
                value, kind = points[y][x] * 0.8, "remove"
            else:
                continue
            value += rng.random() * 0.01
            if value > 0 and (best_value is None or value > best_value):
                best, best_value = (kind, x, y), value
        if best is None:  # walk over own walls towards the best free cell near
            goal, goal_value = None, None
            for y in range(max(0, at[1] - 4), min(height, at[1] + 5)):
                for x in range(max(0, at[0] - 4), min(width, at[0] + 5)):
                    if free(x, y) and (x, y) not in occupied and (x, y) not in aimed:
                        value = points[y][x] - 2 * max(abs(x - at[0]), abs(y - at[1]))
                        if goal_value is None or value > goal_value:
                            goal, goal_value = (x, y), value
            steps = [(at[0] + dx, at[1] + dy) for dx, dy in NEIGHBOURS
                     if inside(at[0] + dx, at[1] + dy) and (at[0] + dx, at[1] + dy) not in aimed
                     and (at[0] + dx, at[1] + dy) not in occupied
                     and cells[at[1] + dy][at[0] + dx] != theirs]
            if goal is None or not steps:
                actions.append({"agent": agent, "type": "stay"})
                continue
            x, y = min(steps, key=lambda c: max(abs(c[0] - goal[0]), abs(c[1] - goal[1])))
            best = ("move", x, y)
        kind, x, y = best
        aimed.add((x, y))
        actions.append({"agent": agent, "type": kind, "x": x, "y": y})
    return actions


def kakomimasu_a4_like(public: dict[str, Any], team: int, rng: random.Random) -> list[dict]:
    """The a4-like program (see the module docstring)."""
    width, height, points, cells, agents, occupied = _k_setup(public, team)
    theirs = "AB"[1 - team]
    order = sorted(((points[y][x], x, y) for y in range(height) for x in range(width)),
                   key=lambda item: -item[0])
    offset = rng.randrange(len(agents))
    planned: set[tuple[int, int]] = set()
    actions = []
    for agent, at in enumerate(agents):
        if at is None:
            _, x, y = order[(agent + offset) % len(order)]
            actions.append({"agent": agent, "type": "put", "x": x, "y": y})
            continue
        options = []
        for dx, dy in NEIGHBOURS:
            x, y = at[0] + dx, at[1] + dy
            if not (0 <= x < width and 0 <= y < height) or (x, y) in planned:
                continue
            here = cells[y][x]
            if here == theirs.lower():
                options.append((points[y][x] + 10, "move", x, y))
            elif here == ".":
                options.append((points[y][x] + 5, "move", x, y))
            elif here == theirs:
                options.append((points[y][x], "remove", x, y))
        if options:
            options.sort(key=lambda item: -item[0])  # stable: the first of equals
            _, kind, x, y = options[0]
            actions.append({"agent": agent, "type": kind, "x": x, "y": y})
            planned.add(tuple(at))
            if kind == "move":
                planned.add((x, y))
            continue
        while True:
            dx, dy = rng.choice(NEIGHBOURS)
            x, y = at[0] + dx, at[1] + dy
            if 0 <= x < width and 0 <= y < height:
                break
        actions.append({"agent": agent, "type": "move", "x": x, "y": y})
        planned.add((x, y))
    return actions


# --- Procon 2020 opponent ---------------------------------------------------------------


def procon_greedy(public: dict[str, Any], team: int, rng: random.Random) -> list[dict]:
    """The plain greedy program of Procon 2020 (see the module docstring)."""
    board = public["board"]
    width, height, points = board["width"], board["height"], board["points"]
    cells = public["state"]["cells"]
    agents = public["state"]["agents"][team]
    others = {tuple(c) for c in public["state"]["agents"][1 - team]}
    own, theirs = "AB"[team], "AB"[1 - team]
    taken = _taken_treasures(public)
    treasures = {(t["x"], t["y"]): t["point"] for t in board.get("treasures", [])
                 if (t["x"], t["y"]) not in taken}

    def worth(x, y):
        if not (0 <= x < width and 0 <= y < height) or cells[y][x] == "#":
            return None
        if cells[y][x] == theirs:
            return 0.9 * points[y][x]
        if cells[y][x] == own:
            return 0.0
        return 2 * treasures.get((x, y), 0) + points[y][x]

    aimed: set[tuple[int, int]] = set()
    actions = []
    for agent, (ax, ay) in enumerate(agents):
        best, best_value = None, None
        for dx, dy in NEIGHBOURS:
            x, y = ax + dx, ay + dy
            value = worth(x, y)
            if value is None or (x, y) in aimed or (x, y) in others:
                continue
            value += rng.random() * 0.01
            if best_value is None or value > best_value:
                best, best_value = (dx, dy), value
        if best is not None and best_value <= 0.5:  # nothing here: towards the best near
            goal, goal_value = None, None
            for y in range(max(0, ay - 5), min(height, ay + 6)):
                for x in range(max(0, ax - 5), min(width, ax + 6)):
                    value = worth(x, y)
                    if value is not None and cells[y][x] != own:
                        value -= 2 * max(abs(x - ax), abs(y - ay))
                        if goal_value is None or value > goal_value:
                            goal, goal_value = (x, y), value
            if goal is not None:
                steps = [(dx, dy) for dx, dy in NEIGHBOURS if worth(ax + dx, ay + dy) is not None
                         and (ax + dx, ay + dy) not in aimed and (ax + dx, ay + dy) not in others]
                if steps:
                    best = min(steps, key=lambda d: max(abs(ax + d[0] - goal[0]),
                                                        abs(ay + d[1] - goal[1])))
        if best is None:
            actions.append({"agent": agent, "type": "stay"})
            continue
        x, y = ax + best[0], ay + best[1]
        aimed.add((x, y))
        kind = "remove" if cells[y][x] == theirs else "move"
        actions.append({"agent": agent, "type": kind, "dx": best[0], "dy": best[1]})
    return actions


def _taken_treasures(public: dict[str, Any]) -> set[tuple[int, int]]:
    """The treasure cells some agent has stepped on: tiled cells once were walked on,
    and a treasure is taken by the first move onto it."""
    board = public["board"]
    cells = public["state"]["cells"]
    found = set()
    for t in board.get("treasures", []):
        if cells[t["y"]][t["x"]] in "AB":
            found.add((t["x"], t["y"]))
    for side in public["state"]["agents"]:
        for x, y in side:
            found.add((x, y))
    return found


OPPONENTS = {("kakomimasu", "greedy"): kakomimasu_greedy,
             ("kakomimasu", "a4"): kakomimasu_a4_like,
             ("procon2020", "greedy"): procon_greedy}


# --- the bench ------------------------------------------------------------------------


def places(game: str, randoms: int, turns: list[int]) -> list[tuple[str, str, dict, int, int]]:
    """(kind, name, board, agents, turns): the public boards, then random ones."""
    from matches.boards.specs import board_spec_public, public_boards
    from matches.rules import rules_for

    rules, found = rules_for(game), []
    for name in public_boards(game):
        board, hints = board_spec_public(game, name)
        kind = name.split("-")[0] if name.startswith("island") else name
        found.append((kind, name, board, hints.get("agents", 6), hints.get("turns", 30)))
    for seed in range(randoms):
        board, hints = rules.random_board(1000 + seed)
        board = rules.parse_board(board)
        size = "large" if board["width"] * board["height"] >= 300 else "small"
        found.append((f"random {size}", f"random {1000 + seed}", board,
                      hints.get("agents", 6), turns[seed % len(turns)]))
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", action="append", help="kakomimasu, procon2020 (repeatable)")
    parser.add_argument("--opponent", default="greedy",
                        help="greedy (both games), a4 (Kakomimasu), or quick (level 4 "
                             "without a budget, to see what the budget buys)")
    parser.add_argument("--randoms", type=int, default=6, help="random boards a game")
    parser.add_argument("--budget", type=float, default=None, help="level 4's seconds a move")
    parser.add_argument("--turns", default="20,40,60", help="turns of the random boards")
    parser.add_argument("--only", help="only boards whose name starts so")
    parser.add_argument("--max-turns", type=int, default=None, help="cut long matches")
    options = parser.parse_args()
    from matches.bots import arena, bots_for, levels

    games = options.game or ["kakomimasu", "procon2020"]
    turns = [int(t) for t in options.turns.split(",")]
    for game in games:
        opponent = OPPONENTS.get((game, options.opponent))
        if options.opponent == "quick":  # level 4 itself without a budget: what time buys
            opponent = bots_for(game)[levels(game)[3]]
        if opponent is None:
            continue
        top = bots_for(game)[levels(game)[3]]
        level4 = partial(top, budget=options.budget)
        rows: dict[str, list] = {}
        for kind, name, board, agents, count in places(game, options.randoms, turns):
            if options.only and not name.startswith(options.only):
                continue
            if options.max_turns:
                count = min(count, options.max_turns)
            for side in (0, 1):
                players = (level4, opponent) if side == 0 else (opponent, level4)
                played = arena.play_match(game, board, agents, count, players,
                                          seed=f"{name}-{side}")
                totals = [score["total"] for score in played.scores]
                margin = totals[side] - totals[1 - side]
                winner = played.result["winner"]
                outcome = "draw" if winner is None else ("won" if winner == side else "lost")
                print(f"  {game} {name} ({board['width']}x{board['height']}, {agents} agents, "
                      f"{count} turns) side {side}: {outcome} by {margin:+d}", flush=True)
                rows.setdefault(kind, []).append((outcome, margin, played.think[side]))
        print(f"{game} level 4 v {options.opponent}, budget {options.budget}")
        print(f"{'board kind':<14} {'won':>4} {'drawn':>5} {'lost':>4} {'margin':>7}  "
              f"{'think p50':>9} {'p99':>8}")
        for kind, results in rows.items():
            outcomes = [r[0] for r in results]
            think = sorted(t for r in results for t in r[2])
            p99 = think[min(len(think) - 1, int(len(think) * 0.99))]
            print(f"{kind:<14} {outcomes.count('won'):>4} {outcomes.count('draw'):>5} "
                  f"{outcomes.count('lost'):>4} {statistics.mean(r[1] for r in results):>+7.1f}  "
                  f"{statistics.median(think) * 1000:>7.1f}ms {p99 * 1000:>6.1f}ms", flush=True)


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        raise SystemExit(130) from None
