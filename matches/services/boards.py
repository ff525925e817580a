"""Storing a match's board: one Board row per distinct board."""

from __future__ import annotations

from typing import Any

from matches.models import Board


def board_store(name: str, spec: dict[str, Any], source: str, game: str) -> Board:
    """The Board row for a game's board spec: reuse one of that name if it is identical."""
    existing = Board.objects.filter(name=name).first()
    if existing and existing.data == spec and existing.game == game:
        return existing
    if existing:
        name = f"{name} ({Board.objects.filter(name__startswith=name).count() + 1})"
    return Board.objects.create(name=name, game=game, width=spec["width"],
                                height=spec["height"], data=spec, source=source)
