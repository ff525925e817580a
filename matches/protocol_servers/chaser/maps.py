"""CHaser's map files (the `N:`/`T:`/`S:`/`D:`/`C:`/`H:` lines of the contests): where
the shipped ones are, how one is read, and the server settings that play one.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from matches.boards.saved import saved_names, saved_path
from matches.protocol_servers.chaser.game import Settings
from matches.rules import chaser
from matches.services import protocol

MAPS = Path(__file__).resolve().parents[2] / "boards" / "chaser"


def map_path(name: str) -> Path:
    """A map file's path: the file itself, the name of a map in MAPS, or of a map
    saved by the organisers (matches/boards/saved.py)."""
    path = Path(name)
    if path.exists() or path.suffix or (MAPS / f"{name}.map").exists():
        return path if path.exists() or path.suffix else MAPS / f"{name}.map"
    return saved_path(chaser.ChaserRules.game, name) or MAPS / f"{name}.map"


def map_read(path: Path) -> dict[str, Any]:
    """The map's match-record/1 dict (chaser.parse_map); OSError, UnicodeDecodeError or
    chaser.MapError (naming the map's line) when it cannot be read."""
    return chaser.parse_map(path.read_bytes().decode("utf-8-sig"), name=path.stem)


def board_problem(name: str) -> str:
    """Why a map named by an organiser cannot be played ("" when it can)."""
    path = map_path(name)
    try:
        map_read(path)
    except OSError as error:
        known = ", ".join(sorted(p.stem for p in MAPS.glob("*.map")))
        saved = ", ".join(saved_names(chaser.ChaserRules.game))
        return (f"{name}: {error.strerror} (the shipped maps: {known}"
                + (f"; the saved maps: {saved})" if saved else ")"))
    except (UnicodeDecodeError, chaser.MapError) as error:
        return f"{path}: {error}"
    return ""


def map_settings(path: Path, record: dict[str, Any], **options: Any) -> Settings:
    """Server settings for a map read by `map_read` (its Board stored or reused)."""
    title = record["title"]  # the map's N: line, often a word like "random"
    name = path.stem if title in ("", path.stem) else f"{path.stem} ({title})"
    board = protocol.map_board(f"CHaser {name}", record["board"], f"map file {path.name}",
                               "chaser")
    options.setdefault("turns", record["turns"])
    return Settings(board=board, **options)

