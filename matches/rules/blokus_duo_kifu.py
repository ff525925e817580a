"""Blokus Duo's game records (棋譜): one 4-character move code a line, as GPCC's
programs print them; read into a match record with every move replayed, and written from
one in canonical codes.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from matches.rules.base import TEAM_LETTERS
from matches.rules.blokus_duo import BlokusDuoRules
from matches.rules.blokus_duo_board import PASS, SIZE, code_problem, judge, new_state, play
from matches.rules.checks import MAX_TURNS, RecordError


class KifuError(RecordError):
    """A game record that cannot be read or replayed; the message is one line. A kind of
    RecordError, so that code reading any record file catches one error."""


def parse_kifu(text: str) -> list[str]:
    """The codes of a game record, as written: one a line, LF or CRLF line ends,
    surrounding blanks ignored, a final line end optional."""
    lines = text.removeprefix("\ufeff").split("\n")
    if lines[-1] == "":
        lines.pop()
    codes = []
    for number, line in enumerate(lines, 1):
        code = line.strip()
        problem = code_problem(code) if code else "empty line"
        if problem:
            raise KifuError(f"line {number}: {problem}")
        codes.append(code)
    return codes


def record_from_kifu(text: str, title: str = "") -> dict[str, Any]:
    """A match-record/1 dict of a game record, every move replayed and checked:
    KifuError("line N: illegal move XXXX: <reason>") at the first illegal one."""
    codes = parse_kifu(text)
    if not codes:
        raise KifuError("line 1: no moves (the game record is empty)")
    if len(codes) > MAX_TURNS:
        raise KifuError(f"line {MAX_TURNS + 1}: more than {MAX_TURNS} lines")
    state = new_state()
    actions = []
    for number, code in enumerate(codes, 1):
        team = state.mover
        where, reason = judge(state, code)
        if reason:
            raise KifuError(f"line {number}: illegal move {code}: {reason}")
        state = play(state, team, where)
        turn: list[list[dict[str, Any]]] = [[], []]
        turn[team].append({"move": code})
        actions.append(turn)
    return {
        "format": "match-record/1",
        "game": BlokusDuoRules.game,
        "title": title,
        "board": {"width": SIZE, "height": SIZE},
        "agents": 0,
        "turns": len(codes),
        "teams": [{"name": "A"}, {"name": "B"}],
        "actions": actions,
    }


def kifu_from_record(record: Any) -> str:
    """The game record of a match record (a match-record/1 dict or a parsed
    `MatchRecord`): one canonical code per recorded turn, CRLF line ends.
    KifuError("turn N: ...") if a turn's move was not played (no move, or illegal),
    since a game record cannot say so."""
    actions = record["actions"] if isinstance(record, Mapping) else record.actions
    state = new_state()
    lines = []
    for number, turn in enumerate(actions, 1):
        team = state.mover
        sent = turn[team]
        if len(sent) != 1 or "move" not in sent[0]:
            raise KifuError(f"turn {number}: team {TEAM_LETTERS[team]} sent no single move")
        code = sent[0]["move"]
        where, reason = judge(state, code)
        if reason:
            raise KifuError(f"turn {number}: illegal move {code}: {reason}")
        lines.append(PASS if where is None else where.code())
        state = play(state, team, where)
    return "".join(line + "\r\n" for line in lines)
