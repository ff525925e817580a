"""The boards organisers make or bring (docs/boards.md): each kept under its name as a
file in its contest's own format, `var/boards/<game>/<name>.json` or `.map` (the public
boards' JSON or the Procon field JSON; a CHaser map file), so that what the editor
saves is what it exports, and a file brought from elsewhere is imported as it is.

A saved board is played by its name wherever a public board's name is taken by an
organiser: `creatematch --board`, `createtournament --boards`, the control room's forms
and the CHaser server's `--map`. It is the judges' alone (a final's board is a secret
until its match starts) until they mark it public (`board_publish`): then practice
takes it too and `GET /v1/boards` lists it; nothing a visitor is answered names a
private one. The names marked public are kept one a line in `public.txt` beside the
boards. Pure reading and writing of files: the editor's views call these; the rules
check every board before it is written."""

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


PUBLIC_LIST = "public.txt"  # the names of the saved boards marked public, one a line


def saved_names(game: str, public: bool = False) -> list[str]:
    """The names of the game's saved boards, sorted; with `public`, of those marked
    public only (the ones a visitor may see and play)."""
    folder = _folder(game)
    if not folder.is_dir():
        return []
    names = sorted(path.stem for path in folder.iterdir() if path.suffix in SUFFIXES)
    if public:
        marked = _public_marks(game)
        names = [name for name in names if name in marked]
    return names


def _public_marks(game: str) -> set[str]:
    try:
        text = (_folder(game) / PUBLIC_LIST).read_text(encoding="utf-8")
    except FileNotFoundError:
        return set()
    return {line.strip() for line in text.splitlines() if NAME.fullmatch(line.strip())}


def saved_public(game: str, name: str) -> bool:
    """Whether a saved board of this name exists and is marked public."""
    return saved_path(game, name) is not None and name in _public_marks(game)


def board_publish(game: str, name: str, public: bool) -> None:
    """Mark a saved board public (practice takes it, `GET /v1/boards` lists it) or
    private again (the judges' alone); BoardError if there is no such board."""
    if public and saved_path(game, name) is None:
        raise BoardError(f"no saved board named {name!r}")
    marks = _public_marks(game)
    marks = marks | {name} if public else marks - {name}
    _write(_folder(game), PUBLIC_LIST, "".join(f"{each}\n" for each in sorted(marks)).encode())


def public_version(game: str) -> tuple:
    """What changes whenever the list of the game's public saved boards or one of
    their files does (the key of a text built from them once)."""
    folder = _folder(game)
    stamps = []
    for path in [folder / PUBLIC_LIST, *(saved_path(game, n) for n in sorted(_public_marks(game)))]:
        try:
            stamps.append((str(path), path.stat().st_mtime_ns))
        except (FileNotFoundError, AttributeError):
            continue
    return tuple(stamps)


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
    written = board_file(game, board, hints, name)
    if written is None:
        raise BoardError(f"{rules_for(game).title} boards are not saved: its matches "
                         "are all played on one board")
    file_name, content = written
    checked, _ = board_from_file(game, content, file_name)  # read back as any file is
    if checked != board:
        raise BoardError("the board does not survive its own file format")
    folder = _folder(game)
    folder.mkdir(parents=True, exist_ok=True)
    for suffix in SUFFIXES:  # one file a name, whatever its format was
        (folder / f"{name}{suffix}").unlink(missing_ok=True)
    return _write(folder, file_name, content)


def _write(folder: Path, file_name: str, content: bytes) -> Path:
    """A file written whole or not at all (a reader never sees half of it)."""
    folder.mkdir(parents=True, exist_ok=True)
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
    if name in _public_marks(game):
        board_publish(game, name, False)
