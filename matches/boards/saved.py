"""The boards organisers make or bring (docs/boards.md): each kept under its name as a
file in its contest's own format, `var/boards/<game>/<name>.json` or `.map` (the public
boards' JSON or the Procon field JSON; a CHaser map file), so that what the editor
saves is what it exports, and a file brought from elsewhere is imported as it is.

A saved board is played by its name wherever a public board's name is taken:
`creatematch --board`, `createtournament --boards`, the control room's forms, practice
and the CHaser server's `--map`. Pure reading and writing of files: the editor's views
call these; the rules check every board before it is written."""

from __future__ import annotations

import json
import os
import re
import tempfile
from pathlib import Path
from typing import Any

from django.conf import settings

from matches.boards.specs import HERE, BoardError, board_check, board_spec_data, public_boards
from matches.rules import rules_for
from matches.rules.checks import RecordError
from matches.rules.files import board_file, map_record

NAME = re.compile(r"[^\W_][\w.\-]{0,39}")  # letters of any script, digits, . _ -
FILE_LIMIT = 256 * 1024  # bytes of a board's file: the largest field is a few KiB
SUFFIXES = (".json", ".map")


def _folder(game: str) -> Path:
    return Path(settings.VAR_DIR) / "boards" / game


def saved_names(game: str) -> list[str]:
    """The names of the game's saved boards, sorted."""
    folder = _folder(game)
    if not folder.is_dir():
        return []
    return sorted(path.stem for path in folder.iterdir() if path.suffix in SUFFIXES)


def saved_path(game: str, name: str) -> Path | None:
    """The file of a saved board, if the game has one of that name."""
    if not NAME.fullmatch(name):
        return None
    for suffix in SUFFIXES:
        path = _folder(game) / f"{name}{suffix}"
        if path.is_file():
            return path
    return None


def shipped_names(game: str) -> set[str]:
    """The names taken by what the project ships: public boards and map files."""
    folder = HERE / game
    files = {path.stem for path in folder.iterdir()} if folder.is_dir() else set()
    return set(public_boards(game)) | files


def name_problem(game: str, name: str) -> str:
    """Why a board may not be saved under this name ("" when it may)."""
    if not NAME.fullmatch(name):
        return ("a name is 1 to 40 letters, digits, dots, dashes or underscores, "
                "starting with a letter or a digit")
    if name == "random" or name.startswith("random"):
        return "names starting with random are the generated boards'"
    if name in shipped_names(game):
        return f"{name} is a board the project ships"
    return ""


def board_from_file(game: str, raw: bytes, name: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """A board and its suggested settings (`agents`, `turns`) from a file in its
    contest's format, checked by the game's rules; BoardError in one line."""
    if len(raw) > FILE_LIMIT:
        raise BoardError(f"{name}: {len(raw)} bytes; a board's file is at most "
                         f"{FILE_LIMIT // 1024} KiB")
    text = raw.decode("utf-8-sig", errors="replace")
    if text.lstrip()[:1] == "{":
        try:
            data = json.loads(text)
        except ValueError as error:
            raise BoardError(f"{name}: not JSON ({error})") from None
        board, hints = board_spec_data(game, data, name)
        hints.pop("record", None)
        if isinstance(data, dict) and data.get("totalTurn") and "turns" not in hints:
            hints["turns"] = data["totalTurn"]
        return board, {key: hints[key] for key in ("agents", "turns") if hints.get(key)}
    try:
        record = map_record(text, name=Path(name).stem)
    except RecordError as error:
        raise BoardError(f"{name}: {error}") from None
    if record["game"] != game:
        raise BoardError(f"{name}: a map of {rules_for(record['game']).title}, "
                         f"not of {rules_for(game).title}")
    board, _ = board_spec_data(game, record, name)
    return board, {"agents": record["agents"], "turns": record["turns"]}


def saved_board(game: str, name: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """A saved board and its settings; BoardError if there is none of the name."""
    path = saved_path(game, name)
    if path is None:
        raise BoardError(f"no saved board named {name!r}")
    return board_from_file(game, path.read_bytes(), path.name)


def board_save(game: str, name: str, board: dict[str, Any], hints: dict[str, Any]) -> Path:
    """Check a board by the game's rules and keep it under `name` in its contest's
    format, replacing a saved board of that name; BoardError if it cannot be."""
    problem = name_problem(game, name)
    if problem:
        raise BoardError(problem)
    board = board_check(game, board)
    file_name, content = board_file(board, hints, name)
    checked, _ = board_from_file(game, content, file_name)  # read back as any file is
    if checked != board:
        raise BoardError("the board does not survive its own file format")
    folder = _folder(game)
    folder.mkdir(parents=True, exist_ok=True)
    for suffix in SUFFIXES:  # one file a name, whatever its format was
        (folder / f"{name}{suffix}").unlink(missing_ok=True)
    handle, temporary = tempfile.mkstemp(dir=folder, prefix=".saving-")
    with os.fdopen(handle, "wb") as out:
        out.write(content)
    path = folder / file_name
    os.replace(temporary, path)
    return path


def board_delete(game: str, name: str) -> None:
    path = saved_path(game, name)
    if path is None:
        raise BoardError(f"no saved board named {name!r}")
    path.unlink()
