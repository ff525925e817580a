"""Files in the games' own formats, read and written here so that nothing outside
`matches/rules/` needs to know which game has which: a record file (a match-record/1,
or Blokus Duo's game record, 棋譜, one 4-character code a line), the game record of a
match record, and CHaser's map files. Every error is a one-line `RecordError`."""

from __future__ import annotations

import json
from pathlib import Path

from matches.rules.blokus_duo import BlokusDuoRules
from matches.rules.blokus_duo_kifu import kifu_from_record, record_from_kifu
from matches.rules.chaser import MapError, map_text, parse_map
from matches.rules.checks import RecordError
from matches.rules.records import MatchRecord, parse_record


def record_from_bytes(raw: bytes, name: str) -> MatchRecord:
    """A file's record: JSON is a match-record/1, anything else a Blokus Duo game
    record titled after the file. Raises RecordError or KifuError, in one line."""
    if raw.lstrip(b"\xef\xbb\xbf \t\r\n")[:1] in (b"{", b"["):
        return parse_record(raw)
    try:
        text = raw.decode("ascii")
    except UnicodeDecodeError as error:
        problem = f"neither JSON nor a game record (byte {error.start} is not ASCII)"
        raise RecordError(problem) from None
    return parse_record(record_from_kifu(text, title=Path(name).stem))


GAME_RECORD_GAMES = (BlokusDuoRules.game,)  # games whose records have a text game record


def game_record_text(record: MatchRecord) -> str:
    """The game record (棋譜) of a parsed match record, CRLF line ends."""
    if record.game not in GAME_RECORD_GAMES:
        have = ", ".join(f'"{game}"' for game in GAME_RECORD_GAMES)
        raise RecordError(f'game: "{record.game}" has no game record; only {have} does')
    return kifu_from_record(record)


def map_record(text: str, name: str = "") -> dict:
    """The match-record/1 dict (no actions yet) of a CHaser map file."""
    try:
        return parse_map(text, name=name)
    except MapError as error:
        raise RecordError(str(error)) from None


def board_file(board: dict, hints: dict, name: str) -> tuple[str, bytes]:
    """A checked board in its contest's own file (docs/boards.md): a map (a board of
    cells) as a CHaser map file; a field with start cells, obstacles or treasures as the
    Procon field JSON (points in rows); any other as the public boards' file
    (`{name: {...}}`, points flat). The file's name and its bytes."""
    turns, agents = hints.get("turns"), hints.get("agents")
    if "cells" in board:
        return f"{name}.map", map_text(board, turns or 100, name).encode()
    size = {"name": name, "width": board["width"], "height": board["height"]}
    extras = {key: board[key] for key in ("obstacles", "treasures", "start") if key in board}
    if extras:
        data = {**size, "points": board["points"], **extras}
    else:
        data = {**size, "points": [value for row in board["points"] for value in row]}
        data |= {"nAgent": agents} if agents else {}
    data |= {"totalTurn": turns} if turns else {}
    data = data if extras else {name: data}
    return f"{name}.json", (json.dumps(data, ensure_ascii=False) + "\n").encode()
