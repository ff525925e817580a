"""Creating matches: the organiser's use case."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.db import transaction

from matches.live.broadcast import summary_announce
from matches.models import Board, Match, Team, new_token, token_hash
from matches.models.titles import game_parts
from matches.rules import rules_for
from matches.rules.checks import RecordError, team_names, text_problem
from matches.rules.turns import is_alternating
from matches.services.boards import ChosenBoard, board_default
from matches.services.clock import clock_wake

TEAM_NAME_LIMIT = Team._meta.get_field("name").max_length
# A short code is at most 4 characters wherever it is given (a match, a tournament): what
# a wall's tile fits, and what a CHaser screen shows of a name.
TEAM_SHORT_LIMIT = 4
# What a match takes when its board and its organiser say nothing.
DEFAULT_AGENTS = 6
DEFAULT_TURNS = 30


@dataclass(frozen=True)
class CreatedMatch:
    match: Match
    tokens: list[str]  # shown once; only their hashes are stored


@dataclass(frozen=True)
class Timing:
    """How a match's games are paced; None takes the default. A timed game: its turns
    (the board's own, else DEFAULT_TURNS) and each turn's strategy and transition steps.
    An alternating game: each team's chess clock for a game (its rules' own); its turns
    are the rules' limit and it has no steps. A match of several games: the pause
    between a game's last turn and the next game's start."""

    turns: int | None = None
    strategy_seconds: float | None = None
    transition_seconds: float | None = None
    clock_seconds: float | None = None
    between_seconds: float | None = None

    def steps(self) -> tuple[float, float]:
        """A timed turn's strategy and transition steps, in seconds (5 and 1 unless set)."""
        return (5.0 if self.strategy_seconds is None else self.strategy_seconds,
                1.0 if self.transition_seconds is None else self.transition_seconds)

    def pause(self) -> timedelta:
        """Between a game's last turn and the next game's start (30 s unless set)."""
        seconds = 30.0 if self.between_seconds is None else self.between_seconds
        return timedelta(seconds=max(seconds, 0.0))

    def checked(self, rules: Any) -> Timing:
        """This timing, if a game of `rules` can be played with it: the one check of every
        way a match is made (creatematch, the control room's form, practice, a
        tournament), each saying the refusal in its own words for the field. An
        alternating game's timing is its chess clock (no turns, no steps), a timed
        game's its turns and steps (no clock). TimingError otherwise."""
        if is_alternating(rules):
            for name in ("strategy_seconds", "transition_seconds"):
                if getattr(self, name) is not None:
                    raise TimingError(name, f"{rules.title} is played in alternating turns on "
                                            "chess clocks: set each team's thinking time")
            if self.turns is not None:
                raise TimingError("turns", f"a game of {rules.title} ends when the rules say "
                                           "so, not after a number of turns")
            return self
        if self.clock_seconds is not None:
            raise TimingError("clock_seconds", f"{rules.title} is played in timed turns: set "
                                               "its strategy and transition steps")
        if self.turns is not None and self.turns < 1:
            raise TimingError("turns", "at least 1")
        if self.strategy_seconds is not None and self.strategy_seconds <= 0:
            raise TimingError("strategy_seconds", "must be more than 0")
        if self.transition_seconds is not None and self.transition_seconds < 0:
            raise TimingError("transition_seconds", "must not be negative")
        return self


class TimingError(ValueError):
    """A timing a game cannot be played with: `field` names the Timing's setting, the
    words say why (each surface names the field its own way: --clock, clock, …)."""

    def __init__(self, field: str, words: str) -> None:
        super().__init__(words)
        self.field = field


@dataclass(frozen=True)
class MadeMatch:
    games: list[Match]  # the match's games in order; the first is the match
    tokens: list[str]  # one a team, for every game; shown once, only hashes are stored

    @property
    def match(self) -> Match:
        return self.games[0]


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
    title_parts: dict | None = None,
    public_live: bool = False,
    team_shorts: Sequence[str] | None = None,
    clock_seconds: float | None = None,
    match_games: int = 1,
    first_game: Match | None = None,
    delay_seconds: int = 0,
) -> CreatedMatch:
    """Store a match and its two teams, and wake the clocks. RecordError (one line) for
    team names or a title that no match may have. An alternating game's match has
    `clock_seconds` of thinking time a team, and no strategy or transition steps.

    One game, stored as told: a new match is made by `match_make`, which fills in the
    defaults and plans its later games. The first game of a match of several has
    `match_games`; a later game played by a protocol server (CHaser's, whose teams swap
    sides) is made here with `first_game` and its own team names. `delay_seconds` is
    its spectator delay (a later game has its first's)."""
    names = team_names_check(team_names)
    shorts = team_shorts_check(team_shorts)
    problem = text_problem(title)
    if problem:
        raise RecordError(f"title: {problem}")
    tokens = [new_token() for _ in names]
    with transaction.atomic():
        steps = (0, 0) if clock_seconds is not None else (strategy_seconds, transition_seconds)
        match = Match.objects.create(
            game=board.game, title=title, title_parts=title_parts or {}, board=board,
            agents=agents, turns=turns,
            strategy_ms=round(steps[0] * 1000), transition_ms=round(steps[1] * 1000),
            clock_ms=None if clock_seconds is None else round(clock_seconds * 1000),
            start_at=start_at, public_live=public_live, match_games=match_games,
            first_game=first_game,
            delay_s=first_game.delay_s if first_game is not None else delay_seconds,
        )
        _public_late(match)
        for index, (name, token) in enumerate(zip(names, tokens, strict=True)):
            Team.objects.create(match=match, index=index, name=name, short=shorts[index],
                                token_hash=token_hash(token))
        clock_wake()
        # the lists and the event streams hear of it now, not at its first turn
        summary_announce(match)
    return CreatedMatch(match, tokens)


