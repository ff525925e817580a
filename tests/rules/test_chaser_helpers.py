"""Small CHaser positions drawn as pictures, shared by the CHaser tests (no tests here)."""

from __future__ import annotations

from matches.rules.chaser import ChaserRules, new_state, step

RULES = ChaserRules()


def board(*rows: str) -> dict:
    """A parsed board from a picture: `C` and `H` are the starts (on floor), `c`/`h` on an item."""
    start: list = [None, None]
    cells = []
    for y, row in enumerate(rows):
        for x, char in enumerate(row):
            if char in "CHch":
                start["CHch".index(char) % 2] = [x, y]
        cells.append(row.replace("C", ".").replace("H", ".").replace("c", "*").replace("h", "*"))
    return RULES.parse_board(
        {"width": len(rows[0]), "height": len(rows), "cells": cells, "start": start}
    )


def game(*rows: str, turns: int = 10):
    return new_state(board(*rows), turns)


def play(state, *moves: tuple[int, str]):
    """Steps (player, command) in order; the last step's outcome fields."""
    fields: dict = {}
    for player, command in moves:
        state, fields = step(state, player, command)
    return state, fields


def record(rows: list[str], actions: list, turns: int = 10) -> dict:
    """A match-record/1 dict on a picture; `actions` as [[cool commands], [hot commands]]."""
    return {
        "format": "match-record/1", "game": "chaser", "title": "test",
        "board": board(*rows), "agents": 1, "turns": turns,
        "teams": [{"name": "Cool"}, {"name": "Hot"}],
        "actions": [[[{"command": c} for c in cool], [{"command": c} for c in hot]]
                    for cool, hot in actions],
    }
