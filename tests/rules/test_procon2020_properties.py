"""Property tests on random Procon 2020 games (hypothesis), against plain readings of the rules.

The scores are recomputed from each state's cells with a breadth-first flood written
from the rules text; the transition is checked against a literal fixed-point reading
of steps 1-3 and against the cells and agents the outcomes imply.
"""

from __future__ import annotations

import json
import random
from collections import Counter, deque

from hypothesis import given, settings
from hypothesis import strategies as st

from matches.rules import rules_for
from matches.rules.records import parse_record
from matches.rules.timeline import compute_timeline

RULES = rules_for("procon2020")
STEPS = [(dx, dy) for dx in (-1, 0, 1) for dy in (-1, 0, 1) if dx or dy]


def random_record(rng: random.Random, width: int, height: int, agents: int, turns: int):
    """A game whose actions are chosen turn by turn from the true position.

    Mostly moves and removes of opponent tiles next to the agent, with silence, stays,
    moves towards other agents (conflicts, chains, swaps) and malformed actions mixed in.
    """
    cells = [(x, y) for y in range(height) for x in range(width)]
    rng.shuffle(cells)
    obstacles = cells[: rng.randint(0, width * height // 12)]
    rest = cells[len(obstacles):]
    start = rest[: 2 * agents]
    treasures = rng.sample(rest, rng.randint(0, 4))  # may share a start cell
    board = {
        "width": width,
        "height": height,
        "points": [[rng.randint(-16, 16) if rng.random() < 0.3 else rng.randint(0, 16)
                    for _ in range(width)] for _ in range(height)],
        "obstacles": [list(c) for c in obstacles],
        "treasures": [{"x": x, "y": y, "point": rng.randint(8, 16)} for x, y in treasures],
        "start": [[list(c) for c in start[:agents]], [list(c) for c in start[agents:]]],
    }
    record = {"format": "match-record/1", "game": "procon2020", "board": board,
              "agents": agents, "turns": turns, "teams": [{"name": "A"}, {"name": "B"}]}
    state = RULES.initial_state(parse_record(record))
    actions = []
    for _ in range(turns):
        view = RULES.view(state)
        turn = [team_actions(rng, view, team) for team in (0, 1)]
        state, _ = RULES.resolve_turn(state, turn)
        actions.append(turn)
    return parse_record(record | {"actions": actions})


def team_actions(rng: random.Random, view: dict, team: int) -> list[dict]:
    rows, height, width = view["cells"], len(view["cells"]), len(view["cells"][0])
    others = {tuple(c) for t in view["agents"] for c in t}
    opponent = "AB"[1 - team]
    orders = []
    for agent, (x, y) in enumerate(view["agents"][team]):
        roll = rng.random()
        if roll < 0.08:
            continue  # silent: the agent stays
        if roll < 0.14:
            orders.append({"agent": agent, "type": "stay", "dx": 0, "dy": 0})
            continue
        near = [(dx, dy) for dx, dy in STEPS if 0 <= x + dx < width and 0 <= y + dy < height]
        crowded = [(dx, dy) for dx, dy in near if (x + dx, y + dy) in others]
        hostile = [(dx, dy) for dx, dy in near if rows[y + dy][x + dx] == opponent]
        if hostile and rng.random() < 0.5:
            dx, dy = rng.choice(hostile)
            orders.append({"agent": agent, "type": "remove", "dx": dx, "dy": dy})
            continue
        dx, dy = rng.choice(crowded if crowded and rng.random() < 0.3 else STEPS)
        orders.append({"agent": agent, "type": "move", "dx": dx, "dy": dy})
        if rng.random() < 0.04:
            orders[-1] = rng.choice(malformed(agent, len(view["agents"][team])))
    if orders and rng.random() < 0.03:
        orders.append(dict(orders[0]))  # two actions for one agent
    rng.shuffle(orders)
    return orders


def malformed(agent: int, agents: int) -> list[dict]:
    return [
        {"agent": agent, "type": "move", "dx": 2, "dy": 0},
        {"agent": agent, "type": "remove", "dx": 0, "dy": 0},
        {"agent": agent, "type": "move", "dx": 1},
        {"agent": agent, "type": "remove", "dx": "1", "dy": 0},
        {"agent": agent, "type": "jump", "dx": 1, "dy": 0},
        {"agent": agents, "type": "move", "dx": 1, "dy": 0},
        {"agent": agent, "type": "stay", "dx": 5, "dy": 5},
    ]


@st.composite
def games(draw):
    rng = draw(st.randoms(use_true_random=False))
    width, height = draw(st.integers(10, 13)), draw(st.integers(10, 13))
    return random_record(rng, width, height, draw(st.integers(2, 8)), draw(st.integers(1, 30)))


# --- scores from the cells, by the book --------------------------------------------------


def scores_by_the_book(cells: list[str], points: list[list[int]], team: int) -> tuple[int, int]:
    """(tile, area) of one team: the rules text's 4-neighbour flood from every edge cell."""
    height, width = len(cells), len(cells[0])
    own = "AB"[team]
    tile = sum(points[y][x] for y in range(height) for x in range(width) if cells[y][x] == own)
    open_cells = {(x, y) for y in range(height) for x in range(width) if cells[y][x] != own}
    edge = [(x, y) for x, y in open_cells if x in (0, width - 1) or y in (0, height - 1)]
    reached, queue = set(edge), deque(edge)
    while queue:
        x, y = queue.popleft()
        for nxt in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)):
            if nxt in open_cells and nxt not in reached:
                reached.add(nxt)
                queue.append(nxt)
    area = sum(abs(points[y][x]) for x, y in open_cells - reached if cells[y][x] != "#")
    return tile, area


