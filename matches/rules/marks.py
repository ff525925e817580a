"""The marks a team's program may draw over the board with a submission (its debug
channel: docs/api.md, "Your program's debug output"; docs/formats.md, "Debug"): cells
with a colour and a short label, and lines between cells. Read here, so that the
answer service and the match record check them alike."""

from __future__ import annotations

import re
from typing import Any

from matches.rules.checks import MAX_SIDE

MAX_MARKS = 200
LABEL_LENGTH = 12  # characters of a mark's label
COLOURS = ("red", "orange", "yellow", "green", "blue", "purple", "white", "black")
HEX = re.compile(r"#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})")
UNSTORABLE = re.compile("[\x00\ud800-\udfff]")


class MarkError(ValueError):
    """Why marks cannot be read, in one line naming the field."""


def read_marks(marks: Any, where: str = "marks") -> list[dict[str, Any]] | None:
    """The marks as kept (None for none); MarkError says what is wrong."""
    if marks is None:
        return None
    if not isinstance(marks, list):
        raise MarkError(f"{where}: expected a list")
    if len(marks) > MAX_MARKS:
        raise MarkError(f"{where}: at most {MAX_MARKS}")
    return [_mark(mark, f"{where}[{index}]") for index, mark in enumerate(marks)]


def _mark(mark: Any, where: str) -> dict[str, Any]:
    if not isinstance(mark, dict):
        raise MarkError(f"{where}: expected an object")
    colour = mark.get("color", "yellow")
    if not isinstance(colour, str) or not (colour in COLOURS or HEX.fullmatch(colour)):
        raise MarkError(f"{where}.color: one of {', '.join(COLOURS)}, or #rgb / #rrggbb")
    if "cell" in mark:
        label = mark.get("label", "")
        if not isinstance(label, str) or len(label) > LABEL_LENGTH or UNSTORABLE.search(label):
            raise MarkError(f"{where}.label: a string of at most {LABEL_LENGTH} characters")
        return {"cell": _cell(mark["cell"], f"{where}.cell"), "color": colour, "label": label}
    if "line" in mark:
        ends = mark["line"]
        if not isinstance(ends, list) or len(ends) != 2:
            raise MarkError(f"{where}.line: expected two cells [[x, y], [x, y]]")
        return {"line": [_cell(end, f"{where}.line[{i}]") for i, end in enumerate(ends)],
                "color": colour}
    raise MarkError(f'{where}: expected "cell" or "line"')


def _cell(cell: Any, where: str) -> list[int]:
    if not (isinstance(cell, list) and len(cell) == 2
            and all(type(value) is int and 0 <= value < MAX_SIDE for value in cell)):
        raise MarkError(f"{where}: expected [x, y], each from 0 to {MAX_SIDE - 1}")
    return list(cell)
