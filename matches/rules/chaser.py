"""CHaser (U-16 programming contest), exactly as in docs/rules/chaser.md.

A turn is Cool's step, then Hot's. The state is a frozen value, so the TCP server can
drive a game one player step at a time with the same functions `resolve_turn` uses
(per turn, for Cool then Hot: send `@`, read `gr`, send `ready_digits`, read the
command, `step`, send its `reply`, read `#`; then `end_turn`):

- `ready_digits(state, player) -> str`: the 10 digits sent after that player's `gr`.
- `step(state, player, command) -> (state, fields)`: one player's command. `fields` is
  `{"result": "ok", "ready", "reply"}` (`reply` = the 10 digits sent after the command)
  or `{"result": "invalid", "reason"}` (an unknown command, which is a fault and loses;
  or any command once the game is decided, which changes nothing).
- `new_state(board, turns) -> state`: the position before turn 1 (a parsed board).
- `fault(state, player) -> state`: a protocol fault (no `gr` or `#`, a timeout, a
  disconnect) loses the game for that player.
- `end_turn(state) -> state`: after both steps; after the last turn it applies rule 5.
- `decided(state) -> bool`: once true, every reply starts with `0`.
- `parse_map(text, name="") -> dict`: a CHaser map file as a match-record/1 dict;
  `MapError` (a `ValueError`, one line, starting `line N: `) when it is malformed.
- `COMMANDS`, `PORTS` (Cool, Hot), `shown_name(line)` (the name a client sends first).

Choices the vectors make where chaser.md is silent (tests/conformance/chaser/README.md):
- A reply's first digit is `0` once the game is decided: the mover's reply to the
  deciding command, and Hot's reply to its last command of the last turn.
- In a reply the other player reads `1` even on a block; the mover's own cell reads as
  the cell itself (`0`, or `2` when buried).
- A player who walks off the map is buried and shown as `null`.
- A command recorded after the decision is invalid and changes nothing.
Choices of this module where neither says anything:
- The other player reads `1` off the map too (only a `gr` after the decision shows it).
- A start on a block is refused (the player would be buried before acting); a start on
  an item is allowed: the item stays under the player until someone walks onto it.
- An empty command list means that player did not act that turn (a record cut short).
  A second command in one turn's list is invalid and changes nothing; a second entry
  whose command is null is a step left unfinished (the TCP server's record of a `#`
  that never came): a fault, as a null first entry is.
- The answer API refuses a command that is not one of the 16 (`action_problem`); in a
  record it is a protocol fault, as over TCP.
"""

from __future__ import annotations

import random
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from matches.rules import words
from matches.rules.base import Outcomes, Presentation, Ranking, TurnActions, callout
from matches.rules.checks import (
    MAX_SIDE,
    MAX_TURNS,
    RecordError,
    as_list,
    as_text,
    board_size,
    cell,
    distinct,
    quoted,
    require,
    whole,
)
from matches.rules.reasons import Reason
from matches.rules.symmetry import mirrors_of, starts_at, symmetry_said
from matches.rules.turns import PROTOCOL

FLOOR, BLOCK, ITEM = "0", "2", "3"  # cells are held as their reply digits
OTHER = "1"  # the digit of the other player
_TO_CELL = str.maketrans("023", ".#*")
_TO_DIGIT = str.maketrans(".#*", "023")
DIRECTIONS = {"u": (0, -1), "d": (0, 1), "l": (-1, 0), "r": (1, 0)}
COMMANDS = tuple(kind + way for kind in "wlsp" for way in "udlr")
_COMMAND_SET = frozenset(COMMANDS)
_VERBS = {"w": "walk", "l": "look", "s": "search", "p": "put"}  # a command in words
_WAYS = {"u": "up", "d": "down", "l": "left", "r": "right"}
PLAYERS = ("Cool", "Hot")
PORTS = (2009, 2010)  # Cool's and Hot's default ports (protocol point 1)
NAME_LENGTH = 4  # characters of a client's name that are shown
# Blocks framing the board, so that reading a cell never checks the bounds: a search
# reads up to 9 cells beyond the edge, and its slice (up or left) stops one cell further.
PAD = 10

