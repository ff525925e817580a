"""Property tests on random Kakomimasu games (hypothesis)."""

from __future__ import annotations

import json
from collections import deque

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from matches.rules.kakomimasu import KakomimasuRules, _recompute_territory
from matches.rules.records import parse_record
from matches.rules.timeline import compute_timeline

RULES = KakomimasuRules()
KINDS = ["put", "move", "move", "move", "remove", "remove", "stay"]


@st.composite
def games(draw):
    """A match record whose actions are drawn turn by turn from the true position."""
    width, height = draw(st.integers(4, 10)), draw(st.integers(4, 10))
    agents, turns = draw(st.integers(1, 5)), draw(st.integers(1, 25))
    points = [[draw(st.integers(-16, 16)) for _ in range(width)] for _ in range(height)]
    record = parse_record({
        "format": "match-record/1", "game": "kakomimasu",
        "board": {"width": width, "height": height, "points": points},
        "agents": agents, "turns": turns, "teams": [{"name": "A"}, {"name": "B"}],
    })
    state = RULES.initial_state(record)
    actions = []
    for _ in range(turns):
        turn = [draw_team_actions(draw, state, team) for team in (0, 1)]
        state, _ = RULES.resolve_turn(state, turn)
        actions.append(turn)
    return parse_record(record.to_json() | {"actions": actions})


def draw_team_actions(draw, state, team):
    orders = []
    for agent, cell in enumerate(state.agents[team]):
        kind = draw(st.sampled_from(KINDS))
        if kind == "stay" or draw(st.integers(0, 9)) == 0:
            continue  # silence: the agent stays
        if cell is None or kind == "put":
            x = draw(st.integers(-1, state.board.width))
            y = draw(st.integers(-1, state.board.height))
        else:
            x, y = cell[0] + draw(st.integers(-1, 1)), cell[1] + draw(st.integers(-1, 1))
        orders.append({"agent": agent, "type": kind, "x": x, "y": y})
    if orders and draw(st.integers(0, 19)) == 0:
        orders.append(dict(orders[0]))  # now and then a duplicate order
    return orders


def walls_and_territory(cells: list[str], points: list[list[int]], team: int) -> dict:
    wall_char, territory_char = "AB"[team], "ab"[team]
    wall = sum(v for row, values in zip(cells, points, strict=True)
               for c, v in zip(row, values, strict=True) if c == wall_char)
    territory = sum(abs(v) for row, values in zip(cells, points, strict=True)
                    for c, v in zip(row, values, strict=True) if c == territory_char)
    return {"wall": wall, "territory": territory, "total": wall + territory}


@settings(max_examples=150, deadline=None)
@given(games())
def test_agents_stand_on_their_own_walls_and_never_share_a_cell(record):
    for state in compute_timeline(record)["states"]:
        placed = [tuple(c) for team in state["agents"] for c in team if c is not None]
        assert len(placed) == len(set(placed))
        for team, letter in enumerate("AB"):
            for cell in state["agents"][team]:
                if cell is not None:
                    assert state["cells"][cell[1]][cell[0]] == letter


@settings(max_examples=150, deadline=None)
@given(games())
def test_scores_equal_what_the_cells_say(record):
    points = record.board["points"]
    for state in compute_timeline(record)["states"]:
        expected = [walls_and_territory(state["cells"], points, team) for team in (0, 1)]
        assert state["scores"] == expected


@settings(max_examples=60, deadline=None)
@given(games())
def test_the_same_record_always_gives_the_same_timeline(record):
    first = json.dumps(compute_timeline(record))
    again = compute_timeline(parse_record(json.dumps(record.to_json())))
    assert json.dumps(again) == first


# --- territory against a plain reading of the rules text ----------------------------


def territory_by_the_book(cells: np.ndarray) -> np.ndarray:
    """The rules document's algorithm, cell by cell with a BFS, for comparison."""
    height, width = cells.shape
    unresolved = {(y, x) for y in range(height) for x in range(width)}
    owner = {}
    while unresolved:
        enclosed = [flood_misses(cells, unresolved, wall) for wall in (1, 2)]
        for cell in list(unresolved):
            by = [team for team in (0, 1) if cell in enclosed[team]]
            if len(by) < 2:
                unresolved.discard(cell)
                if by:
                    owner[cell] = 3 + by[0]
    result = cells.copy()
    for (y, x), code in owner.items():
        if cells[y, x] not in (1, 2):
            result[y, x] = code
    return result


def flood_misses(cells: np.ndarray, unresolved: set, wall: int) -> set:
    height, width = cells.shape
    blocked = {(y, x) for (y, x) in unresolved if cells[y, x] == wall}
    seen, queue = {(0, 0)}, deque([(0, 0)])  # the padded frame's corner
    while queue:
        y, x = queue.popleft()
        for dy in (-1, 0, 1):
            for dx in (-1, 0, 1):
                nxt = (y + dy, x + dx)
                if (0 <= nxt[0] < height and 0 <= nxt[1] < width
                        and nxt not in seen and nxt not in blocked):
                    seen.add(nxt)
                    queue.append(nxt)
    return {(y, x) for y in range(height) for x in range(width)} - seen


@st.composite
def ringed_boards(draw):
    """Noise, then rings of either team nested one inside the other, some of them broken."""
    width, height = draw(st.integers(3, 14)), draw(st.integers(3, 14))
    noise = st.sampled_from([0] * 8 + [1, 2, 3, 4])
    inner = np.array([[draw(noise) for _ in range(width)] for _ in range(height)])
    left, top = draw(st.integers(0, 1)), draw(st.integers(0, 1))
    right, bottom = width - 1 - draw(st.integers(0, 1)), height - 1 - draw(st.integers(0, 1))
    while right - left >= 2 and bottom - top >= 2:
        wall = draw(st.sampled_from([1, 2]))
        inner[top, left:right + 1] = inner[bottom, left:right + 1] = wall
        inner[top:bottom + 1, left] = inner[top:bottom + 1, right] = wall
        if draw(st.integers(0, 3)) == 0:
            inner[draw(st.integers(top, bottom)), draw(st.sampled_from([left, right]))] = 0
        step = draw(st.integers(1, 2))
        left, top, right, bottom = left + step, top + step, right - step, bottom - step
    return np.pad(inner, 1).astype(np.int8)


@settings(max_examples=400, deadline=None)
@given(ringed_boards())
def test_territory_matches_the_rules_text_on_any_board(cells):
    expected = territory_by_the_book(cells)
    _recompute_territory(cells)
    assert cells.tolist() == expected.tolist()


def winding_corridor(side: int, closed: bool) -> np.ndarray:
    """Rows of walls with a gap at alternating ends: one corridor as long as the board,
    its mouth at the top; closed, nothing inside can be reached."""
    inner = np.zeros((side, side), dtype=np.int8)
    inner[:, 0] = inner[:, -1] = inner[-1, :] = 1
    for row in range(1, side - 1, 2):
        inner[row, :] = 1
        inner[row, side - 2 if row % 4 == 1 else 1] = 0
    if closed:
        inner[0, :] = 1
    return np.pad(inner, 1)


def test_territory_follows_a_winding_corridor_to_its_end():
    for closed in (False, True):
        cells = winding_corridor(24, closed)
        expected = territory_by_the_book(cells)
        _recompute_territory(cells)
        assert cells.tolist() == expected.tolist()
        assert (cells == 3).any() == closed
