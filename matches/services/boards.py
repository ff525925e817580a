"""Where a match's board comes from: a public board by name, a file, or a random one."""

from __future__ import annotations

import json
import random
from functools import cache
from pathlib import Path
from typing import Any

from matches.models import Board
from matches.rules.records import RecordError, parse_record

PUBLIC_BOARDS = Path(__file__).resolve().parent.parent / "boards" / "kakomimasu-boards.json"
# Procon 31 official limits for generated boards.
SIDE_RANGE, AGENT_RANGE = (12, 24), (6, 14)


class BoardError(ValueError):
    """A board that cannot be used; the message says why in one line."""


@cache
def public_boards() -> dict[str, dict[str, Any]]:
    return json.loads(PUBLIC_BOARDS.read_text(encoding="utf-8"))


def _from_flat(board: dict[str, Any]) -> dict[str, Any]:
    """The public boards' shape: flat points, index = x + y * width."""
    width, height, flat = board["width"], board["height"], board["points"]
    if len(flat) != width * height:
        raise BoardError(f"points: {len(flat)} values, expected {width}×{height}")
    return {"width": width, "height": height,
            "points": [flat[y * width:(y + 1) * width] for y in range(height)]}


def _checked(board: dict[str, Any]) -> dict[str, Any]:
    """Validate a match-record/1 board through the records module."""
    probe = {"format": "match-record/1", "game": "kakomimasu", "board": board, "agents": 1,
             "turns": 1, "teams": [{"name": "A"}, {"name": "B"}]}
    try:
        return parse_record(probe).board
    except RecordError as error:
        raise BoardError(str(error)) from None


def board_spec_public(name: str) -> tuple[dict[str, Any], dict[str, int]]:
    """A public board and its suggested settings (agents, turns, strategy seconds)."""
    try:
        raw = public_boards()[name]
    except KeyError:
        known = ", ".join(public_boards())
        raise BoardError(f"no public board named {name!r} (known: {known})") from None
    hints = {"agents": raw.get("nAgent"), "turns": raw.get("totalTurn"),
             "strategy_seconds": raw.get("operationSec")}
    return _checked(_from_flat(raw)), {k: v for k, v in hints.items() if v}


def board_spec_file(path: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    """A board from a file: a match record, a public-boards file, or a Procon field JSON."""
    try:
        data = json.loads(path.read_bytes())
    except (OSError, ValueError) as error:
        raise BoardError(f"{path}: {error}") from None
    if not isinstance(data, dict):
        raise BoardError(f"{path}: expected a JSON object")
    if data.get("format") == "match-record/1":
        try:
            record = parse_record(data)
        except RecordError as error:
            raise BoardError(f"{path}: {error}") from None
        return record.board, {"agents": record.agents, "turns": record.turns,
                              "title": record.title, "record": record}
    if "points" not in data and len(data) == 1:  # {name: board}, as in the public file
        data = next(iter(data.values()))
    if not isinstance(data, dict) or "points" not in data:
        raise BoardError(f"{path}: not a match record, a board or a Procon field")
    points = data["points"]
    board = _from_flat(data) if points and not isinstance(points[0], list) else {
        "width": data.get("width"), "height": data.get("height"), "points": points}
    hints = {"agents": data.get("nAgent"), "turns": data.get("totalTurn")}
    return _checked(board), {k: v for k, v in hints.items() if v}


def board_spec_random(seed: int | None = None) -> tuple[dict[str, Any], dict[str, int]]:
    """A symmetric board within the official limits, mostly positive, a few negative cells."""
    rng = random.Random(seed)
    width, height = rng.randint(*SIDE_RANGE), rng.randint(*SIDE_RANGE)
    half = [[_random_point(rng) for _ in range(width)] for _ in range((height + 1) // 2)]
    mirror = rng.choice(["vertical", "point"])
    rows = half + [list(row) if mirror == "vertical" else row[::-1]
                   for row in reversed(half[: height // 2])]
    return _checked({"width": width, "height": height, "points": rows}), {
        "agents": rng.randint(*AGENT_RANGE)}


def _random_point(rng: random.Random) -> int:
    return rng.randint(-16, -1) if rng.random() < 0.12 else rng.randint(0, 16)


def board_store(name: str, spec: dict[str, Any], source: str) -> Board:
    """The Board row for a spec: reuse one of that name if it is identical."""
    existing = Board.objects.filter(name=name).first()
    if existing and existing.data == spec:
        return existing
    if existing:
        name = f"{name} ({Board.objects.filter(name__startswith=name).count() + 1})"
    return Board.objects.create(name=name, game="kakomimasu", width=spec["width"],
                                height=spec["height"], data=spec, source=source)
