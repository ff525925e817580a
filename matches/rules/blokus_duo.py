"""Blokus Duo (GPCC program contest), exactly as in docs/rules/blokus-duo.md.

The board, its pieces and which moves are legal are in blokus_duo_board.py, the game
records in blokus_duo_kifu.py; this module holds the rules object and what the screens
show of a game.

Where the rules document is silent, the conformance vectors' README decides (and
this module follows it):
- team 0 moves on odd turns, team 1 on even turns, whatever happened before; an
  illegal move is not played and the turn passes;
- a pass (`----`, or `0000`) is ok only when the mover has no legal move;
- the match is over when neither player can move, whatever `turns` says;
- outcomes echo the move as written.
Choices of this module where both are silent: a turn in which the mover sent
nothing changes nothing (no outcome; the turn passes); an action of the team not
to move is invalid; if the mover sent several actions, all are invalid.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from matches.rules import words
from matches.rules.base import (
    TEAM_LETTERS,
    Outcomes,
    Presentation,
    Ranking,
    TurnActions,
    callout,
    team_named,
)
from matches.rules.blokus_duo_board import (
    ACTION_KEYS,
    BASE_SHAPES,
    PASS,
    PIECE_LETTERS,
    PIECE_SIZES,
    POSITIONS,
    SIZE,
    START,
    BlokusDuoState,
    canonical_code,
    code_problem,
    has_legal_move,
    judge,
    mobility,
    new_state,
    orient,
    placement,
    play,
)
from matches.rules.checks import board_size, whole
from matches.rules.reasons import Reason
from matches.rules.turns import Alternating

# --- the rules object ------------------------------------------------------------


class BlokusDuoRules(Alternating, Presentation):
    game = "blokus-duo"
    # Translators: the replay's chart of each player's number of legal moves after each turn
    analysis_name = words.gettext_noop("legal moves")
    title = words.gettext_noop("Blokus Duo")  # said in the page's language where shown
    # Translators: the game in one line, for a newcomer watching the TV
    rule_line = words.gettext_noop(
        "Pieces touch their own colour at corners only; "
        "fewer squares left to place wins")
    live = True
    default_clock_seconds = 900  # GPCC: about 15 minutes of thinking a program
    fixed_board = {"width": SIZE, "height": SIZE}  # every match is played on it
    # One action as the answer API documents it (JSON Schema, for the OpenAPI document).
    action_schema = {"title": "Blokus Duo move", "type": "object", "required": ["move"],
                     "properties": {"move": {"type": "string", "minLength": 4,
                                             "maxLength": 4, "examples": ["66r3", "----"]}}}
    max_turns = 4 * len(PIECE_LETTERS)  # every piece placed, each after a pass of the other
    outcome_keys = ()
    headline_part = "remaining"  # squares still to place
    fewer_leads = True
    action_keys = ACTION_KEYS
    def amount(self, value: int) -> str:
        return words.ngettext("%(count)s square", "%(count)s squares", value) % {"count": value}

    def unit_words(self) -> str:
        return words.gettext("squares")

    def card_words(self, score: Mapping[str, int], team: int) -> str:
        return words.ngettext("%(count)s square left to place · fewer wins",
                              "%(count)s squares left to place · fewer wins",
                              score["remaining"]) % {"count": score["remaining"]}

    speaks_lines = True
    # a tournament's table by GPCC 2009's rules: a draw scores half a win; then Solkoff,
    # then SB (Sonneborn-Berger)
    ranking = Ranking(order=("score", "solkoff", "sb"),
                      tiebreaks=(("solkoff", "solkoff"), ("sb", "sb")), half_draws=True)
    # GPCC programs print their move as its 4-character code on a line of its own, and
    # read the other's the same way ("----" a pass). A line of four characters is a move
    # (a malformed one is refused as the API refuses it); any other is their own output.
    def program_move(self, line: str) -> list[dict[str, Any]] | None:
        code = line.strip()
        return [{"move": code}] if len(code) == 4 and code.isprintable() else None

    def program_line(self, outcome: Mapping[str, Any]) -> str | None:
        code = outcome.get("move")
        return None if code is None or code_problem(code) else code

    def score_said(self, score: Mapping[str, int]) -> str:
        return words.gettext("%(amount)s left to place") % {
            "amount": self.amount(score["remaining"])}

    def idle_said(self, turn: int, team: int) -> str:
        """Team A moves on odd turns, B on even ones."""
        if team == (turn - 1) % 2:
            return words.gettext("no move sent (the turn passed)")
        return words.gettext("not its move")

    def said(self, outcome: Mapping[str, Any]) -> str:
        """A move as sent and as piece and cells: "55u0 · piece u · 5 squares · 45 54 55
        56 65", "---- · pass" (a malformed one as sent)."""
        code = outcome.get("move")
        described = move_words(code)
        if described is None:
            if "move" not in outcome:
                return words.gettext("no move")
            return words.gettext("move %(code)s") % {"code": repr(code)}
        return f"{code} · {described}"

    def panel(self, state: Mapping[str, Any]) -> dict[str, Any]:
        """The team to move, each team's tray of unplaced pieces, and each move as its
        piece and the cells it covers."""
        return super().panel(state) | {
            "to_move": state["turn"] % 2,
            "trays": [[_tray_piece(letter) for letter in unplaced]
                      for unplaced in unplaced_pieces(state["cells"])],
            "moves": [[move_words(outcome.get("move")) for outcome in team]
                      for team in state.get("outcomes") or [[], []]],
        }

    def analysis(self, state: BlokusDuoState) -> list[int]:
        """Each team's legal moves in the position: how much room it has left."""
        return [mobility(state, 0), mobility(state, 1)]

    def picture_style(self) -> dict[str, Any]:
        """Each team's pieces; the start squares ringed in their team's colour while
        empty; columns and rows named as the move codes name them."""
        return {"pieces": ("A", "B"), "marked": [[list(START[0])], [list(START[1])]],
                "coordinates": POSITIONS}

    def notable(self, previous: Mapping[str, Any], state: Mapping[str, Any],
                names: Sequence[str]) -> list[tuple[float, dict[str, Any]]]:
        """A piece that takes a corner of the board, a team's last piece, or a team that
        could not move and passed (a piece placed is no news: one is, every turn)."""
        found = []
        for team, outcomes in enumerate(state.get("outcomes") or ()):
            for outcome in outcomes:
                code = outcome.get("move")
                if outcome.get("result") != "ok" or not isinstance(code, str):
                    continue
                where = placement(code)
                if where is None:
                    # Translators: a turn's callout in Blokus Duo: a team had no legal move
                    text = words.gettext("%(name)s cannot place a piece and passes")
                    found.append((8.0, callout(text % {"name": names[team]}, team)))
                    continue
                size = PIECE_SIZES[where.piece]
                cells = list(where.cells())
                corner = next((cell for cell in cells if cell in _CORNERS), None)
                if corner:
                    # Translators: a turn's callout in Blokus Duo, e.g. "Alpha's 5-square
                    # piece takes the corner"
                    text = words.ngettext(
                        "%(name)s's %(count)s-square piece takes the corner",
                        "%(name)s's %(count)s-square piece takes the corner", size)
                    found.append((6.0 + size, callout(
                        text % {"name": names[team], "count": size}, team, corner)))
                if state["scores"][team]["remaining"] == 0:
                    # Translators: a turn's callout in Blokus Duo: a team placed all its pieces
                    text = words.gettext("%(name)s places its last piece")
                    found.append((12.0, callout(text % {"name": names[team]}, team, cells[0])))
        return found

    def last_turn(self, state: Mapping[str, Any],
                  previous: Mapping[str, Any] | None = None) -> dict[str, list[Any]]:
        """The squares of the piece this turn placed, from its code; after a pass, those
        of the piece the turn before placed (if `previous` is given)."""
        marks: list[Any] = []
        for team, outcomes in enumerate(state.get("outcomes") or ()):
            for outcome in outcomes:
                code = outcome.get("move")
                where = placement(code) if outcome.get("result") == "ok" else None
                marks += [[x, y, "placed", team] for x, y in where.cells()] if where else []
        if not marks and previous and previous.get("outcomes"):
            return self.last_turn(previous)
        return {"marks": marks, "moves": []}

    def parse_board(self, board: Mapping[str, Any]) -> dict[str, Any]:
        """14 x 14 exactly; anything else in the board is ignored."""
        board_size(board, SIZE, SIZE)
        return {"width": SIZE, "height": SIZE}

    def check_agents(self, agents: Any, board: dict[str, Any]) -> int:
        return whole(agents, "agents", 0, 0)

    def initial_state(self, record: Any) -> BlokusDuoState:
        return new_state()

    # Why a turn's action is invalid besides its move (matches/rules/reasons.py).
    NOT_YOUR_TURN = Reason(words.gettext_noop("not the turn of {team} (turn {turn} is {mover}'s)"))
    MANY_MOVES = Reason(words.gettext_noop("{count} moves sent; one move a turn"))
    NO_MOVE = Reason(words.gettext_noop("the action has no move"))

    def resolve_turn(
        self, state: BlokusDuoState, actions: TurnActions
    ) -> tuple[BlokusDuoState, Outcomes]:
        team, other = state.mover, 1 - state.mover
        outcomes: Outcomes = [[], []]
        for action in actions[other]:
            outcomes[other].append(_invalid(
                action, self.NOT_YOUR_TURN(team=team_named(other), turn=state.turn + 1,
                                           mover=team_named(team))))
        sent, where = actions[team], None
        if len(sent) > 1:
            for action in sent:
                outcomes[team].append(_invalid(action, self.MANY_MOVES(count=len(sent))))
        elif sent:
            where, reason = judge(state, sent[0]["move"]) if "move" in sent[0] else (
                None, self.NO_MOVE())
            outcomes[team].append(_invalid(sent[0], reason) if reason else
                                  _echo(sent[0]) | {"result": "ok"})
        return play(state, team, where), outcomes

    def view(self, state: BlokusDuoState) -> dict[str, Any]:
        text = state.cells.decode()
        return {
            "turn": state.turn,
            "cells": [text[i : i + SIZE] for i in range(0, SIZE * SIZE, SIZE)],
            "agents": [[], []],
            "scores": [{"remaining": n} for n in state.remaining],
        }

    def action_problem(self, action: Any) -> str:
        """Only the shape: an object with a string `move`. What the code means (a
        malformed code, an illegal move) is judged at the transition."""
        if not isinstance(action, dict):
            return ": expected an object"
        if "move" not in action:
            return ".move: missing"
        if not isinstance(action["move"], str):
            return '.move: expected a string (a 4-character code such as "55a0")'
        return ""

    def action_fields(self, action: dict[str, Any]) -> dict[str, Any]:
        return {"move": action["move"]}

    # --- alternating turns (matches/rules/turns.py) ---

    def move_refusal(self, state: BlokusDuoState, team: int,
                     actions: Sequence[dict[str, Any]]) -> str:
        if len(actions) != 1:
            return f"actions: send exactly one move a turn, not {len(actions)}"
        _, reason = judge(state, actions[0]["move"])
        return f"actions[0].move: {reason}" if reason else ""

    def move_as_stored(self, actions: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
        return [{"move": canonical_code(actions[0]["move"])}]

    def must_pass(self, state: BlokusDuoState) -> bool:
        return not has_legal_move(state, state.mover)

    def pass_move(self) -> list[dict[str, Any]]:
        return [{"move": PASS}]

    def is_over(self, state: BlokusDuoState, turns: int) -> bool:
        """Neither player can move (the README: not the turn limit)."""
        return not has_legal_move(state, 0) and not has_legal_move(state, 1)

    def result(self, state: BlokusDuoState) -> dict[str, Any]:
        a, b = state.remaining
        if a == b:
            return {"winner": None, "decided_by": "draw"}
        return {"winner": 0 if a < b else 1, "decided_by": "remaining"}


# --- what the screens show ----------------------------------------------------------

# Each piece's squares in every orientation, moved to the top left corner: a piece on
# the board is found by its shape (pieces of one colour never share an edge).
def _normal(cells: Sequence[tuple[int, int]]) -> frozenset[tuple[int, int]]:
    low_x, low_y = min(x for x, _ in cells), min(y for _, y in cells)
    return frozenset((x - low_x, y - low_y) for x, y in cells)


_FORMS = {_normal(orient(cells, o)): letter
          for letter, cells in BASE_SHAPES.items() for o in range(8)}


def unplaced_pieces(rows: Sequence[str]) -> list[list[str]]:
    """Each team's pieces not on the board yet (letters a-u), from the board's cells."""
    seen: set[tuple[int, int]] = set()
    placed: list[set[str]] = [set(), set()]
    for y, row in enumerate(rows):
        for x, char in enumerate(row):
            if char in TEAM_LETTERS and (x, y) not in seen:
                piece = _connected(rows, x, y, seen)
                placed[TEAM_LETTERS.index(char)].add(_FORMS.get(_normal(piece), "?"))
    return [[letter for letter in PIECE_LETTERS if letter not in used] for used in placed]


def _connected(rows: Sequence[str], x: int, y: int, seen: set) -> list[tuple[int, int]]:
    """The squares of one colour joined by edges to (x, y): one piece."""
    char, todo, found = rows[y][x], [(x, y)], []
    seen.add((x, y))
    while todo:
        cx, cy = todo.pop()
        found.append((cx, cy))
        for nx, ny in ((cx + 1, cy), (cx - 1, cy), (cx, cy + 1), (cx, cy - 1)):
            if (0 <= ny < len(rows) and 0 <= nx < len(rows[ny]) and (nx, ny) not in seen
                    and rows[ny][nx] == char):
                seen.add((nx, ny))
                todo.append((nx, ny))
    return found


def _tray_piece(letter: str) -> dict[str, Any]:
    cells = sorted(_normal(BASE_SHAPES[letter]), key=lambda cell: (cell[1], cell[0]))
    return {"name": letter, "size": len(cells), "cells": [list(cell) for cell in cells]}


# The board's four corners (x, y): a piece there is worth a word.
_CORNERS = frozenset((x, y) for x in (0, SIZE - 1) for y in (0, SIZE - 1))


def move_words(code: Any) -> str | None:
    """A move as its piece and the cells it covers, named as codes name them, in the
    language of the moment: "piece u · 5 squares · 45 54 55 56 65"; "pass"; None when
    the code is malformed."""
    if not isinstance(code, str) or code_problem(code):
        return None
    where = placement(code)
    if where is None:
        # Translators: a Blokus Duo move that places no piece
        return words.gettext("pass")
    size = PIECE_SIZES[where.piece]
    # Translators: a Blokus Duo move's piece (its letter) and size, e.g. "piece u · 5 squares"
    described = words.ngettext("piece %(piece)s · %(count)s square",
                               "piece %(piece)s · %(count)s squares", size) % {
        "piece": PIECE_LETTERS[where.piece], "count": size}
    if not where.on_board():
        # Translators: a Blokus Duo move whose piece would stick out of the board
        return f"{described} · {words.gettext('off the board')}"
    cells = sorted(where.cells(), key=lambda cell: (cell[1], cell[0]))
    return f"{described} · " + " ".join(POSITIONS[x] + POSITIONS[y] for x, y in cells)


def _echo(action: Mapping[str, Any]) -> dict[str, Any]:
    return {key: action[key] for key in ACTION_KEYS if key in action}


def _invalid(action: Mapping[str, Any], reason: str) -> dict[str, Any]:
    return _echo(action) | {"result": "invalid", "reason": reason}