@settings(max_examples=120, deadline=None)
@given(games())
def test_scores_equal_a_breadth_first_flood_of_the_cells(record):
    points = record.board["points"]
    for state in compute_timeline(record)["states"]:
        for team in (0, 1):
            score = state["scores"][team]
            assert (score["tile"], score["area"]) == scores_by_the_book(
                state["cells"], points, team)


# --- the transition, by the book --------------------------------------------------------------


def ok_by_the_book(view: dict, actions: list[list[dict]]) -> list[list[bool]]:
    """Which actions succeed: steps 1-3 read literally, step 3 as an iterated fixed point."""
    rows, places = view["cells"], view["agents"]
    height, width = len(rows), len(rows[0])
    ok = [[False] * len(team_actions) for team_actions in actions]
    claims = {}  # (team, index) -> (kind, (team, agent), target), for valid moves and removes
    for team, team_actions in enumerate(actions):
        named = Counter(a.get("agent") for a in team_actions if type(a.get("agent")) is int)
        for index, action in enumerate(team_actions):
            agent, kind = action.get("agent"), action.get("type")
            if type(agent) is not int or not 0 <= agent < len(places[team]) or named[agent] > 1:
                continue
            if kind == "stay":
                ok[team][index] = True
                continue
            dx, dy = action.get("dx"), action.get("dy")
            if kind not in ("move", "remove") or type(dx) is not int or type(dy) is not int:
                continue
            if max(abs(dx), abs(dy)) != 1:
                continue
            x, y = places[team][agent][0] + dx, places[team][agent][1] + dy
            if not (0 <= x < width and 0 <= y < height) or rows[y][x] == "#":
                continue
            if (rows[y][x] == "AB"[1 - team]) != (kind == "remove"):
                continue
            claims[(team, index)] = (kind, (team, agent), (x, y))
    targets = Counter(target for _, _, target in claims.values())
    claims = {key: claim for key, claim in claims.items() if targets[claim[2]] == 1}
    standing = {tuple(cell): (team, agent) for team, cells in enumerate(places)
                for agent, cell in enumerate(cells)}
    moves = {who: target for kind, who, target in claims.values() if kind == "move"}
    fate = dict.fromkeys(moves)  # None: not decided yet
    changed = True
    while changed:
        changed = False
        for who, target in moves.items():
            holder = standing.get(target)
            if fate[who] is None:
                if holder is None or fate.get(holder) is True:
                    fate[who], changed = True, True
                elif holder not in moves or fate[holder] is False:
                    fate[who], changed = False, True
    arrivals = {target for who, target in moves.items() if fate[who]}
    for (team, index), (kind, who, target) in claims.items():
        if kind == "move":
            ok[team][index] = fate[who] is True
        else:
            holder = standing.get(target)
            ok[team][index] = target not in arrivals and (holder is None or bool(fate.get(holder)))
    return ok


@settings(max_examples=120, deadline=None)
@given(games())
def test_outcomes_agree_with_a_literal_reading_of_the_steps(record):
    states = compute_timeline(record)["states"]
    for before, after, actions in zip(states, states[1:], record.actions, strict=False):
        expected = ok_by_the_book(before, actions)
        got = [[o["result"] == "ok" for o in team] for team in after["outcomes"]]
        assert got == expected, f"turn {after['turn']}"
        for team in after["outcomes"]:
            for outcome in team:
                assert ("reason" in outcome) == (outcome["result"] != "ok")
                assert outcome["result"] in ("ok", "invalid", "conflict")


@settings(max_examples=120, deadline=None)
@given(games())
def test_cells_agents_and_treasures_change_exactly_as_the_outcomes_say(record):
    states = compute_timeline(record)["states"]
    treasures = {(t["x"], t["y"]): t["point"] for t in record.board["treasures"]}
    found = [0, 0]
    for before, after, actions in zip(states, states[1:], record.actions, strict=False):
        rows = [list(row) for row in before["cells"]]
        places = [[list(c) for c in team] for team in before["agents"]]
        for team, outcomes in enumerate(after["outcomes"]):
            for action, outcome in zip(actions[team], outcomes, strict=True):
                if outcome["result"] != "ok" or action["type"] == "stay":
                    continue
                x, y = before["agents"][team][action["agent"]]
                x, y = x + action["dx"], y + action["dy"]
                if action["type"] == "remove":
                    rows[y][x] = "."
                    continue
                rows[y][x] = "AB"[team]
                places[team][action["agent"]] = [x, y]
                found[team] += treasures.pop((x, y), 0)
        assert ["".join(row) for row in rows] == after["cells"]
        assert places == after["agents"]
        assert [s["treasure"] for s in after["scores"]] == found
        standing = [tuple(c) for team in places for c in team]
        assert len(set(standing)) == len(standing)
        for team, letter in enumerate("AB"):
            assert all(rows[y][x] == letter for x, y in places[team])


@settings(max_examples=40, deadline=None)
@given(games())
def test_the_same_record_always_gives_the_same_timeline(record):
    first = json.dumps(compute_timeline(record))
    again = compute_timeline(parse_record(json.dumps(record.to_json())))
    assert json.dumps(again) == first


def test_random_games_exercise_every_kind_of_outcome():
    """The generator is worth its salt: areas, treasures, conflicts and invalid actions occur."""
    record = random_record(random.Random(2020), 20, 20, 8, 80)
    timeline = compute_timeline(record)
    results = Counter(o["result"] for s in timeline["states"][1:]
                      for team in s["outcomes"] for o in team)
    assert results["ok"] > 600 and results["conflict"] > 50 and results["invalid"] > 50
    scores = [score for s in timeline["states"] for score in s["scores"]]
    assert any(score["area"] > 0 for score in scores)
    assert any(score["treasure"] > 0 for score in scores)
    assert timeline["result"]["winner"] in (0, 1, None)
