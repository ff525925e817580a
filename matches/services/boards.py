"""Storing a match's board: one Board row per distinct board."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any, NamedTuple

from django.db import IntegrityError, transaction

from matches.boards.saved import saved_board, saved_names, saved_path, saved_public
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
    """The Board row for a game's board spec: the one of that name if it is the same
    board; else a new row under that name or, where another board has the name, under
    the name and the board's digest. The same board always comes to the same name, so
    requests at once that bring one board share its row, and requests that bring
    different boards never race for one name (which a count-based name would)."""
    digest = hashlib.blake2b(json.dumps([game, spec], sort_keys=True).encode())
    for candidate in (name, f"{name} ({digest.hexdigest()[:10]})",
                      f"{name} ({digest.hexdigest()})"):
        for _ in range(2):  # a second look when another request took the name meanwhile
            existing = Board.objects.filter(name=candidate).first()
            if existing is not None:
                if existing.data == spec and existing.game == game:
                    return existing
                break  # another board's name: the next one
            try:
                with transaction.atomic():  # (a savepoint inside a caller's transaction)
                    return Board.objects.create(name=candidate, game=game,
                                                width=spec["width"], height=spec["height"],
                                                data=spec, source=source)
            except IntegrityError:
                continue
    raise IntegrityError(f"no free name for board {name!r}")


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


def boards_offered(game: str) -> list[str]:
    """The board names a visitor may see and play (practice): the public boards and
    the saved boards the judges marked public, never a private one."""
    return [*public_boards(game), *saved_names(game, public=True)]


def board_offered(game: str, name: str) -> bool:
    return name in public_boards(game) or saved_public(game, name)


def board_offered_spec(game: str, name: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """An offered board (`boards_offered`) and its suggested settings."""
    if name in public_boards(game):
        return board_spec_public(game, name)
    if not saved_public(game, name):
        raise BoardError(f"no public board named {name!r}")
    return saved_board(game, name)


def board_default(game: str) -> ChosenBoard:
    """The board of a game's match when nobody chose one: the game's only board, else a
    random one."""
    return board_choose(game, None if board_spec_fixed(game) is not None else "random")