def _public_late(match: Match) -> None:
    """A match made with a spectator delay comes to the public as late as everything in
    it (access/delay.py): from its making plus the delay."""
    if match.delay_s:
        match.public_from = match.created_at + timedelta(seconds=match.delay_s)
        Match.objects.filter(pk=match.pk).update(public_from=match.public_from)


def next_game_create(*, first: Match, board: Board, agents: int, start_at: datetime,
                     title: str = "", title_parts: dict | None = None,
                     secret_board: bool = True) -> Match:
    """A later game of `first`'s match (Procon 2020's second): the same teams, whose
    tokens serve it too (its own teams' token hashes are random: a token always finds
    the first game's team, and `access` follows it here), the same turns and timing, a
    board (and so a number of agents) of its own, secret until its start by default."""
    problem = text_problem(title)
    if problem:
        raise RecordError(f"title: {problem}")
    with transaction.atomic():
        game = Match.objects.create(
            game=first.game, title=title, title_parts=title_parts or {}, board=board,
            agents=agents, turns=first.turns,
            strategy_ms=first.strategy_ms, transition_ms=first.transition_ms,
            clock_ms=first.clock_ms, start_at=start_at, public_live=first.public_live,
            first_game=first, match_games=first.match_games, secret_board=secret_board,
            delay_s=first.delay_s,
        )
        _public_late(game)
        for team in first.teams.all():
            Team.objects.create(match=game, index=team.index, name=team.name, short=team.short,
                                token_hash=token_hash(new_token()))
        clock_wake()
        summary_announce(game)
    return game


def whole_second(moment: datetime) -> datetime:
    """The moment, or the next whole second after it."""
    if not moment.microsecond:
        return moment
    return moment.replace(microsecond=0) + timedelta(seconds=1)


def match_make(*, game: str, team_names: Sequence[str], start_at: datetime,
               boards: Sequence[ChosenBoard] = (), timing: Timing = Timing(),
               agents: int | None = None, title: str = "", public_live: bool = False,
               team_shorts: Sequence[str] | None = None, delay_seconds: int = 0,
               title_parts: dict | None = None) -> MadeMatch:
    """Make a whole match of `game` between two teams, starting at `start_at`: every
    game its rules plan ahead (`games_per_match`), each on its board (`boards` in order,
    as `board_choose` gives them; `board_default` where none is given), each later game
    secret until its start, `timing.pause()` after the game before has played its last
    turn. The same two tokens play every game.

    The first board's settings fill in what is not given: the agents, a timed game's
    turns, the title (a record's own); a later game has its own board's agents. All is
    stored in one transaction, and the clocks are woken. RecordError (one line) for team
    names, short codes or a title that no match may have.

    The one way to make a new match: the commands, the demo and the tournaments' runner
    call it. A game played by its protocol server is not made here: that server makes
    each game as its programs arrive (`services/protocol.py`).

    Each game starts on a whole second (`start_at` rounded up): the contests' APIs give
    the start in whole seconds (`startedAtUnixTime`), and a program that computes its
    steps' deadlines from it must get them exactly."""
    start_at = whole_second(start_at)
    rules = rules_for(game)
    alternating = is_alternating(rules)
    with transaction.atomic():
        chosen = list(boards[:rules.games_per_match])
        chosen += [board_default(game) for _ in range(rules.games_per_match - len(chosen))]
        board, hints = chosen[0]
        strategy, transition = timing.steps()
        created = match_create(
            board=board, team_names=team_names, team_shorts=team_shorts,
            agents=agents or hints.get("agents", DEFAULT_AGENTS),
            turns=(None if alternating else timing.turns) or hints.get("turns")
            or DEFAULT_TURNS,
            strategy_seconds=strategy, transition_seconds=transition,
            clock_seconds=(timing.clock_seconds or rules.default_clock_seconds)
            if alternating else None,
            start_at=start_at, title=title or hints.get("title") or "",
            title_parts=title_parts, public_live=public_live,
            match_games=rules.games_per_match,
            delay_seconds=delay_seconds)
        games = [created.match, *_later_games(created.match, chosen[1:], timing.pause())]
    return MadeMatch(games, created.tokens)


def _later_games(first: Match, boards: Sequence[ChosenBoard], pause: timedelta) -> list[Match]:
    """The games after `first`, one a board, each `pause` after the last turn of the one
    before, titled after the first ("Final (game 2)", in each reader's language:
    matches/models/titles.py)."""
    games = [first]
    for number, (board, hints) in enumerate(boards, start=2):
        before = games[-1]
        games.append(next_game_create(
            first=first, board=board, agents=hints.get("agents", DEFAULT_AGENTS),
            start_at=whole_second(before.start_at + before.turns * before.period + pause),
            **dict(zip(("title", "title_parts"),
                       game_parts(first.title_parts, first.title, number), strict=True))))
    return games[1:]