Cell = tuple[int, int]  # (x, y); a player's may be off the map once it walked off


@dataclass(frozen=True, slots=True)
class ChaserState:
    turn: int  # turns completed
    turns: int  # the turn limit
    width: int
    height: int
    codes: str  # the cells' digits row by row, framed by PAD blocks on every side
    positions: tuple[Cell, Cell]  # Cool, Hot
    items: tuple[int, int]
    winner: int | None = None
    decided_by: str | None = None  # set once the game is decided


def decided(state: ChaserState) -> bool:
    return state.decided_by is not None


def shown_name(line: str) -> str:
    """The name a client sends first, as shown (protocol point 1)."""
    return line.strip()[:NAME_LENGTH]


def new_state(board: Mapping[str, Any], turns: int) -> ChaserState:
    """The position before turn 1, from a board as `ChaserRules.parse_board` returns it."""
    width, height, cells = board["width"], board["height"], board["cells"]
    side, frame = BLOCK * PAD, BLOCK * ((width + 2 * PAD) * PAD)
    codes = frame + "".join(side + row.translate(_TO_DIGIT) + side for row in cells) + frame
    cool, hot = (tuple(where) for where in board["start"])
    return ChaserState(0, turns, width, height, codes, (cool, hot), (0, 0))


# --- reading the board ---------------------------------------------------------------


def _index(state: ChaserState, x: int, y: int) -> int:
    return (y + PAD) * (state.width + 2 * PAD) + x + PAD


def _at(state: ChaserState, x: int, y: int) -> str:
    """The digit of the cell at (x, y); off the map reads as a block."""
    return state.codes[_index(state, x, y)]


def _square(state: ChaserState, player: int, cx: int, cy: int) -> str:
    """The 3×3 around (cx, cy), row by row from the top-left, as the player reads it."""
    left, stride, codes = _index(state, cx - 1, cy), state.width + 2 * PAD, state.codes
    up, down = left - stride, left + stride
    digits = codes[up : up + 3] + codes[left : left + 3] + codes[down : down + 3]
    ox, oy = state.positions[1 - player]
    dx, dy = ox - cx, oy - cy
    if -1 <= dx <= 1 and -1 <= dy <= 1:
        k = 3 * dy + dx + 4
        digits = digits[:k] + OTHER + digits[k + 1 :]
    return digits


def _line(state: ChaserState, player: int, dx: int, dy: int) -> str:
    """The 9 cells at distance 1..9 from the player in direction (dx, dy)."""
    x, y = state.positions[player]
    here, stride = _index(state, x, y), dx + dy * (state.width + 2 * PAD)
    digits = state.codes[here + stride : here + 10 * stride : stride]
    ox, oy = state.positions[1 - player]
    k = (ox - x) * dx + (oy - y) * dy
    if 1 <= k <= 9 and (ox - x, oy - y) == (k * dx, k * dy):
        digits = digits[: k - 1] + OTHER + digits[k:]
    return digits


def _trapped(state: ChaserState, where: Cell) -> bool:
    here, stride, codes = _index(state, *where), state.width + 2 * PAD, state.codes
    return all(codes[here + side] == BLOCK for side in (-1, 1, -stride, stride))


def ready_digits(state: ChaserState, player: int) -> str:
    """The 10 digits the server sends after `gr`: game-on digit, then the 3×3 around."""
    x, y = state.positions[player]
    return ("0" if decided(state) else "1") + _square(state, player, x, y)


# --- one step ----------------------------------------------------------------------

# Why a command is invalid (matches/rules/reasons.py).
DECIDED = Reason(words.gettext_noop("the game is already decided"))
NO_COMMAND = Reason(words.gettext_noop("no command"))
UNKNOWN_COMMAND = Reason(words.gettext_noop("unknown command {command}"))
ONE_COMMAND = Reason(words.gettext_noop("only one command per turn"))


