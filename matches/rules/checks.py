"""Small checks for reading records: each names the field it refuses, in one line.

Shared by `records` and by every game's board parser, so that a bad record reads the
same whatever its game.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Mapping, Sequence
from typing import Any

MAX_SIDE = 64
MAX_TURNS = 1000


class RecordError(ValueError):
    """A match record or timeline that is not well formed; the message is one line."""


def require(data: Mapping, key: str, where: str = "") -> Any:
    if key not in data:
        raise RecordError(f"{where}{key}: missing")
    return data[key]


def as_object(value: Any, name: str) -> Mapping:
    if not isinstance(value, Mapping):
        raise RecordError(f"{name}: expected an object, got {kind(value)}")
    return value


def as_list(value: Any, name: str) -> list:
    if not isinstance(value, list):
        raise RecordError(f"{name}: expected a list, got {kind(value)}")
    return value


def whole(value: Any, name: str, low: int, high: int) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise RecordError(f"{name}: expected a whole number, got {kind(value)}")
    if not low <= value <= high:
        raise RecordError(f"{name}: {value} is outside {low}..{high}")
    return value


def as_text(value: Any, name: str) -> str:
    if not isinstance(value, str):
        raise RecordError(f"{name}: expected a string, got {kind(value)}")
    return value


def text_problem(text: str) -> str | None:
    """Why a string cannot be stored or written as UTF-8 text, if it cannot: a NUL
    (PostgreSQL refuses it) or a lone surrogate (no UTF-8 encoder accepts it)."""
    if "\x00" in text:
        return f"holds a NUL character (at character {text.index(chr(0))})"
    if not text.isascii():
        try:
            text.encode("utf-8")
        except UnicodeEncodeError as error:
            code = ord(text[error.start])
            return f"holds a lone surrogate (\\u{code:04x} at character {error.start})"
    return None


def plain_strings(document: Any, text: str | None = None) -> None:
    """Refuse the first string of a JSON document, key or value, that `text_problem`
    finds, naming its field (`title`, `actions[0][1][0].type`).

    `text`, when given, is the JSON text the document was read from. The whole text is
    checked first, at once (`plain_json_text`); the document is walked string by string,
    to name the field, only when that check cannot tell that every string is plain.
    Without `text` the document is written out as JSON (in C) and that text checked.
    """
    if text is None:
        try:
            text = json.dumps(document, ensure_ascii=False)
        except (TypeError, ValueError, RecursionError):  # not plain JSON data: walk it
            text = None
    if text is not None and plain_json_text(text):
        return
    refuse_odd_strings(document)


def refuse_odd_strings(document: Any) -> None:
    """`plain_strings` without its shortcut: every string in turn, in document order."""
    stack: list[tuple[str, Any]] = [("", document)]
    while stack:  # a loop, not recursion: a document may be nested deeply
        name, value = stack.pop()
        if isinstance(value, str):
            problem = text_problem(value)
            if problem:
                raise RecordError(f"{name or 'the document'}: {problem}")
        elif isinstance(value, Mapping):
            children = []
            for key, item in value.items():
                field = member(name, str(key))
                problem = text_problem(str(key))
                if problem:
                    raise RecordError(f"{field}: the key {problem}")
                children.append((field, item))
            stack.extend(reversed(children))
        elif isinstance(value, list):
            stack.extend(reversed([(f"{name}[{i}]", item) for i, item in enumerate(value)]))


# In JSON text (inside its strings, the only place a backslash may be): an escaped
# backslash, taken whole so that the next character is not read as an escape; the
# escape of a NUL; of a surrogate (which must be the high half of a pair followed by its
# low half); or a `\u` not followed by four hex digits (nothing a strict reader takes,
# but never assumed harmless).
_ESCAPES = re.compile(r"\\\\|\\u(?:0000|[dD][89a-fA-F][0-9a-fA-F]{2}|(?![0-9a-fA-F]{4}))")
_LOW_HALF = re.compile(r"\\u[dD][c-fC-F][0-9a-fA-F]{2}")


def plain_json_text(text: str) -> bool:
    """True when no string that reading the JSON text `text` gives, key or value, can
    hold a NUL or a lone surrogate (what `text_problem` refuses): the text itself holds
    none (nor any surrogate, paired or not, which UTF-8 cannot encode), and none of its
    escapes gives one. False means only "maybe": the document must be walked. It is one
    pass over the text in C, with a loop in Python over the rare escapes it finds."""
    if "\x00" in text:
        return False
    if not text.isascii():
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            return False
    if "\\" not in text:
        return True
    paired_low = -1  # where the low half of the last pair starts
    for escape in _ESCAPES.finditer(text):
        found, start = escape.group(), escape.start()
        if found == "\\\\" or start == paired_low:
            continue
        if len(found) == 6 and found[3] in "89abAB" and _LOW_HALF.match(text, escape.end()):
            paired_low = escape.end()  # a high half and its low half: one character
            continue
        return False  # a NUL, a lone half, or an odd \u
    return True


def member(parent: str, key: str) -> str:
    """A field's name in messages: `parent.key`, or `parent["odd key"]` (escaped, so that
    the message stays one printable line)."""
    if key.isascii() and key.isidentifier():
        return f"{parent}.{key}" if parent else key
    return f"{parent}[{json.dumps(key)}]"


# Control characters and line or paragraph separators: nothing a one-line name shows.
UNPRINTABLE = {"Cc", "Zl", "Zp"}


def team_names(names: Sequence[Any], limit: int | None = None,
               part: str = "name", count: int | None = 2) -> list[str]:
    """Two team names (`count`; None: any number, a tournament's), each a string that is
    not blank, has no control character and holds at most `limit` characters, all
    different. Refusals name `teams[i].name` (`part`: "short" for the short codes the
    organiser chose)."""
    if count is not None and len(names) != count:
        raise RecordError(f"teams: expected {count} teams, got {len(names)}")
    checked = []
    for index, name in enumerate(names):
        field = f"teams[{index}].{part}"
        name = as_text(name, field)
        if not name.strip():
            raise RecordError(f"{field}: empty")
        if limit is not None and len(name) > limit:
            raise RecordError(f"{field}: longer than {limit} characters")
        problem = text_problem(name)
        odd = next((c for c in name if unicodedata.category(c) in UNPRINTABLE), None)
        if problem is None and odd is not None:
            problem = f"holds a control character (U+{ord(odd):04X})"
        if problem:
            raise RecordError(f"{field}: {problem}")
        if name in checked:
            raise RecordError(f"teams[{index}].{part}: the same as "
                              f"teams[{checked.index(name)}].{part}")
        checked.append(name)
    return checked


def kind(value: Any) -> str:
    names = {dict: "an object", list: "a list", str: "a string", bool: "a boolean"}
    if value is None:
        return "null"
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        number = str(value)
        return f"the number {number if len(number) <= 24 else number[:20] + '…'}"
    return names.get(type(value), type(value).__name__)


def quoted(value: Any, limit: int = 24) -> str:
    """`value` as Python writes it, cut to its first `limit` characters: what a refusal
    quotes of what was sent (a reason never echoes a whole body back, nor stores it
    twice)."""
    if isinstance(value, str) and len(value) > limit:
        return repr(value[:limit]) + "…"
    shown = repr(value)
    return shown if len(shown) <= limit + 2 else shown[:limit] + "…"


def board_size(board: Mapping, low: int = 1, high: int = MAX_SIDE) -> tuple[int, int]:
    """`board.width` and `board.height`, each within low..high."""
    width = whole(require(board, "width", "board."), "board.width", low, high)
    height = whole(require(board, "height", "board."), "board.height", low, high)
    return width, height


def points_grid(board: Mapping, width: int, height: int, low: int = -16, high: int = 16
                ) -> list[list[int]]:
    """`board.points`: `height` rows of `width` whole numbers within low..high."""
    rows = as_list(require(board, "points", "board."), "board.points")
    if len(rows) != height:
        raise RecordError(f"board.points: {len(rows)} rows, expected {height} (board.height)")
    for y, row in enumerate(rows):
        as_list(row, f"board.points[{y}]")
        if len(row) != width:
            raise RecordError(
                f"board.points[{y}]: {len(row)} values, expected {width} (board.width)"
            )
        for x, value in enumerate(row):
            whole(value, f"board.points[{y}][{x}]", low, high)
    return [list(row) for row in rows]


def cell(value: Any, name: str, width: int, height: int) -> tuple[int, int]:
    """An `[x, y]` pair on a width × height board."""
    pair = as_list(value, name)
    if len(pair) != 2:
        raise RecordError(f"{name}: expected [x, y], got {len(pair)} values")
    return (whole(pair[0], f"{name}[0]", 0, width - 1), whole(pair[1], f"{name}[1]", 0, height - 1))


def distinct(cells: Sequence[tuple[int, int]], names: Sequence[str]) -> None:
    """Refuse the second of two equal cells, naming both."""
    seen: dict[tuple[int, int], str] = {}
    for where, name in zip(cells, names, strict=True):
        if where in seen:
            raise RecordError(f"{name}: {list(where)} is also {seen[where]}")
        seen[where] = name
