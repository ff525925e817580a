"""Creating matches: the organiser's use case."""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import datetime

from django.db import transaction

from matches.models import Board, Match, Team, token_hash


@dataclass(frozen=True)
class CreatedMatch:
    match: Match
    tokens: list[str]  # shown once; only their hashes are stored


def match_create(
    *,
    board: Board,
    team_names: list[str],
    agents: int,
    turns: int,
    strategy_seconds: float,
    transition_seconds: float,
    start_at: datetime,
    title: str = "",
    public_live: bool = False,
) -> CreatedMatch:
    if len(team_names) != 2 or len(set(team_names)) != 2:
        raise ValueError("a match needs two teams with different names")
    tokens = [secrets.token_urlsafe(24) for _ in team_names]
    with transaction.atomic():
        match = Match.objects.create(
            game=board.game, title=title, board=board, agents=agents, turns=turns,
            strategy_ms=round(strategy_seconds * 1000),
            transition_ms=round(transition_seconds * 1000), start_at=start_at,
            public_live=public_live,
        )
        for index, (name, token) in enumerate(zip(team_names, tokens, strict=True)):
            Team.objects.create(match=match, index=index, name=name, token_hash=token_hash(token))
    return CreatedMatch(match, tokens)
