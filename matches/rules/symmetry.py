"""Which mirrors a board is symmetric under, for the board editors (docs/boards.md):
left to right, top to bottom, or turned half round its centre. A game says what a cell
holds (`signature(board, x, y, swap)`: with `swap`, team 0's things read as team 1's,
since a fair board gives each team the mirror of the other's)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from matches.rules import words

MIRRORS: dict[str, Callable[[int, int, int, int], tuple[int, int]]] = {
    "left-right": lambda width, height, x, y: (width - 1 - x, y),
    "top-bottom": lambda width, height, x, y: (x, height - 1 - y),
    "point": lambda width, height, x, y: (width - 1 - x, height - 1 - y),
}

Signature = Callable[[Mapping[str, Any], int, int, bool], Any]


def mirrors_of(board: Mapping[str, Any], signature: Signature) -> list[str]:
    """The mirrors (MIRRORS' names) under which every cell holds what its partner holds,
    teams swapped."""
    width, height = board["width"], board["height"]
    return [name for name, partner in MIRRORS.items()
            if all(signature(board, x, y, False) ==
                   signature(board, *partner(width, height, x, y), True)
                   for y in range(height) for x in range(width))]


def starts_at(board: Mapping[str, Any]) -> dict[tuple[int, int], int]:
    """The team of each start cell of a board with `start` cells ({} without)."""
    found: dict[tuple[int, int], int] = {}
    start = board.get("start") or []
    for team, cells in enumerate(start):
        if cells and isinstance(cells[0], int):  # one player a team: [x, y]
            cells = [cells]
        for x, y in cells:
            found[(x, y)] = team
    return found


# Translators: how a board is mirrored, in the board editor's notes
MIRROR_WORDS = {"left-right": words.gettext_noop("left to right"),
                "top-bottom": words.gettext_noop("top to bottom"),
                "point": words.gettext_noop("turned half round its centre")}


def symmetry_said(mirrors: list[str]) -> str:
    """The board editor's note on a board's symmetry, in the moment's language."""
    if not mirrors:
        return words.gettext("Not symmetric: one team may have the better half.")
    said = ", ".join(words.gettext(MIRROR_WORDS[name]) for name in mirrors)
    return words.gettext("Symmetric: %(mirrors)s.") % {"mirrors": said}
