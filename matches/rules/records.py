"""match-record/1 and timeline/1 (docs/formats.md): parse, validate, write, compare.

A record that is not well formed is refused with a `RecordError` whose message is
one line naming the field and the problem. Actions are only checked for shape (an
object); what an odd action means is the rules' business (an `invalid` result).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

RECORD_FORMAT = "match-record/1"
TIMELINE_FORMAT = "timeline/1"
MAX_SIDE = 64
MAX_TURNS = 1000


class RecordError(ValueError):
    """A match record or timeline that is not well formed; the message is one line."""


@dataclass(frozen=True)
class MatchRecord:
    game: str
    board: dict[str, Any]
    agents: int
    turns: int
    teams: tuple[dict[str, str], dict[str, str]]
    actions: list[list[list[dict[str, Any]]]] = field(default_factory=list)
    title: str = ""

    def to_json(self) -> dict[str, Any]:
        return {
            "format": RECORD_FORMAT,
            "game": self.game,
            "title": self.title,
            "board": self.board,
            "agents": self.agents,
            "turns": self.turns,
            "teams": [dict(team) for team in self.teams],
            "actions": self.actions,
        }


# --- small checks that name the field ------------------------------------------


def _load(source: str | bytes | Mapping) -> Any:
    if isinstance(source, Mapping):
        return source
    try:
        return json.loads(source)
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise RecordError(f"not valid JSON: {error}") from None


def _require(data: Mapping, key: str, where: str = "") -> Any:
    if key not in data:
        raise RecordError(f"{where}{key}: missing")
    return data[key]


def _object(value: Any, name: str) -> Mapping:
    if not isinstance(value, Mapping):
        raise RecordError(f"{name}: expected an object, got {_kind(value)}")
    return value


def _list(value: Any, name: str) -> list:
    if not isinstance(value, list):
        raise RecordError(f"{name}: expected a list, got {_kind(value)}")
    return value


def _int(value: Any, name: str, low: int, high: int) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise RecordError(f"{name}: expected a whole number, got {_kind(value)}")
    if not low <= value <= high:
        raise RecordError(f"{name}: {value} is outside {low}..{high}")
    return value


def _text(value: Any, name: str) -> str:
    if not isinstance(value, str):
        raise RecordError(f"{name}: expected a string, got {_kind(value)}")
    return value


def _kind(value: Any) -> str:
    names = {dict: "an object", list: "a list", str: "a string", bool: "a boolean"}
    if value is None:
        return "null"
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return f"the number {value}"
    return names.get(type(value), type(value).__name__)


# --- boards, one checker per game ------------------------------------------------


def _points_board(board: Mapping) -> dict[str, Any]:
    width = _int(_require(board, "width", "board."), "board.width", 1, MAX_SIDE)
    height = _int(_require(board, "height", "board."), "board.height", 1, MAX_SIDE)
    rows = _list(_require(board, "points", "board."), "board.points")
    if len(rows) != height:
        raise RecordError(f"board.points: {len(rows)} rows, expected {height} (board.height)")
    for y, row in enumerate(rows):
        _list(row, f"board.points[{y}]")
        if len(row) != width:
            raise RecordError(
                f"board.points[{y}]: {len(row)} values, expected {width} (board.width)"
            )
        for x, value in enumerate(row):
            _int(value, f"board.points[{y}][{x}]", -16, 16)
    return {"width": width, "height": height, "points": [list(row) for row in rows]}


BOARD_CHECKS: dict[str, Callable[[Mapping], dict[str, Any]]] = {
    "kakomimasu": _points_board,
}


# --- match records -----------------------------------------------------------------


def parse_record(source: str | bytes | Mapping) -> MatchRecord:
    data = _object(_load(source), "record")
    if data.get("format") != RECORD_FORMAT:
        found = json.dumps(data.get("format"))
        raise RecordError(f'format: expected "{RECORD_FORMAT}", got {found}')
    game = _text(_require(data, "game"), "game")
    if game not in BOARD_CHECKS:
        known = ", ".join(BOARD_CHECKS)
        raise RecordError(f"game: unknown game {json.dumps(game)} (known: {known})")
    board = BOARD_CHECKS[game](_object(_require(data, "board"), "board"))
    cells = board["width"] * board["height"]
    agents = _int(_require(data, "agents"), "agents", 1, cells)
    turns = _int(_require(data, "turns"), "turns", 1, MAX_TURNS)
    return MatchRecord(
        game=game,
        board=board,
        agents=agents,
        turns=turns,
        teams=_teams(_require(data, "teams")),
        actions=_actions(data.get("actions", []), turns),
        title=_text(data.get("title", ""), "title"),
    )


def _teams(value: Any) -> tuple[dict[str, str], dict[str, str]]:
    teams = _list(value, "teams")
    if len(teams) != 2:
        raise RecordError(f"teams: expected 2 teams, got {len(teams)}")
    named = []
    for index, team in enumerate(teams):
        name = _text(_require(_object(team, f"teams[{index}]"), "name", f"teams[{index}]."),
                     f"teams[{index}].name")
        if not name.strip():
            raise RecordError(f"teams[{index}].name: empty")
        named.append({"name": name})
    return named[0], named[1]


def _actions(value: Any, turns: int) -> list[list[list[dict[str, Any]]]]:
    actions = _list(value, "actions")
    if len(actions) > turns:
        raise RecordError(f"actions: {len(actions)} turns of actions, but turns is {turns}")
    parsed = []
    for t, turn in enumerate(actions):
        lists = _list(turn, f"actions[{t}]")
        if len(lists) != 2:
            raise RecordError(f"actions[{t}]: expected 2 team lists, got {len(lists)}")
        parsed.append([_team_actions(team, f"actions[{t}][{i}]") for i, team in enumerate(lists)])
    return parsed


def _team_actions(value: Any, name: str) -> list[dict[str, Any]]:
    return [dict(_object(a, f"{name}[{i}]")) for i, a in enumerate(_list(value, name))]


def dump_json(document: Mapping[str, Any]) -> str:
    """Compact one-line-per-document JSON, as the vectors are written."""
    return json.dumps(document, ensure_ascii=False)


# --- timelines ------------------------------------------------------------------


def parse_timeline(source: str | bytes | Mapping) -> dict[str, Any]:
    data = _object(_load(source), "timeline")
    if data.get("format") != TIMELINE_FORMAT:
        found = json.dumps(data.get("format"))
        raise RecordError(f'format: expected "{TIMELINE_FORMAT}", got {found}')
    _text(_require(data, "game"), "game")
    states = _list(_require(data, "states"), "states")
    for index, state in enumerate(states):
        state = _object(state, f"states[{index}]")
        for key in ("turn", "cells", "agents", "scores"):
            _require(state, key, f"states[{index}].")
    return dict(data)


def first_difference(expected: Mapping, actual: Mapping) -> str | None:
    """Where two timelines stop agreeing (docs/formats.md), or None when they agree."""
    if len(expected["states"]) != len(actual["states"]):
        return f"{len(expected['states'])} states expected, {len(actual['states'])} computed"
    for want, got in zip(expected["states"], actual["states"], strict=True):
        problem = _state_difference(want, got)
        if problem:
            return f"turn {want['turn']}: {problem}"
    if expected.get("result") != actual.get("result"):
        return f"result: expected {expected.get('result')}, computed {actual.get('result')}"
    return None


def _state_difference(want: Mapping, got: Mapping) -> str | None:
    for y, (row_w, row_g) in enumerate(zip(want["cells"], got["cells"], strict=False)):
        for x, (w, g) in enumerate(zip(row_w, row_g, strict=False)):
            if w != g:
                return f"cell ({x}, {y}) expected {w!r}, computed {g!r}"
    if want["cells"] != got["cells"]:
        return "the board's size differs"
    if want["agents"] != got["agents"]:
        return f"agents expected {want['agents']}, computed {got['agents']}"
    if want["scores"] != got["scores"]:
        return f"scores expected {want['scores']}, computed {got['scores']}"
    for team, (list_w, list_g) in enumerate(
        zip(want.get("outcomes", []), got.get("outcomes", []), strict=False)
    ):
        for index, (w, g) in enumerate(zip(list_w, list_g, strict=False)):
            if (w["result"] == "ok") != (g["result"] == "ok"):
                return (
                    f"team {team} action {index} ({_brief(w)}): expected {w['result']}, "
                    f"computed {g['result']} ({g.get('reason', '')})"
                )
    return None


def _brief(action: Mapping) -> str:
    return " ".join(str(action[k]) for k in action if k not in ("result", "reason"))
