"""Files in the games' own formats, read and written here so that nothing outside
`matches/rules/` needs to know which game has which: a record file (a match-record/1,
or Blokus Duo's game record, 棋譜, one 4-character code a line), the game record of a
match record, CHaser's map files, and a board's file as its game's rules write it
(each game's format in its own rules module: `board_read`, `board_file`). Every error
is a one-line `RecordError`."""

from __future__ import annotations

from pathlib import Path

from matches.rules import rules_for
from matches.rules.blokus_duo import BlokusDuoRules
from matches.rules.blokus_duo_kifu import kifu_from_record, record_from_kifu
from matches.rules.chaser import MapError, parse_map
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


def board_file(game: str, board: dict, hints: dict, name: str) -> tuple[str, bytes] | None:
    """A checked board in its contest's own file (docs/boards.md), as the game's rules
    write it: the file's name and its bytes; None for a game whose boards are not kept
    in files."""
    return rules_for(game).board_file(board, hints, name)
