"""Storing a match's board: one Board row per distinct board."""

from __future__ import annotations

from pathlib import Path
from typing import Any, NamedTuple

from matches.boards.saved import saved_board, saved_names, saved_path
from matches.boards.specs import (
    BoardError,
    board_spec_file,
    board_spec_fixed,
    board_spec_public,
    board_spec_random,
    public_boards,
)
from matches.models import Board
from matches.rules import rules_for


class ChosenBoard(NamedTuple):
    """A match's board as `board_choose` gives it: its row and its suggested settings
    (`agents`, `turns`, a record's `title`, ...), which the match takes unless told."""

    board: Board
    hints: dict[str, Any]


def board_store(name: str, spec: dict[str, Any], source: str, game: str) -> Board:
    """The Board row for a game's board spec: reuse one of that name if it is identical."""
    existing = Board.objects.filter(name=name).first()
    if existing and existing.data == spec and existing.game == game:
        return existing
    if existing:
        name = f"{name} ({Board.objects.filter(name__startswith=name).count() + 1})"
    return Board.objects.create(name=name, game=game, width=spec["width"],
                                height=spec["height"], data=spec, source=source)


def board_choose(game: str, text: str | None) -> ChosenBoard:
    """The Board row and its suggested settings (agents, turns, ...) for a board as an
    organiser names it: a public or saved board's name, a file, `random` or `random:SEED`; none
    for a game played on one board only. BoardError, in words for the organiser."""
    fixed = board_spec_fixed(game)
    if fixed is not None:
        if text is not None:
            raise BoardError(f"{rules_for(game).title} has one board only; leave the board out")
        spec, hints = fixed
        return ChosenBoard(board_store(hints["name"], spec, "the rules", game), hints)
    if text is None:
        raise BoardError("required for this game (a public board's name, a file, or random)")
    try:
        if text == "random" or text.startswith("random:"):
            seed = int(text.split(":", 1)[1]) if ":" in text else None
            spec, hints = board_spec_random(game, seed)
            label = f"random {spec['width']}x{spec['height']}"
            label += f" seed {seed}" if seed is not None else ""
            return ChosenBoard(board_store(label, spec, "generated", game), hints)
        if text in public_boards(game):
            spec, hints = board_spec_public(game, text)
            return ChosenBoard(board_store(text, spec, "public boards (MIT)", game), hints)
        if saved_path(game, text) is not None:
            spec, hints = saved_board(game, text)
            return ChosenBoard(board_store(text, spec, "saved board", game), hints)
        path = Path(text)
        if not path.exists():
            known = ", ".join([*public_boards(game), *saved_names(game)]) or "none yet"
            raise BoardError(f"{text}: neither a file, random, nor a public or saved board "
                             f"({known})")
        spec, hints = board_spec_file(game, path)
        return ChosenBoard(board_store(path.stem, spec, f"file {path.name}", game), hints)
    except ValueError as error:  # a bad seed, a file that is no board
        raise BoardError(str(error)) from None


def board_choose_named(game: str, text: str | None) -> ChosenBoard:
    """As `board_choose`, for a board named where nobody may open the server's files
    (the control room's forms, practice): random, a public or a saved board's name."""
    if board_spec_fixed(game) is None and text is not None and text != "random" \
            and not text.startswith("random:") and text not in public_boards(game) \
            and saved_path(game, text) is None:
        known = ", ".join(["random", *public_boards(game), *saved_names(game)])
        raise BoardError(f"{text}: not random nor a public or saved board of this game "
                         f"({known})")
    return board_choose(game, text)


def board_default(game: str) -> ChosenBoard:
    """The board of a game's match when nobody chose one: the game's only board, else a
    random one."""
    return board_choose(game, None if board_spec_fixed(game) is not None else "random")
