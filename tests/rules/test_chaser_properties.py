"""Property tests on random CHaser games (hypothesis).

Each step's digits, cells, positions and decision are recomputed here from the views
before and after the step, without the module's board code.
"""

from __future__ import annotations

from hypothesis import event, given, settings
from hypothesis import strategies as st

from matches.rules.chaser import COMMANDS, decided, end_turn, new_state, step
from matches.rules.records import parse_record
from matches.rules.timeline import compute_timeline
from tests.rules.test_chaser_helpers import RULES

CODE = {".": "0", "#": "2", "*": "3"}
WAYS = {"u": (0, -1), "d": (0, 1), "l": (-1, 0), "r": (1, 0)}


@st.composite
def games(draw):
    """(board, turns): a random map with two starts off the blocks."""
    width = draw(st.integers(1, 12))
    height = draw(st.integers(2 if width == 1 else 1, 12))  # room for two starts
    flat = draw(st.lists(st.sampled_from("......#**"), min_size=width * height,
                         max_size=width * height))
    grid = [flat[y * width:(y + 1) * width] for y in range(height)]
    cells = st.tuples(st.integers(0, width - 1), st.integers(0, height - 1))
    starts = draw(st.lists(cells, min_size=2, max_size=2, unique=True))
    for x, y in starts:
        if grid[y][x] == "#":
            grid[y][x] = draw(st.sampled_from(".*"))
    board = RULES.parse_board({"width": width, "height": height,
                               "cells": ["".join(row) for row in grid],
                               "start": [list(where) for where in starts]})
    return board, draw(st.integers(1, 20))


def draw_command(data, view, player) -> str:
    """Any command; a walk onto a block or off the map only now and then (a blunder)."""
    command = data.draw(st.sampled_from(COMMANDS))
    (x, y), (dx, dy) = view["agents"][player][0], WAYS[command[1]]
    if command[0] == "w" and block(view, x + dx, y + dy) and data.draw(st.integers(0, 7)):
        return "l" + command[1]
    return command


def on_board(view, x, y) -> bool:
    return 0 <= y < len(view["cells"]) and 0 <= x < len(view["cells"][0])


def digit(view, x, y, other) -> str:
    if [x, y] == other:
        return "1"
    return CODE[view["cells"][y][x]] if on_board(view, x, y) else "2"


def square(view, cx, cy, other) -> str:
    return "".join(digit(view, cx + dx, cy + dy, other) for dy in (-1, 0, 1) for dx in (-1, 0, 1))


def block(view, x, y) -> bool:
    return not on_board(view, x, y) or view["cells"][y][x] == "#"


def trapped(view, x, y) -> bool:
    return all(block(view, x + dx, y + dy) for dx, dy in WAYS.values())


def expected_decision(view, player, me, other):
    """Rules 1-4 after the player's action, from the view."""
    if block(view, *me):
        return {"winner": 1 - player, "decided_by": "buried"}
    if block(view, *other):
        if trapped(view, *me):
            return {"winner": None, "decided_by": "draw"}
        return {"winner": player, "decided_by": "capture"}
    mine, theirs = trapped(view, *me), trapped(view, *other)
    if mine and theirs:
        return {"winner": None, "decided_by": "draw"}
    if mine or theirs:
        return {"winner": player if theirs else 1 - player, "decided_by": "trapped"}
    return None


def expected_step(before, player, command):
    """(cells, positions, items, digits) after the command, from the view before it."""
    cells = [list(row) for row in before["cells"]]
    items = [score["items"] for score in before["scores"]]
    (x, y), other = before["agents"][player][0], before["agents"][1 - player][0]
    kind, (dx, dy) = command[0], WAYS[command[1]]
    me = [x, y]
    if kind == "w" and [x + dx, y + dy] != other:
        me = [x + dx, y + dy]
        if on_board(before, *me) and cells[me[1]][me[0]] == "*":
            cells[me[1]][me[0]], cells[y][x] = ".", "#"
            items[player] += 1
    if kind == "p" and on_board(before, x + dx, y + dy):
        cells[y + dy][x + dx] = "#"
    after = {"cells": ["".join(row) for row in cells]}
    if kind in "wp":
        digits = square(after, *me, other)
    elif kind == "l":
        digits = square(after, x + 2 * dx, y + 2 * dy, other)
    else:
        digits = "".join(digit(after, x + k * dx, y + k * dy, other) for k in range(1, 10))
    return after["cells"], me, other, items, digits


@settings(max_examples=300, deadline=None)
@given(games(), st.data())
def test_the_digits_describe_the_cells_around_the_player(game, data):
    board, turns = game
    state = new_state(board, turns)
    sent, commands = [], []
    for turn in range(turns):
        for player in (0, 1):
            before = RULES.view(state)
            if decided(state):
                command = data.draw(st.sampled_from(COMMANDS))
                after_state, fields = step(state, player, command)
                assert after_state == state and fields["result"] == "invalid"
                commands.append(command)
                continue
            command = draw_command(data, before, player)
            commands.append(command)
            me = before["agents"][player][0]
            other = before["agents"][1 - player][0]
            state, fields = step(state, player, command)
            after = RULES.view(state)
            cells, where, other, items, digits = expected_step(before, player, command)
            assert fields["ready"] == "1" + square(before, *me, other)
            assert after["cells"] == cells
            assert after["agents"][player] == [where if on_board(after, *where) else None]
            assert after["agents"][1 - player] == [other]
            assert after["scores"] == [{"items": items[0]}, {"items": items[1]}]
            decision = expected_decision(after, player, where, other)
            assert (RULES.result(state) if decided(state) else None) == decision
            last = player == 1 and turn == turns - 1
            assert fields["reply"] == ("0" if decision or last else "1") + digits
            sent.append((fields["ready"], fields["reply"]))
        state = end_turn(state)
    assert RULES.is_over(state, turns)
    event(f"decided by {RULES.result(state)['decided_by']}")
    event(f"{len(sent) // 5 * 5}+ steps")

    # The same commands as a record replay to the same digits and result.
    actions = [[[{"command": commands[2 * t]}], [{"command": commands[2 * t + 1]}]]
               for t in range(turns)]
    record = parse_record({"format": "match-record/1", "game": "chaser", "board": board,
                           "agents": 1, "turns": turns, "actions": actions,
                           "teams": [{"name": "Cool"}, {"name": "Hot"}]})
    timeline = compute_timeline(record)
    replayed = [(o["ready"], o["reply"]) for s in timeline["states"][1:]
                for team in s["outcomes"] for o in team if o["result"] == "ok"]
    assert replayed == sent
    assert timeline["result"] == RULES.result(state)