def step(state: ChaserState, player: int, command: Any) -> tuple[ChaserState, dict[str, str]]:
    """One player's command: the next state and the outcome's fields (module docstring)."""
    if decided(state):
        return state, {"result": "invalid", "reason": DECIDED()}
    if not isinstance(command, str) or command not in _COMMAND_SET:
        reason = NO_COMMAND() if command is None else UNKNOWN_COMMAND(command=quoted(command))
        return fault(state, player), {"result": "invalid", "reason": reason}
    ready = ready_digits(state, player)
    kind, (dx, dy) = command[0], DIRECTIONS[command[1]]
    x, y = state.positions[player]
    if kind == "w":
        state = _walk(state, player, (x + dx, y + dy))
        digits = _square(state, player, *state.positions[player])
    elif kind == "p":
        state = _put(state, x + dx, y + dy)
        digits = _square(state, player, x, y)
    elif kind == "l":
        digits = _square(state, player, x + 2 * dx, y + 2 * dy)
    else:
        digits = _line(state, player, dx, dy)
    state = _decide(state, player)
    last = player == 1 and state.turn + 1 >= state.turns
    reply = ("0" if decided(state) or last else "1") + digits
    return state, {"result": "ok", "ready": ready, "reply": reply}


def _walk(state: ChaserState, player: int, target: Cell) -> ChaserState:
    """Move one cell; nothing happens when the other player stands there."""
    if target == state.positions[1 - player]:
        return state
    positions = list(state.positions)
    old, positions[player] = positions[player], target
    if _at(state, *target) != ITEM:
        return replace(state, positions=tuple(positions))
    codes = _set(state, _set(state, state.codes, target, FLOOR), old, BLOCK)  # left: a block
    items = list(state.items)
    items[player] += 1
    return replace(state, codes=codes, positions=tuple(positions), items=tuple(items))


def _put(state: ChaserState, x: int, y: int) -> ChaserState:
    """The neighbour becomes a block (an item there is destroyed; off the map: nothing)."""
    if _at(state, x, y) == BLOCK:
        return state
    return replace(state, codes=_set(state, state.codes, (x, y), BLOCK))


def _set(state: ChaserState, codes: str, where: Cell, digit: str) -> str:
    here = _index(state, *where)
    return codes[:here] + digit + codes[here + 1 :]


def _decide(state: ChaserState, mover: int) -> ChaserState:
    """Decision rules 1-4 after the mover's action (X = mover, O = the other player)."""
    other = 1 - mover
    if _at(state, *state.positions[mover]) == BLOCK:
        return _over(state, other, "buried")  # rule 1
    mover_trapped = _trapped(state, state.positions[mover])
    if _at(state, *state.positions[other]) == BLOCK:  # rule 2
        return _over(state, None, "draw") if mover_trapped else _over(state, mover, "capture")
    other_trapped = _trapped(state, state.positions[other])
    if mover_trapped and other_trapped:
        return _over(state, None, "draw")  # rule 3
    if other_trapped or mover_trapped:  # rule 4
        return _over(state, mover if other_trapped else other, "trapped")
    return state


def _over(state: ChaserState, winner: int | None, decided_by: str) -> ChaserState:
    return replace(state, winner=winner, decided_by=decided_by)


def fault(state: ChaserState, player: int) -> ChaserState:
    """A protocol fault: the player loses (unless the game is already decided)."""
    return state if decided(state) else _over(state, 1 - player, "fault")


def end_turn(state: ChaserState) -> ChaserState:
    """Count the turn; after the last one, rule 5: more items wins, equal is a draw."""
    state = replace(state, turn=state.turn + 1)
    if decided(state) or state.turn < state.turns:
        return state
    return _over(state, *_on_items(state))


