"""Creating matches: the organiser's use case."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db import transaction

from matches.live.broadcast import summary_announce
from matches.models import Board, Match, Team, new_token, token_hash
from matches.rules.checks import RecordError, team_names, text_problem
from matches.services.turns import clock_wake

TEAM_NAME_LIMIT = Team._meta.get_field("name").max_length
TEAM_SHORT_LIMIT = Team._meta.get_field("short").max_length


@dataclass(frozen=True)
class CreatedMatch:
    match: Match
    tokens: list[str]  # shown once; only their hashes are stored


def team_names_check(names: Sequence[Any]) -> list[str]:
    """The two team names of any match, created or imported: not blank, no control
    characters, at most TEAM_NAME_LIMIT characters, different. RecordError otherwise,
    naming `teams[i].name`."""
    return team_names(names, limit=TEAM_NAME_LIMIT)


def team_shorts_check(shorts: Sequence[Any] | None) -> list[str]:
    """The organiser's short codes of the two teams, for where a full name does not fit
    (a wall, a phone): none at all, or two checked as names are, at most
    TEAM_SHORT_LIMIT characters each, naming `teams[i].short`."""
    if not shorts:
        return ["", ""]
    return team_names(shorts, limit=TEAM_SHORT_LIMIT, part="short")


def match_create(
    *,
    board: Board,
    team_names: Sequence[str],
    agents: int,
    turns: int,
    strategy_seconds: float,
    transition_seconds: float,
    start_at: datetime,
    title: str = "",
    public_live: bool = False,
    team_shorts: Sequence[str] | None = None,
    clock_seconds: float | None = None,
    match_games: int = 1,
    first_game: Match | None = None,
) -> CreatedMatch:
    """Store a match and its two teams, and wake the clocks. RecordError (one line) for
    team names or a title that no match may have. An alternating game's match has
    `clock_seconds` of thinking time a team, and no strategy or transition steps.

    The first game of a match of several has `match_games`; a later game played by a
    protocol server (CHaser's, whose teams swap sides) is made here with `first_game`
    and its own team names; `next_game_create` makes the games planned ahead."""
    names = team_names_check(team_names)
    shorts = team_shorts_check(team_shorts)
    problem = text_problem(title)
    if problem:
        raise RecordError(f"title: {problem}")
    tokens = [new_token() for _ in names]
    with transaction.atomic():
        steps = (0, 0) if clock_seconds is not None else (strategy_seconds, transition_seconds)
        match = Match.objects.create(
            game=board.game, title=title, board=board, agents=agents, turns=turns,
            strategy_ms=round(steps[0] * 1000), transition_ms=round(steps[1] * 1000),
            clock_ms=None if clock_seconds is None else round(clock_seconds * 1000),
            start_at=start_at, public_live=public_live, match_games=match_games,
            first_game=first_game,
        )
        for index, (name, token) in enumerate(zip(names, tokens, strict=True)):
            Team.objects.create(match=match, index=index, name=name, short=shorts[index],
                                token_hash=token_hash(token))
        clock_wake()
        # the lists and the event streams hear of it now, not at its first turn
        transaction.on_commit(lambda: summary_announce(match), robust=True)
    return CreatedMatch(match, tokens)


def next_game_create(*, first: Match, board: Board, agents: int, start_at: datetime,
                     title: str = "", secret_board: bool = True) -> Match:
    """A later game of `first`'s match (Procon 2020's second): the same teams, whose
    tokens serve it too (its own teams' token hashes are random: a token always finds
    the first game's team, and `access` follows it here), the same turns and timing, a
    board (and so a number of agents) of its own, secret until its start by default."""
    problem = text_problem(title)
    if problem:
        raise RecordError(f"title: {problem}")
    with transaction.atomic():
        game = Match.objects.create(
            game=first.game, title=title, board=board, agents=agents, turns=first.turns,
            strategy_ms=first.strategy_ms, transition_ms=first.transition_ms,
            clock_ms=first.clock_ms, start_at=start_at, public_live=first.public_live,
            first_game=first, match_games=first.match_games, secret_board=secret_board,
        )
        for team in first.teams.all():
            Team.objects.create(match=game, index=team.index, name=team.name, short=team.short,
                                token_hash=token_hash(new_token()))
        clock_wake()
        transaction.on_commit(lambda: summary_announce(game), robust=True)
    return game
