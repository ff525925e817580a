"""match-record/1 and timeline/1 (docs/formats.md): parse, validate, write, compare.

A record that is not well formed is refused with a `RecordError` whose message is
one line naming the field and the problem. Actions are only checked for shape (an
object); what an odd action means is the rules' business (an `invalid` result).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from matches.rules import GAMES, rules_for
from matches.rules.checks import (
    MAX_SIDE,
    MAX_TURNS,
    RecordError,
    as_list,
    as_object,
    as_text,
    plain_strings,
    require,
    team_names,
    whole,
)
from matches.rules.marks import MarkError, read_marks

__all__ = ["MAX_SIDE", "MAX_TURNS", "MatchRecord", "RecordError", "first_difference",
           "parse_record", "parse_timeline", "dump_json"]

RECORD_FORMAT = "match-record/1"
TIMELINE_FORMAT = "timeline/1"


@dataclass(frozen=True)
class MatchRecord:
    game: str
    board: dict[str, Any]
    agents: int
    turns: int
    teams: tuple[dict[str, str], dict[str, str]]
    actions: list[list[list[dict[str, Any]]]] = field(default_factory=list)
    title: str = ""
    # the teams' debug output by turn (docs/formats.md, "Debug"); None: the record has none
    debug: dict[str, list[dict[str, Any]]] | None = None

    def to_json(self) -> dict[str, Any]:
        document = {
            "format": RECORD_FORMAT,
            "game": self.game,
            "title": self.title,
            "board": self.board,
            "agents": self.agents,
            "turns": self.turns,
            "teams": [dict(team) for team in self.teams],
            "actions": self.actions,
        }
        if self.debug is not None:
            document["debug"] = self.debug
        return document


def _load(source: str | bytes | Mapping) -> tuple[Any, str | None]:
    """The document, and the JSON text it was read from (None for a Mapping)."""
    if isinstance(source, Mapping):
        return source, None
    try:
        if isinstance(source, (bytes, bytearray)):  # decoded as json.loads decodes bytes
            source = source.decode(json.detect_encoding(source), "surrogatepass")
        return json.loads(source, parse_constant=_no_constant), source
    except RecursionError:
        raise RecordError("not valid JSON: nested too deeply") from None
    except ValueError as error:  # bad JSON or UTF-8, or a number too long to read
        raise RecordError(f"not valid JSON: {error}") from None


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


# --- match records -----------------------------------------------------------------


def parse_record(source: str | bytes | Mapping) -> MatchRecord:
    data, text = _load(source)
    data = as_object(data, "record")
    if data.get("format") != RECORD_FORMAT:
        found = json.dumps(data.get("format"))
        raise RecordError(f'format: expected "{RECORD_FORMAT}", got {found}')
    plain_strings(data, text)  # nothing that could not be stored or written out again
    game = as_text(require(data, "game"), "game")
    if game not in GAMES:
        known = ", ".join(GAMES)
        raise RecordError(f"game: unknown game {json.dumps(game)} (known: {known})")
    rules = rules_for(game)
    board = rules.parse_board(as_object(require(data, "board"), "board"))
    agents = rules.check_agents(require(data, "agents"), board)
    turns = whole(require(data, "turns"), "turns", 1, MAX_TURNS)
    return MatchRecord(
        game=game,
        board=board,
        agents=agents,
        turns=turns,
        teams=_teams(require(data, "teams")),
        actions=_actions(data.get("actions", []), turns, fresh=text is not None),
        title=as_text(data.get("title", ""), "title"),
        debug=_debug(data.get("debug"), turns),
    )


DEBUG_TEXT = 64 * 1024  # characters of a team's debug text in one turn of a record


def _debug(value: Any, turns: int) -> dict[str, list[dict[str, Any]]] | None:
    """The optional debug part: by turn ("1" .. turns), each team's text and marks."""
    if value is None:
        return None
    by_turn = as_object(value, "debug")
    parsed = {}
    for key, entries in by_turn.items():
        if not (key.isdigit() and 1 <= int(key) <= turns):
            raise RecordError(f"debug: {json.dumps(key)} is not a turn from 1 to {turns}")
        said = []
        for index, entry in enumerate(as_list(entries, f"debug.{key}")):
            where = f"debug.{key}[{index}]"
            entry = as_object(entry, where)
            team = whole(require(entry, "team", f"{where}."), f"{where}.team", 0, 1)
            text = as_text(entry.get("text", ""), f"{where}.text")
            if len(text) > DEBUG_TEXT:
                raise RecordError(f"{where}.text: at most {DEBUG_TEXT} characters")
            try:
                marks = read_marks(entry.get("marks"), f"{where}.marks")
            except MarkError as error:
                raise RecordError(str(error)) from None
            said.append({"team": team, "text": text, "marks": marks})
        parsed[key] = said
    return parsed