def _on_items(state: ChaserState) -> tuple[int | None, str]:
    cool, hot = state.items
    return (None, "draw") if cool == hot else (0 if cool > hot else 1, "items")


def cells_read(command: str, at: tuple[int, int]) -> list[tuple[int, int]]:
    """The cells a look (the 3 x 3 square whose centre is two cells away) or a search
    (the nine cells at distances 1 to 9) reads from `at`, in reply order; some may be
    off the map."""
    (x, y), (dx, dy) = at, DIRECTIONS[command[1]]
    if command[0] == "s":
        return [(x + dx * step, y + dy * step) for step in range(1, 10)]
    cx, cy = x + 2 * dx, y + 2 * dy
    return [(cx + ox, cy + oy) for oy in (-1, 0, 1) for ox in (-1, 0, 1)]


# --- the rules object ----------------------------------------------------------------


class ChaserRules(Presentation):
    game = "chaser"
    title = words.gettext_noop("CHaser (U-16)")  # said in the page's language where shown
    # Translators: the game in one line, for a newcomer watching the TV
    rule_line = words.gettext_noop(
        "Two programs on one map take items; "
        "a player boxed in or on a block loses")
    turn_kind = PROTOCOL  # played over TCP by `manage.py chaserserver`
    # The README's agreement rule: results, and the digits sent to the clients, are equal.
    outcome_keys = ("result", "ready", "reply")
    headline_part = "items"
    sides_swap = True  # a match's games swap who is Cool (docs/chaser-server.md)
    # a tournament's table: match wins, then games won, then items taken
    ranking = Ranking(order=("wins", "games", "items"),
                      tiebreaks=(("games", "games"), ("items", "items")))
    action_keys = ("command",)
    answer_keys = ("result", "reason", "ready", "reply")
    # Why a game ended before the turn limit (decision rules 1-4 and a fault).
    endings = {
        "trapped": words.gettext_noop("%(loser)s is boxed in"),
        "capture": words.gettext_noop("%(loser)s is captured (a block was put on it)"),
        "buried": words.gettext_noop("%(loser)s walked into a block or off the map"),
        "fault": words.gettext_noop(
            "%(loser)s broke the protocol (no answer in time, or a bad command)"),
        "draw": words.gettext_noop("both players are stuck"),
    }

    def amount(self, value: int) -> str:
        return words.ngettext("%(count)s item", "%(count)s items", value) % {"count": value}

    def unit_words(self) -> str:
        return words.gettext("items")

    def answers_to(self, sent: str, name: str, short: str = "") -> bool:
        """A program sends its name, and screens show its first four characters: it plays
        for a team when it sent the team's name or short code, whole or as shown."""
        return any(super(ChaserRules, self).answers_to(sent, form)
                   for form in (name, short, shown_name(name), shown_name(short)) if form)

    def player(self, team: int, names: Sequence[str]) -> str:
        """The team's name and its player, "Alpha (Hot)" (a team named Hot: "Hot")."""
        name = names[team]
        return name if name == PLAYERS[team] else f"{name} ({PLAYERS[team]})"

    def card_words(self, score: Mapping[str, int], team: int) -> str:
        return words.gettext("%(player)s (%(letter)s) · items taken: %(items)s") % {
            "player": PLAYERS[team], "letter": PLAYERS[team][0], "items": score["items"]}

    idle = words.gettext_noop("no command")

    def said(self, outcome: Mapping[str, Any]) -> str:
        """A command as sent and in words: "wr · walk right" (an unknown one as sent)."""
        command = outcome.get("command")
        if command in _COMMAND_SET:
            return f"{command} · {_VERBS[command[0]]} {_WAYS[command[1]]}"
        if "command" not in outcome:
            return words.gettext("no command")
        return words.gettext("command %(command)s") % {"command": repr(command)}

    def picture_style(self) -> dict[str, Any]:
        """Floor, blocks (plain stone), items (gold dots), Cool and Hot as C and H."""
        return {"blocks": "#", "items": "*", "labels": ("C", "H")}

    def decisive(self, state: Mapping[str, Any], result: Mapping[str, Any]) -> list[list[int]]:
        """A player boxed in: the blocks around it; captured or buried: where it stands."""
        how, winner = result.get("decided_by"), result.get("winner")
        if winner is None or how not in ("trapped", "capture", "buried"):
            return []
        loser = state["agents"][1 - winner][0]
        if not loser:
            return []
        x, y = loser
        if how != "trapped":
            return [[x, y]]
        rows = state["cells"]
        return [[cx, cy] for cx, cy in ((x, y - 1), (x + 1, y), (x, y + 1), (x - 1, y))
                if 0 <= cy < len(rows) and 0 <= cx < len(rows[cy]) and rows[cy][cx] == "#"]

    def notable(self, previous: Mapping[str, Any], state: Mapping[str, Any],
                names: Sequence[str]) -> list[tuple[float, dict[str, Any]]]:
        """An item taken, where the player stands."""
        found = []
        for team in (0, 1):
            if state["scores"][team]["items"] > previous["scores"][team]["items"]:
                at = state["agents"][team][0]
                # Translators: a turn's callout in CHaser, e.g. "Hot takes an item"
                text = words.gettext("%(name)s takes an item") % {"name": self.player(team, names)}
                found.append((10.0, callout(text, team, at)))
        return found

    def last_turn(self, state: Mapping[str, Any],
                  previous: Mapping[str, Any] | None = None) -> dict[str, list[Any]]:
        """Each player's step: a walk goes from where it stood (none where the player
        did not move: it walked into the other one, who stands on the cell ahead; without
        `previous` that cell tells), a put is "acted" on the new block, a look or a search
        "read" the cells its reply tells of."""
        marks: list[Any] = []
        moves: list[Any] = []
        for team, outcomes in enumerate(state.get("outcomes") or ()):
            at = state["agents"][team][0]
            for outcome in outcomes:
                command = outcome.get("command")
                if outcome.get("result") != "ok" or command not in _COMMAND_SET or not at:
                    continue
                (x, y), (dx, dy) = at, DIRECTIONS[command[1]]
                if command[0] in "ls":
                    marks += [[cx, cy, "read", team] for cx, cy in cells_read(command, (x, y))
                              if 0 <= cy < len(state["cells"]) and 0 <= cx < len(state["cells"][0])]
                elif command[0] == "p":
                    marks.append([x + dx, y + dy, "acted", team])
                else:
                    start = previous["agents"][team][0] if previous else None
                    blocked = state["agents"][1 - team][0] == [x + dx, y + dy]
                    if start is None and not blocked:
                        start = [x - dx, y - dy]
                    if start and list(start) != [x, y]:
                        moves.append([list(start), [x, y], team])
        return {"marks": marks, "moves": moves}

    def parse_board(self, board: Mapping[str, Any]) -> dict[str, Any]:
        width, height = board_size(board)
        rows = as_list(require(board, "cells", "board."), "board.cells")
        if len(rows) != height:
            raise RecordError(f"board.cells: {len(rows)} rows, expected {height} (board.height)")
        for y, row in enumerate(rows):
            as_text(row, f"board.cells[{y}]")
            if len(row) != width:
                raise RecordError(
                    f"board.cells[{y}]: {len(row)} cells, expected {width} (board.width)"
                )
            for x, char in enumerate(row):
                if char not in ".#*":
                    raise RecordError(
                        f"board.cells[{y}][{x}]: {char!r} is not a cell (expected . # or *)"
                    )
        start = as_list(require(board, "start", "board."), "board.start")
        if len(start) != 2:
            raise RecordError(f"board.start: expected 2 cells (Cool, Hot), got {len(start)}")
        names = [f"board.start[{i}]" for i in (0, 1)]
        starts = [cell(start[i], names[i], width, height) for i in (0, 1)]
        distinct(starts, names)
        for (x, y), name in zip(starts, names, strict=True):
            if rows[y][x] == "#":
                raise RecordError(f"{name}: [{x}, {y}] is a block")
        return {"width": width, "height": height, "cells": list(rows),
                "start": [list(where) for where in starts]}

    def check_agents(self, agents: Any, board: dict[str, Any]) -> int:
        return whole(agents, "agents", 1, 1)

    def random_board(self, seed: int | None = None) -> tuple[dict[str, Any], dict[str, Any]]:
        """A fair map of the contests' size (`random_map`) and its turns."""
        return random_map(seed), {"agents": 1, "turns": RANDOM_TURNS}

    def board_file(self, board: Mapping[str, Any], hints: Mapping[str, Any],
                   name: str) -> tuple[str, bytes]:
        """The CHaser map file of a map (docs/rules/chaser.md, "The map file")."""
        return f"{name}.map", map_text(board, hints.get("turns") or 100, name).encode()

    def board_notes(self, board: Mapping[str, Any]) -> list[str]:
        """Its symmetry, and the items each player can walk to: a fair map has both
        players reach the same items."""
        reach = [reachable(board, start) for start in board["start"]]
        items = {(x, y) for y, row in enumerate(board["cells"]) for x, char in enumerate(row)
                 if char == "*"}
        notes = [symmetry_said(mirrors_of(board, _chaser_signature(board)))]
        got = [len(items & cells) for cells in reach]
        notes.append(words.gettext("Cool can reach %(cool)s of %(items)s items, Hot %(hot)s.")
                     % {"cool": got[0], "hot": got[1], "items": len(items)})
        if tuple(board["start"][1]) not in reach[0]:
            notes.append(words.gettext("Unfair: Cool and Hot cannot reach each other, so "
                                       "each has items of its own."))
        return notes

    def initial_state(self, record: Any) -> ChaserState:
        return new_state(record.board, record.turns)

    def resolve_turn(
        self, state: ChaserState, actions: TurnActions
    ) -> tuple[ChaserState, Outcomes]:
        outcomes: Outcomes = [[], []]
        for player in (0, 1):
            for index, action in enumerate(actions[player]):
                command = action.get("command")
                if index and not decided(state) and command is not None:
                    fields = {"result": "invalid", "reason": ONE_COMMAND()}
                else:
                    state, fields = step(state, player, command)
                echoed = {"command": command} if "command" in action else {}
                outcomes[player].append(echoed | fields)
        return end_turn(state), outcomes

    def view(self, state: ChaserState) -> dict[str, Any]:
        width, height = state.width, state.height
        first, stride = _index(state, 0, 0), width + 2 * PAD
        starts = range(first, first + height * stride, stride)
        text = state.codes.translate(_TO_CELL)
        return {
            "turn": state.turn,
            "cells": [text[at : at + width] for at in starts],
            "agents": [[[x, y] if 0 <= x < width and 0 <= y < height else None]
                       for x, y in state.positions],
            "scores": [{"items": state.items[0]}, {"items": state.items[1]}],
        }

    def action_problem(self, action: Any) -> str:
        if not isinstance(action, dict):
            return ": expected an object"
        if "command" not in action:
            return ".command: missing"
        if not isinstance(action["command"], str):
            return ".command: expected a string"
        if action["command"] not in _COMMAND_SET:
            return f".command: expected one of {' '.join(COMMANDS)}"
        return ""

    def action_fields(self, action: dict[str, Any]) -> dict[str, Any]:
        return {"command": action["command"]}

    def is_over(self, state: ChaserState, turns: int) -> bool:
        return decided(state) or state.turn >= turns

    def result(self, state: ChaserState) -> dict[str, Any]:
        if not decided(state):  # the turn limit reached by is_over's count
            return dict(zip(("winner", "decided_by"), _on_items(state), strict=True))
        return {"winner": state.winner, "decided_by": state.decided_by}


