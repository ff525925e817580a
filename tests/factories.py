"""Small factories that build game positions and actions from readable pictures."""

from __future__ import annotations

import numpy as np

from matches.rules import rules_for
from matches.rules.kakomimasu import CELL_CHARS, KakomimasuState, make_board

KAKOMIMASU = rules_for("kakomimasu")
_CODES = {char: code for code, char in enumerate(".ABab")}
assert bytes(range(5)).translate(CELL_CHARS) == b".ABab"


def position(rows: list[str], a=(), b=(), points=None, agents: int | None = None):
    """A Kakomimasu position: rows of . A B a b; a/b: each agent's (x, y) or None.

    Every agent must stand on its own wall, as in a real game.
    """
    height, width = len(rows), len(rows[0])
    points = points if points is not None else [[1] * width for _ in range(height)]
    cells = np.zeros((height + 2, width + 2), dtype=np.int8)
    for y, row in enumerate(rows):
        for x, char in enumerate(row):
            cells[y + 1, x + 1] = _CODES[char]
    count = agents if agents is not None else max(len(a), len(b), 1)
    teams = tuple(tuple(cells_of) + (None,) * (count - len(cells_of)) for cells_of in (a, b))
    for team, letter in enumerate("AB"):
        for cell in teams[team]:
            assert cell is None or rows[cell[1]][cell[0]] == letter, f"{cell} is not {letter}"
    return KakomimasuState(0, make_board(points), cells, teams)


def play(state, a=(), b=()):
    """Resolve one turn; returns (new state, outcomes of team A, outcomes of team B)."""
    new_state, outcomes = KAKOMIMASU.resolve_turn(state, [list(a), list(b)])
    return new_state, outcomes[0], outcomes[1]


def board(state) -> list[str]:
    return KAKOMIMASU.view(state)["cells"]


def results(outcomes) -> list[str]:
    return [outcome["result"] for outcome in outcomes]


def put(agent, x, y):
    return {"agent": agent, "type": "put", "x": x, "y": y}


def move(agent, x, y):
    return {"agent": agent, "type": "move", "x": x, "y": y}


def remove(agent, x, y):
    return {"agent": agent, "type": "remove", "x": x, "y": y}


def stay(agent):
    return {"agent": agent, "type": "stay"}


def record_json(**overrides) -> dict:
    """A well-formed match-record/1 (the formats document's example) with overrides."""
    record = {
        "format": "match-record/1",
        "game": "kakomimasu",
        "title": "Final, field A-1",
        "board": {"width": 4, "height": 3,
                  "points": [[1, -2, 3, 0], [0, 5, 5, 1], [2, 2, -16, 16]]},
        "agents": 2,
        "turns": 3,
        "teams": [{"name": "Alpha"}, {"name": "Beta"}],
        "actions": [
            [[put(0, 0, 0)], [put(0, 3, 2), put(1, 2, 2)]],
            [[move(0, 1, 1)], []],
            [[], [remove(0, 2, 1)]],
        ],
    }
    record.update(overrides)
    return record


# --- live matches ---------------------------------------------------------------

SMALL_BOARD = {"width": 6, "height": 5, "points": [[(x + y) % 5 - 1 for x in range(6)]
                                                   for y in range(5)]}


def make_match(*, start_in: float = -1.0, strategy: float = 3600.0, transition: float = 1.0,
               turns: int = 5, agents: int = 2, teams=("Alpha", "Beta"), board=None, now=None,
               public: bool = True):
    """A match on a small board; by default turn 1's strategy step is open for an hour,
    and anyone may watch it live (`public=False`: judges and its teams only).

    Returns (match, tokens).
    """
    from datetime import timedelta

    from django.utils import timezone

    from matches.services.boards import board_store
    from matches.services.matches import match_create

    now = now or timezone.now()
    spec = board or SMALL_BOARD
    created = match_create(
        board=board_store(f"test {spec['width']}x{spec['height']}", spec, "tests",
                          "kakomimasu"),
        team_names=list(teams), agents=agents, turns=turns, strategy_seconds=strategy,
        transition_seconds=transition, start_at=now + timedelta(seconds=start_in),
        public_live=public,
    )
    return created.match, created.tokens


def submit(match, token: str, actions, turn: int) -> None:
    """A team's submission sent a second into the turn's strategy step, which must be
    accepted."""
    import json
    from datetime import timedelta

    from matches.services.submissions import Request, submission_receive

    body = json.dumps({"actions": actions}).encode()
    at = match.opens_at(turn) + timedelta(seconds=1)
    reply = submission_receive(Request(match.pk, f"Bearer {token}", body, len(body),
                                       "application/json", "127.0.0.1", at))
    assert reply.status == 202, reply.body


def make_alternating_match(*, clock: float = 900, start_in: float = -1.0,
                           teams=("Alpha", "Beta"), public: bool = True, game="blokus-duo"):
    """A match of an alternating game on chess clocks of `clock` seconds a team; by
    default it started a second ago. Returns (match, tokens)."""
    from datetime import timedelta

    from django.utils import timezone

    from matches.boards.specs import board_spec_fixed
    from matches.rules import rules_for
    from matches.services.boards import board_store
    from matches.services.matches import match_create

    spec, hints = board_spec_fixed(game)
    created = match_create(
        board=board_store(hints["name"], spec, "tests", game), team_names=list(teams),
        agents=hints["agents"], turns=rules_for(game).max_turns, strategy_seconds=0,
        transition_seconds=0, start_at=timezone.now() + timedelta(seconds=start_in),
        public_live=public, clock_seconds=clock,
    )
    return created.match, created.tokens