def _teams(value: Any) -> tuple[dict[str, str], dict[str, str]]:
    teams = as_list(value, "teams")
    if len(teams) != 2:
        raise RecordError(f"teams: expected 2 teams, got {len(teams)}")
    names = team_names([require(as_object(team, f"teams[{index}]"), "name", f"teams[{index}].")
                        for index, team in enumerate(teams)])
    return {"name": names[0]}, {"name": names[1]}


def _actions(value: Any, turns: int, fresh: bool) -> list[list[list[dict[str, Any]]]]:
    """Every turn's two lists of action objects. `fresh`: the document was just read
    from its text, so its objects are plain dicts that nothing else holds, kept as
    they are; a Mapping handed in has each action copied."""
    actions = as_list(value, "actions")
    if len(actions) > turns:
        raise RecordError(f"actions: {len(actions)} turns of actions, but turns is {turns}")
    parsed = []
    for t, turn in enumerate(actions):
        if type(turn) is not list:
            as_list(turn, f"actions[{t}]")
        if len(turn) != 2:
            raise RecordError(f"actions[{t}]: expected 2 team lists, got {len(turn)}")
        parsed.append([_team_actions(team, t, i, fresh) for i, team in enumerate(turn)])
    return parsed


_DICT = {dict}


def _team_actions(value: Any, t: int, i: int, fresh: bool) -> list[dict[str, Any]]:
    if type(value) is list:
        if fresh and {*map(type, value)} <= _DICT:  # a JSON list of objects, kept
            return value
    else:
        as_list(value, f"actions[{t}][{i}]")
    return [dict(as_object(a, f"actions[{t}][{i}][{n}]")) for n, a in enumerate(value)]


def dump_json(document: Mapping[str, Any]) -> str:
    """Compact one-line-per-document JSON, as the vectors are written."""
    return json.dumps(document, ensure_ascii=False)


# --- timelines ------------------------------------------------------------------


def parse_timeline(source: str | bytes | Mapping) -> dict[str, Any]:
    data, text = _load(source)
    data = as_object(data, "timeline")
    if data.get("format") != TIMELINE_FORMAT:
        found = json.dumps(data.get("format"))
        raise RecordError(f'format: expected "{TIMELINE_FORMAT}", got {found}')
    plain_strings(data, text)
    as_text(require(data, "game"), "game")
    states = as_list(require(data, "states"), "states")
    for index, state in enumerate(states):
        state = as_object(state, f"states[{index}]")
        for key in ("turn", "cells", "agents", "scores"):
            require(state, key, f"states[{index}].")
    return dict(data)


def first_difference(expected: Mapping, actual: Mapping) -> str | None:
    """Where two timelines stop agreeing (docs/formats.md), or None when they agree."""
    if len(expected["states"]) != len(actual["states"]):
        return f"{len(expected['states'])} states expected, {len(actual['states'])} computed"
    game = expected.get("game")
    keys = rules_for(game).outcome_keys if game in GAMES else ()
    for want, got in zip(expected["states"], actual["states"], strict=True):
        problem = _state_difference(want, got, keys)
        if problem:
            return f"turn {want['turn']}: {problem}"
    if expected.get("result") != actual.get("result"):
        return f"result: expected {expected.get('result')}, computed {actual.get('result')}"
    return None


def _state_difference(want: Mapping, got: Mapping, keys: tuple[str, ...]) -> str | None:
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
            for key in keys:
                if key in w and key in g and w[key] != g[key]:
                    return (f"team {team} action {index} ({_brief(w)}): {key} expected "
                            f"{w[key]!r}, computed {g[key]!r}")
    return None


def _brief(action: Mapping) -> str:
    skip = ("result", "reason", "ready", "reply")
    return " ".join(str(action[k]) for k in action if k not in skip)