# --- map files -------------------------------------------------------------------------

# A random map: the contests' 15 x 17, turned half round its centre (Hot's half the
# mirror of Cool's), about one cell in nine a block and one in seven an item.
RANDOM_SIZE = (15, 17)
RANDOM_TURNS = 100
RANDOM_BLOCKS, RANDOM_ITEMS = 0.11, 0.15


def reachable(board: Mapping[str, Any], start: Sequence[int]) -> set[tuple[int, int]]:
    """The cells a player can walk to from `start` (every cell but blocks)."""
    rows, width, height = board["cells"], board["width"], board["height"]
    seen = {(start[0], start[1])}
    todo = [(start[0], start[1])]
    while todo:
        x, y = todo.pop()
        for dx, dy in DIRECTIONS.values():
            nx, ny = x + dx, y + dy
            if 0 <= nx < width and 0 <= ny < height and (nx, ny) not in seen \
                    and rows[ny][nx] != "#":
                seen.add((nx, ny))
                todo.append((nx, ny))
    return seen


def random_map(seed: int | None = None) -> dict[str, Any]:
    """A fair map: point-symmetric, both players in one open region (so they reach the
    same items), every item reachable, and no player boxed in at the start."""
    rng = random.Random(seed)
    width, height = RANDOM_SIZE
    while True:
        cool = (rng.randrange(width), rng.randrange(1, height // 2 - 1))
        hot = (width - 1 - cool[0], height - 1 - cool[1])
        rows = [["."] * width for _ in range(height)]
        for y in range(height):
            for x in range(width):
                px, py = width - 1 - x, height - 1 - y
                if (y, x) > (py, px):
                    continue  # set with its partner
                roll = rng.random()
                char = "#" if roll < RANDOM_BLOCKS else \
                    "*" if roll < RANDOM_BLOCKS + RANDOM_ITEMS else "."
                if max(abs(x - cool[0]), abs(y - cool[1])) <= 1 or \
                        max(abs(x - hot[0]), abs(y - hot[1])) <= 1:
                    char = "."  # room around each start
                rows[y][x] = rows[py][px] = char
        board = {"width": width, "height": height, "cells": ["".join(row) for row in rows],
                 "start": [list(cool), list(hot)]}
        reach = reachable(board, cool)
        if hot not in reach:
            continue
        for y, row in enumerate(rows):  # an item nobody can reach is a block's dust
            for x, char in enumerate(row):
                if char == "*" and (x, y) not in reach:
                    row[x] = "."
        board["cells"] = ["".join(row) for row in rows]
        return board


def map_text(board: Mapping[str, Any], turns: int, name: str) -> str:
    """A board as a CHaser map file (CRLF lines, as the contests' servers write them)."""
    digits = {".": FLOOR, "#": BLOCK, "*": ITEM}
    lines = [f"N:{name}", f"T:{turns}", f"S:{board['width']},{board['height']}"]
    lines += ["D:" + ",".join(digits[char] for char in row) for row in board["cells"]]
    (cx, cy), (hx, hy) = board["start"]
    lines += [f"C:{cx},{cy}", f"H:{hx},{hy}"]
    return "\r\n".join(lines) + "\r\n"


def _chaser_signature(board: Mapping[str, Any]):
    starts = starts_at(board)

    def signature(board: Mapping[str, Any], x: int, y: int, swap: bool) -> Any:
        team = starts.get((x, y))
        return board["cells"][y][x], (1 - team if swap and team is not None else team)
    return signature


class MapError(ValueError):
    """A CHaser map file that is not well formed; the message is one line, `line N: ...`."""


_NUMBER = re.compile(r"[0-9]{1,9}")
_MAP_CELLS = {"0": ".", "2": "#", "3": "*"}
_KEYS = {"N": "the map's name", "T": "the number of turns", "S": "the size (width,height)",
         "D": "a row of cells", "C": "Cool's start (x,y)", "H": "Hot's start (x,y)"}


def _numbers(text: str, count: int, line: int, what: str) -> list[int]:
    parts = [part.strip() for part in text.split(",")]
    if len(parts) != count or not all(_NUMBER.fullmatch(part) for part in parts):
        shape = ",".join(["n"] * count)
        raise MapError(f"line {line}: {what} {text.strip()!r} is not {shape} (whole numbers)")
    return [int(part) for part in parts]


def parse_map(text: str, name: str = "") -> dict[str, Any]:
    """A CHaser map file (N:/T:/S:/D:/C:/H: lines, CRLF or LF) as a match-record/1 dict.

    `name` is the title when the map has no (or an empty) N: line.
    """
    seen: dict[str, int] = {}
    values: dict[str, Any] = {}
    rows: list[str] = []
    lines = text.removeprefix("\ufeff").split("\n")
    for number, raw in enumerate(lines, start=1):
        line = raw.rstrip("\r")
        if not line.strip():
            continue
        key, colon, value = line.partition(":")
        key = key.strip()
        if not colon or key not in _KEYS:
            shown = key if colon else line.strip()
            raise MapError(f"line {number}: unknown key {shown[:20]!r} (expected N T S D C H)")
        if key != "D" and key in seen:
            raise MapError(f"line {number}: a second {key}: line (the first is line {seen[key]})")
        seen.setdefault(key, number)
        if key == "N":
            values["N"] = value.strip()
        elif key == "T":
            (turns,) = _numbers(value, 1, number, "T:")
            if not 1 <= turns <= MAX_TURNS:
                raise MapError(f"line {number}: T: {turns} turns is outside 1..{MAX_TURNS}")
            values["T"] = turns
        elif key == "S":
            size = _numbers(value, 2, number, "S:")
            if not all(1 <= side <= MAX_SIDE for side in size):
                raise MapError(f"line {number}: S: {size[0]},{size[1]} is outside 1..{MAX_SIDE}")
            values["S"] = size
        elif key == "D":
            rows.append(_map_row(value, number, values.get("S"), len(rows)))
        else:
            values[key] = (_numbers(value, 2, number, f"{key}:"), number)
    end = len(lines) + 1 if lines[-1].strip() else len(lines)
    for key in "TSCH":
        if key not in values:
            raise MapError(f"line {end}: the map has no {key}: line ({_KEYS[key]})")
    width, height = values["S"]
    if len(rows) != height:
        raise MapError(f"line {end}: {len(rows)} D: lines, expected {height} (S: height)")
    starts = []
    for key in "CH":
        (x, y), number = values[key]
        if not (x < width and y < height):
            raise MapError(f"line {number}: {key}: {x},{y} is off the {width}x{height} map")
        if rows[y][x] == "#":
            raise MapError(f"line {number}: {key}: {x},{y} is a block")
        starts.append([x, y])
    if starts[0] == starts[1]:
        raise MapError(f"line {values['H'][1]}: H: is Cool's start too")
    return {
        "format": "match-record/1",
        "game": "chaser",
        "title": values.get("N") or name,
        "board": {"width": width, "height": height, "cells": rows, "start": starts},
        "agents": 1,
        "turns": values["T"],
        "teams": [{"name": player} for player in PLAYERS],
        "actions": [],
    }


def _map_row(value: str, line: int, size: list[int] | None, index: int) -> str:
    if size is None:
        raise MapError(f"line {line}: a D: line before the S: line")
    width, height = size
    if index == height:
        raise MapError(f"line {line}: more D: lines than {height} (S: height)")
    parts = [part.strip() for part in value.split(",")]
    if len(parts) != width:
        raise MapError(f"line {line}: {len(parts)} D: values, expected {width} (S: width)")
    for column, part in enumerate(parts):
        if part not in _MAP_CELLS:
            raise MapError(f"line {line}: D: value {column} is {part!r}, expected 0, 2 or 3")
    return "".join(_MAP_CELLS[part] for part in parts)
